package greedy

import "github.com/greedyl2o/greedyl2o/checkpoint"

// A Recorder follows a training run, in the spirit of gonum/optimize's
// Recorder: Init is called once the run is set up (the manifest holds its
// settings and the steps of a resumed checkpoint), Record after every
// completed step, with the manifest that now lists it. Train's own
// recorders are the checkpoint in Store.Dir and Record.Progress;
// Record.Recorder adds one (a log, a live plot). An error from a recorder
// stops the run.
type Recorder interface {
	Init(man *checkpoint.Manifest) error
	Record(man *checkpoint.Manifest, s *Step) error
}

// Step is a completed greedy step as recorders see it: its record, its
// parameters and the iterates after it. The slices belong to the run: read
// them during Record, copy what must outlive it.
type Step struct {
	Info       checkpoint.StepInfo
	Theta, Phi []float64
	// X and XPrev are the training iterates after the step and before it;
	// XVal and XValPrev those of the validation functions (nil without).
	X, XPrev       []float64
	XVal, XValPrev []float64
}

// checkpointRecorder writes every step's parameters and state to a
// checkpoint directory and commits the manifest (saveStep).
type checkpointRecorder struct{ dir string }

func (c *checkpointRecorder) Init(*checkpoint.Manifest) error { return nil }

func (c *checkpointRecorder) Record(man *checkpoint.Manifest, s *Step) error {
	return saveStep(c.dir, man, s.Info.T, s.Theta, s.Phi, s.X, s.XPrev, s.XVal, s.XValPrev)
}

// progressRecorder calls a function with every step's record.
type progressRecorder func(checkpoint.StepInfo)

func (progressRecorder) Init(*checkpoint.Manifest) error { return nil }

func (f progressRecorder) Record(_ *checkpoint.Manifest, s *Step) error {
	f(s.Info)
	return nil
}

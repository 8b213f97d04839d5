package greedy

import "github.com/greedyl2o/greedyl2o/checkpoint"

// A Recorder follows a training run, in the spirit of gonum/optimize's
// Recorder: Init is called once the run is set up (the manifest holds its
// settings and the steps of a resumed checkpoint), Record after every
// completed step, with the manifest that now lists it and the checkpoint
// in Store.Dir committed. Record.Recorder sets one (a log, a live plot)
// beside Record.Progress. An error from a recorder stops the run.
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
	// X and XPrev are the training iterates after the step and before it
	// (with Method.Divide, those of this process's block); XVal and
	// XValPrev those of the validation functions (nil without).
	X, XPrev       []float64
	XVal, XValPrev []float64
}

// recorder is what follows a run besides its store (Config.Record), one
// value: after every step it calls Progress, then the Recorder; the
// trainer hands the inner solver's evaluations to InnerProgress.
type recorder struct{ Record }

// init hands the set-up run's manifest to the Recorder.
func (r recorder) init(man *checkpoint.Manifest) error {
	if r.Recorder == nil {
		return nil
	}
	return r.Recorder.Init(man)
}

// step reports a completed step.
func (r recorder) step(man *checkpoint.Manifest, s *Step) error {
	if r.Progress != nil {
		r.Progress(s.Info)
	}
	if r.Recorder == nil {
		return nil
	}
	return r.Recorder.Record(man, s)
}

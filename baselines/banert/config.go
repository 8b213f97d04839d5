package banert

import (
	"errors"
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/internal/config"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/provenance"
)

// Config sets up Banert training in greedy.Config's four parts, as gonum's
// optimize package separates a Problem from its Settings and Method: what
// is trained on (Problem), the network and its unrolled loss (Method), how
// Adam minimises that loss (Solver), and what the run keeps and when it
// stops (Run). The training functions themselves are Train's argument.
type Config struct {
	Problem Problem
	Method  MethodConfig
	Solver  Solver
	Run     Run
	// Target is where and in what precision the unrolled loss computes: on
	// the CPU in float64 (the zero value) the gorgonia graph; on the CPU in
	// float32 and on a device (CUDA) the reverse pass over the network
	// operations of execution.Target.Arrays (ondevice.BanertLoss; they must
	// have them and the objective a device form: CheckTarget): the
	// trajectory and the network's activations stay in them, their
	// allocator meters them, and the parameters and Adam stay float64 on
	// the host. The manifest records the target ("device", "precision") and
	// a resume must use the same.
	Target execution.Target
}

// Problem is the identity of the training data and the run's seed,
// recorded in the manifest.
type Problem struct {
	// Name and DataHash are recorded in the manifest and checked on resume
	// (Name: the problem's registered name).
	Name, DataHash string
	// Seed drives the initialisation, the order of the functions and the
	// random lengths.
	Seed uint64
	// Provenance: see greedy.Problem.Provenance.
	Provenance *provenance.Record
}

// MethodConfig is the Method part of a Config: the network and the
// unrolled loss it is trained on (its inputs, the number of unrolled
// iterations). The type is not named
// Method as in packages greedy and unroll: Method is the trained network.
type MethodConfig struct {
	// Inputs is the number of input channels of the network: 3 ([x, ∇f, Δ],
	// the default when 0) or 4 ([x, ∇f_data, ∇f_reg, Δ]).
	Inputs int
	// T is the number of unrolled iterations (10 or 50 in the paper).
	T int
	// RandomLength unrolls a length drawn uniformly from [T, 2T−1] at every
	// step, as the original code does.
	RandomLength bool
}

// Solver is Adam and its passes over the training functions.
type Solver struct {
	// Epochs is the number of passes over the training functions; every pass
	// makes one Adam step per function (batch size 1), in a random order.
	Epochs int
	// LearningRate of Adam (0: 1e-3).
	LearningRate float64
}

// Run is what a run keeps and reports and when it stops early: the
// checkpoint directory, the observer, the time budget and the stop request.
type Run struct {
	// Dir is the checkpoint directory ("" for none). A checkpoint is written
	// after every epoch.
	Dir string
	// Resume continues the run in Dir from its last completed epoch.
	Resume bool
	// Progress, when set, is called after every epoch.
	Progress func(EpochInfo)
	// MaxSeconds, if positive, ends training after the first epoch at which
	// the training time of all epochs so far (resumed ones included) reaches
	// it; Resume with a larger budget continues the run.
	MaxSeconds float64
	// Stop, if set, is asked before every epoch; when it returns true the
	// run ends there with greedy.ErrInterrupted, its checkpoint complete
	// up to the previous epoch (Resume continues it).
	Stop func() bool
}

// A FieldError is a setting that Train refuses: the field, named as
// Part.Field (Method.Inputs, Solver.Epochs), and why. It has
// greedy.FieldError's shape; package banert keeps its own so as not to
// import greedy.
type FieldError = config.FieldError

// fieldError returns the FieldError of field for err.
func fieldError(field string, err error) error {
	return &config.FieldError{Pkg: "banert", Field: field, Err: err}
}

// prepare fills in the defaults (Method.Inputs, Solver.LearningRate) and
// validates every part, the training functions o given.
func (cfg *Config) prepare(o *problem.Objective) error {
	if _, ok := o.A.(*problem.PerFunction); ok {
		return errors.New("banert: a family of operators (problem.PerFunction) cannot be trained: the network's graph holds one operator for every function")
	}
	if _, ok := o.Reg.(problem.FunctionWeights); ok {
		return errors.New("banert: a family of regularisation weights (problem.Weighted) cannot be trained: the network's graph holds one α for every function")
	}
	if cfg.Method.Inputs == 0 {
		cfg.Method.Inputs = 3
	}
	if cfg.Solver.LearningRate == 0 {
		cfg.Solver.LearningRate = 1e-3
	}
	if err := cfg.Method.validate(); err != nil {
		return err
	}
	if err := cfg.Target.Check(); err != nil {
		return fieldError("Target.Precision", err)
	}
	if err := cfg.Solver.validate(); err != nil {
		return err
	}
	if o == nil || o.N < 1 {
		return fmt.Errorf("banert: training needs at least one function")
	}
	return cfg.Run.validate()
}

// validate checks the number of inputs and T.
func (m MethodConfig) validate() error {
	if err := inputsError(m.Inputs); err != nil {
		return fieldError("Method.Inputs", err)
	}
	if m.T < 1 {
		return fieldError("Method.T", fmt.Errorf("training with T = %d: T must be at least 1", m.T))
	}
	return nil
}

// validate checks the number of epochs and the learning rate.
func (s Solver) validate() error {
	if s.Epochs < 1 {
		return fieldError("Solver.Epochs", fmt.Errorf("training with %d epochs: the number of epochs must be at least 1", s.Epochs))
	}
	if !(s.LearningRate > 0) || math.IsInf(s.LearningRate, 0) {
		return fieldError("Solver.LearningRate", fmt.Errorf("learning rate %g must be positive and finite", s.LearningRate))
	}
	return nil
}

// validate checks that a resume has a checkpoint directory.
func (r Run) validate() error {
	if r.Resume && r.Dir == "" {
		return fieldError("Run.Resume", errors.New("resume needs a checkpoint directory (Run.Dir)"))
	}
	return nil
}

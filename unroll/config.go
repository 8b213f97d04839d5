package unroll

import (
	"errors"
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/internal/config"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/provenance"
)

// DefaultLearningRate is the Adam learning rate of the paper's unrolled baseline.
const DefaultLearningRate = 2e-5

// Config sets up unrolled training in greedy.Config's four parts, as
// gonum's optimize package separates a Problem from its Settings and
// Method: what is trained on (Problem), the learned method and its
// unrolled loss (Method), how Adam minimises that loss (Solver), and what
// the run keeps and when it stops (Run). The training functions
// themselves are Train's argument.
type Config struct {
	Problem Problem
	Method  Method
	Solver  Solver
	Run     Run
	// Target is where and in what precision the unrolled loss computes
	// (NewLossFor): on the CPU in float64 (the zero value) the gorgonia
	// graph; on the CPU in float32 and on a device (CUDA, float32) the
	// reverse pass over array operations (ondevice.Unrolled), the trajectory kept
	// in them. Recorded in unroll.json ("device", "precision"); a resume
	// must ask for the same.
	Target execution.Target
}

// Problem is the identity of the training data, recorded in unroll.json.
type Problem struct {
	// Name and DataHash are recorded in the manifest and checked on resume
	// (Name: the problem's registered name).
	Name     string
	DataHash string
	// Seed drives the shuffling; it is also recorded in the manifest.
	Seed int64
	// Provenance: see greedy.Problem.Provenance.
	Provenance *provenance.Record
}

// Method is the learned method and the unrolled loss it is trained on:
// the parametrization, the number of unrolled iterations, the reference
// step and the loss weights. Where the loss computes is Config.Target.
type Method struct {
	// Param is the parametrization of G and H (H nil: no momentum term).
	Param models.Method
	// T is the number of unrolled iterations (required, ≥ 1).
	T int
	// Tau is the step of the reference G = τI; 0 means 1/L of the training set.
	Tau float64
	// Weights holds ω1, …, ωT (nil: all ones).
	Weights []float64
}

// Solver is Adam and its mini-batches.
type Solver struct {
	// LearningRate of Adam; 0 means DefaultLearningRate.
	LearningRate float64
	// Batch is the mini-batch size B; 0 means 4 (or N if N < 4).
	Batch int
	// Epochs is the number of passes over the training set (required, ≥ 1).
	// Each epoch visits a fresh permutation of the functions, drawn from
	// Problem.Seed and the epoch number, in ⌊N/B⌋ mini-batches; the N mod B
	// functions left over are skipped in that epoch.
	Epochs int
}

// Run is what a run keeps and reports and when it stops early: the
// checkpoint directory, the observer, the time budget and the stop request.
type Run struct {
	// Dir is the checkpoint directory ("" keeps nothing on disk).
	Dir string
	// Resume continues the run in Dir after its last completed epoch.
	Resume bool
	// Progress, if set, is called after every epoch.
	Progress func(EpochInfo)
	// MaxSeconds, if positive, ends training after the first epoch at which
	// the training time of all epochs so far (resumed ones included) reaches
	// it: a wall-clock budget for comparisons at equal training time. The
	// run can be continued with Resume and a larger budget.
	MaxSeconds float64
	// Stop, if set, is asked before every epoch; when it returns true the
	// run ends there with greedy.ErrInterrupted, its checkpoint complete
	// up to the previous epoch (Resume continues it).
	Stop func() bool
}

// A FieldError is a setting that Train refuses: the field, named as
// Part.Field (Method.T, Solver.Batch), and why. It has greedy.FieldError's
// shape; package unroll keeps its own so as not to import greedy.
type FieldError = config.FieldError

// fieldError returns the FieldError of field for err.
func fieldError(field string, err error) error {
	return &config.FieldError{Pkg: "unroll", Field: field, Err: err}
}

// prepare fills in the defaults (Solver.LearningRate and Solver.Batch,
// for n training functions) and validates every part.
func (cfg *Config) prepare(n int) error {
	if err := cfg.Method.validate(); err != nil {
		return err
	}
	if err := cfg.Target.Check(); err != nil {
		return fieldError("Target.Precision", err)
	}
	cfg.Solver.defaults(n)
	if err := cfg.Solver.validate(n); err != nil {
		return err
	}
	return cfg.Run.validate()
}

// validate checks the method: a parametrization for G, T ≥ 1, a reference
// step ≥ 0 and T finite loss weights ≥ 0 if any are given.
func (m Method) validate() error {
	if m.Param.G == nil {
		return fieldError("Method.Param", errors.New("no parametrization for G"))
	}
	if m.T < 1 {
		return fieldError("Method.T", fmt.Errorf("T must be at least 1, got %d", m.T))
	}
	if m.Tau < 0 || math.IsNaN(m.Tau) || math.IsInf(m.Tau, 0) {
		return fieldError("Method.Tau", fmt.Errorf("reference step τ = %g must be ≥ 0 (0: 1/L) and finite", m.Tau))
	}
	if m.Weights != nil && len(m.Weights) != m.T {
		return fieldError("Method.Weights", fmt.Errorf("%d loss weights ωt for T = %d steps", len(m.Weights), m.T))
	}
	for t, w := range m.Weights {
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			return fieldError("Method.Weights", fmt.Errorf("loss weight ω%d = %g must be finite and ≥ 0", t+1, w))
		}
	}
	return nil
}

// defaults fills in the learning rate and the batch size (n: the number of
// training functions).
func (s *Solver) defaults(n int) {
	if s.LearningRate == 0 {
		s.LearningRate = DefaultLearningRate
	}
	if s.Batch == 0 {
		s.Batch = min(4, n)
	}
}

// validate checks the number of epochs, the learning rate and the batch
// size against the n training functions.
func (s Solver) validate(n int) error {
	if s.Epochs < 1 {
		return fieldError("Solver.Epochs", fmt.Errorf("the number of epochs must be at least 1, got %d", s.Epochs))
	}
	if s.LearningRate < 0 || math.IsNaN(s.LearningRate) || math.IsInf(s.LearningRate, 0) {
		return fieldError("Solver.LearningRate", fmt.Errorf("learning rate %g must be positive and finite", s.LearningRate))
	}
	if s.Batch < 1 || s.Batch > n {
		return fieldError("Solver.Batch", fmt.Errorf("batch size %d must be between 1 and the number of training functions %d", s.Batch, n))
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

package greedy

import (
	"errors"
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/internal/config"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/provenance"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// Config sets up greedy training (Algorithm 1) in parts, as gonum's
// optimize package separates a Problem from its Settings and Method: what
// is trained on (Problem), the learned method (Method), how each step's
// loss is minimised (Solver), when the run stops (Stop), where it keeps its
// steps (Store), what follows it (Record) and where it computes (Target).
// The training functions themselves are Train's argument.
type Config struct {
	Problem Problem
	Method  Method
	Solver  Solver
	Stop    Stop
	Store   Store
	Record  Record
	// Target is where and in what precision the step losses and the
	// training iterates compute (the zero value: the CPU in float64).
	//
	// On the CPU in float32 (execution.CPU(Float32)) x⁺, f, ∇f and the
	// convolution terms compute in float32 (see steploss.Float32 for the
	// objectives it supports; others are refused): the iterates x^t are
	// float32 values (kept in float64 slices and checkpoints, exactly),
	// ∇f(x^t) and the stop test are float32 evaluations, and the
	// parameters, the inner solver and the mean objectives stay float64.
	// Validation functions follow the learned steps in float64.
	//
	// With a Device (the CUDA device of package gpu/cuda, l2ocuda builds)
	// the step losses run with its array operations, the step's arrays
	// kept on it between evaluations (steploss.NewStepLossFor); the
	// training iterates, ∇f(x^t) and the stop test stay on the CPU in
	// float64. Supported for PS, PP, PC-k and PC terms on deblurring with
	// Huber-TV or no regularizer (steploss.CheckDevice).
	//
	// Recorded in the manifest ("precision" when float32, "device" the
	// device's kind); a resume on the CPU must ask for the same precision.
	// A run resumed on another target records it on the steps it trains
	// (StepInfo.Device: cpu, cpu32, cuda).
	Target execution.Target
}

// Problem is what a run trains on besides the training functions that
// Train receives: the validation functions, and the identity of the data,
// recorded in the manifest.
type Problem struct {
	// Validation, if set, holds functions that are not trained on but
	// follow the learned steps during training, as unseen functions will
	// under Algorithm 2; each step records their mean objective (ValF).
	Validation *problem.Objective
	// Name, DataHash and Seed are recorded in the manifest and checked on
	// resume (Name: the problem's registered name).
	Name     string
	DataHash string
	Seed     int64
	// Provenance is recorded in the manifest (a resume appends its
	// invocation to the checkpoint's record).
	Provenance *provenance.Record
}

// Method is the learned method: the parametrizations of G and H, the
// reference they start from and the penalties that pull towards it. Where
// and in what precision its step losses compute is Config.Target.
type Method struct {
	// Param is the parametrization of G and H (H nil: no momentum term).
	Param models.Method
	// Tau is the step of the reference G = τI; 0 means 1/L of the training set.
	Tau float64
	// Lambda and Mu weight the penalties λt/2‖θ − θ̃‖² and μt/2‖φ − φ̃‖².
	Lambda, Mu Schedule
	// LossReduction is how the step loss combines the N training functions
	// against the penalties: ReduceMean ("" or "mean", the default), the
	// paper's written (1/N) Σk fk(xk⁺), or ReduceSum ("sum"), Σk fk(xk⁺).
	// Under the sum the penalties weigh 1/N as much: the trainer minimises
	// the equivalent mean loss with absolute weights λt/N and μt/N (the
	// same minimiser; the steps record the weights it used), and relative
	// schedules, which scale with the loss's curvature, are unchanged. With
	// λt = 1e-4, μt = 5e-2 the sum reproduces the paper's certified
	// T = 287 (291 here; the mean: 114; docs/reproduction/penscale-lbfgs/).
	// Recorded in the manifest ("loss_reduction", when sum); a resume must
	// ask for the same.
	LossReduction Reduction
	// Divide, if set, divides the inner solver's step-loss evaluations
	// between processes (Divide).
	Divide *Divide
}

// Divide splits a training over processes that each run it on a block
// of the training functions: this process holds functions [Lo, Hi) (their
// data, their iterates and their block of the step loss) and does their per-step work (f and ∇f at their
// iterates, their part of the step loss, their next iterates). What a step
// needs of every function (the step loss's sums, the mean objective, the
// gradient norms, the data curvatures, the preconditioners, PF's subspace)
// Link combines in function order (steploss.NewStepLossBlock; mpi.Chain
// under mpirun), so every process gets one process's numbers bit for bit
// and trains the same parameters. Link must gather (steploss.Gatherer:
// mpi.Chain, steploss.Pipes). The process of the first block writes the
// checkpoint, gathering every function's iterates (RootGatherer where
// Link is one); the others must not write (no Dir, or ReadOnly), and
// Result.X holds their block's iterates. An operator that applies images
// in groups needs blocks of whole groups (steploss.GroupBlocks). The
// engine's CPU paths divide bitwise; a device's step loss agrees to
// rounding.
type Divide struct {
	Lo, Hi int
	Link   steploss.Link
	// Total, if set, is the number of training functions of every block
	// together, and the objective Train is given holds this block's alone
	// (Hi − Lo functions: problem.Problem.InstantiateBlock), each process
	// having built only its own; 0: it holds all of them. The checkpoint
	// records the hash of every block's observations, taken along Link.
	Total int
	// Family, with Total, is every training function's operators and
	// weights without their data (problem.Problem.Family): the manifest
	// records their names and the certificate takes them. Needed when the
	// functions differ by more than their data (an operator or weight
	// family, Objective.Varied).
	Family *problem.Objective
	// ValTotal, if set, divides the validation functions too: this
	// process builds, holds and steps validation functions [ValLo, ValHi)
	// of ValTotal alone (Problem.Validation holds those ValHi − ValLo
	// functions, nil when the block is empty, as when there are fewer
	// groups of them than processes), and their mean objective, gradient
	// norms and repeat check are combined along Link in function order,
	// as the training functions' are. 0: every process holds and steps
	// every validation function.
	ValLo, ValHi, ValTotal int
}

// Solver is how each step's loss is minimised: the inner solver and its
// options, and the choice among candidate penalty weights.
type Solver struct {
	// Inner minimises each step's loss; nil means LBFGS{}.
	Inner InnerSolver
	// WarmStart starts the inner solve of step t > 0 at the previous step's
	// parameters (θt−1, φt−1) instead of the reference (θ̃, φ̃), as the paper
	// does. The BGD check still compares the solution with the reference,
	// and the penalties still pull towards it. Step losses with reduced
	// blocks (models.Reducer) refuse it. Recorded in the manifest's inner
	// settings ("…,start=previous").
	WarmStart bool
	// NoPrecond turns off the preconditioning of the L-BFGS inner solver
	// (parametrizations implementing models.Preconditioner are preconditioned
	// by default).
	NoPrecond bool
	// WeightScales are candidate multipliers s of the penalty weights: with
	// Problem.Validation, each step is solved for every (s·λt, s·μt) and keeps the
	// solution with the lowest validation objective after the step. Empty
	// means {1}; more than one candidate needs Problem.Validation.
	WeightScales []float64
	// ValLookahead K > 1 scores a candidate by the validation objective after
	// applying its step K times in a row, as Algorithm 2 repeats the last
	// step beyond T, instead of once.
	ValLookahead int
}

// Stop is the stop rule: when a run ends.
type Stop struct {
	// MaxSteps caps the number of steps (required, > 0).
	MaxSteps int
	// TolAbs stops training when every ‖∇fk(xk^t)‖ < TolAbs (0: off).
	TolAbs float64
	// TolRel stops training when every ‖∇fk(xk^t)‖² < ‖∇fk(xk^0)‖²/TolRel (0: off).
	TolRel float64
	// WhenCertified stops at the first T whose certificate (Certificate:
	// the paper's or the Lyapunov bound, "" for DefaultCertificate) holds for
	// CertifyL (0: the training L); needs λt, μt > 0 to be meaningful.
	WhenCertified bool
	CertifyL      float64
	Certificate   learned.CertificateKind
	// OnValidation ends training when the validation functions, which
	// follow the learned steps as unseen functions will, meet the
	// tolerances (TolAbs, TolRel, measured against their own starting
	// gradients), or when their mean objective has not improved for
	// ValPatience steps (0: no patience rule); the training functions'
	// tolerance no longer stops the run, and the step at which they met it
	// is recorded (Manifest.TrainTolSteps). Needs Problem.Validation.
	OnValidation bool
	ValPatience  int
	// RepeatCheck K > 0 lets the tolerance (TolAbs, TolRel; the validation
	// functions' with OnValidation) stop the run only at a step T that,
	// applied K times in a row from the iterates after it (as Algorithm 2
	// repeats the last step beyond T), raises no function's ‖∇f‖: the
	// validation functions' with Problem.Validation, the training
	// functions' otherwise. A step that fails is followed by more training
	// and a check of the next (Manifest.RepeatChecks); MaxSteps still caps
	// the run. 0: off (the paper).
	RepeatCheck int
	// DivergeFactor stops training with an error (ErrDiverged) when the mean
	// training objective after a step exceeds DivergeFactor times its value
	// at the starting points (0 means DefaultDivergeFactor; negative: off).
	// A non-finite objective or gradient always stops it. With τ < 2/L every
	// step's loss is at most that of a gradient step, so the mean objective
	// never rises: exceeding the factor means the run diverged.
	DivergeFactor float64
	// Interrupt, if set, is asked before every step; when it returns true
	// the run ends there with ErrInterrupted, its checkpoint complete up to
	// the previous step (resume it with Store.Resume).
	Interrupt func() bool
}

// Store is where a run keeps its steps: the checkpoint directory (written
// atomically after every step, resumed bitwise) and, for short runs, memory.
type Store struct {
	// Dir is the checkpoint directory ("" keeps nothing on disk).
	Dir string
	// Resume continues the run in Dir from its last completed step.
	Resume bool
	// ReadOnly reads the checkpoint in Dir to resume it and writes nothing
	// there: the processes of a divided run (Method.Divide) other than the
	// one that writes the checkpoint.
	ReadOnly bool
	// Protocol names the preset the configuration came from ("paper"), for
	// the manifest.
	Protocol string
	// KeepParams keeps every step's parameters in memory in Result (for
	// tests and short runs; off by default so memory does not grow with t).
	KeepParams bool
}

// Record is what follows a run besides its checkpoint: Train reports to
// each that is set, after every step (the checkpoint committed first) and,
// for InnerProgress, inside steps.
type Record struct {
	// Progress, if set, is called after every step.
	Progress func(checkpoint.StepInfo)
	// InnerProgress, if set, is called after every evaluation of the step
	// loss inside a step (for progress lines in steps that take minutes).
	InnerProgress func(InnerProgress)
	// Recorder, if set, follows the run with the manifest and each step's
	// parameters and iterates (see Recorder).
	Recorder Recorder
}

// A FieldError is a setting that Train (or Method.Check) refuses: the
// field, named as Part.Field (Stop.MaxSteps, Target.Precision), and why.
type FieldError = config.FieldError

// fieldError returns the FieldError of field for err.
func fieldError(field string, err error) error {
	return &config.FieldError{Pkg: "greedy", Field: field, Err: err}
}

// validate checks every part of the configuration, the training functions o
// given; the defaults are filled in by newTrainer.
func (cfg Config) validate(o *problem.Objective) error {
	hasVal := cfg.Problem.Validation != nil || cfg.Method.Divide.dividesValidation()
	if err := cfg.Stop.validate(hasVal); err != nil {
		return err
	}
	if err := cfg.Store.validate(); err != nil {
		return err
	}
	if err := cfg.Method.validate(); err != nil {
		return err
	}
	if err := checkTarget(cfg.Target); err != nil {
		return err
	}
	if err := cfg.Solver.validate(cfg.Method, hasVal); err != nil {
		return err
	}
	if o != nil && cfg.Method.Param.G != nil {
		if err := cfg.Method.Param.CheckSize(o.H, o.W); err != nil {
			return fieldError("Method.Param", err)
		}
	}
	return cfg.Problem.validate(o)
}

// validate checks that the validation functions have the training
// functions' size.
func (p Problem) validate(o *problem.Objective) error {
	if v := p.Validation; v != nil && (v.H != o.H || v.W != o.W) {
		return fieldError("Problem.Validation", fmt.Errorf("validation functions are %d×%d, training functions %d×%d", v.H, v.W, o.H, o.W))
	}
	return nil
}

// validate checks the method without building its step loss: a
// parametrization for G and a known loss reduction.
func (m Method) validate() error {
	if m.Param.G == nil {
		return fieldError("Method.Param", errors.New("no parametrization for G"))
	}
	if _, err := ParseReduction(string(m.LossReduction)); err != nil {
		return fieldError("Method.LossReduction", err)
	}
	return nil
}

// checkTarget checks the execution target: a known precision, and none
// besides float64 with a device (execution.ErrPrecisionOnDevice).
func checkTarget(t execution.Target) error {
	if err := t.Check(); err != nil {
		return fieldError("Target.Precision", err)
	}
	return nil
}

// Check reports whether the method can train on the functions o on the
// target t: the checks Train makes of them, and whether the step loss has
// a path in t's precision (steploss.CheckPrecision) or on its device
// (steploss.CheckDevice). Its errors are *FieldError naming Method.Param,
// Target.Precision or Target.Device; a precision with a device is
// execution.ErrPrecisionOnDevice. Commands call it before building
// anything else.
func (m Method) Check(o *problem.Objective, t execution.Target) error {
	if err := m.validate(); err != nil {
		return err
	}
	if err := checkTarget(t); err != nil {
		return err
	}
	if err := m.Param.CheckSize(o.H, o.W); err != nil {
		return fieldError("Method.Param", err)
	}
	if t.Device != nil {
		if err := steploss.CheckDevice(m.Param, o); err != nil {
			return fieldError("Target.Device", err)
		}
		return nil
	}
	if err := steploss.CheckPrecision(m.Param, o, t.Prec()); err != nil {
		return fieldError("Target.Precision", err)
	}
	return nil
}

// validate checks the candidate weight scales and the lookahead (hasVal:
// the run has validation functions) and refuses a warm start for a method
// whose step loss works in a reduced subspace.
func (s Solver) validate(m Method, hasVal bool) error {
	for _, sc := range s.WeightScales {
		if !(sc >= 0) || math.IsInf(sc, 0) {
			return fieldError("Solver.WeightScales", fmt.Errorf("penalty weight scales must be finite and ≥ 0, got %g", sc))
		}
	}
	if len(s.WeightScales) > 1 && !hasVal {
		return fieldError("Solver.WeightScales", errors.New("choosing among penalty weight scales needs validation functions (Problem.Validation)"))
	}
	if hasVal && s.ValLookahead < 0 {
		return fieldError("Solver.ValLookahead", fmt.Errorf("validation lookahead must be ≥ 0, got %d", s.ValLookahead))
	}
	if s.WarmStart && isReduced(m.Param) {
		return fieldError("Solver.WarmStart", fmt.Errorf("a warm start needs the step in the parameters' own coordinates; %s's step loss works in a reduced subspace: drop the warm start", m.Param.Name()))
	}
	return nil
}

// validate checks the step cap, the tolerances and the validation stopping
// rule (hasVal: the run has validation functions).
func (r Stop) validate(hasVal bool) error {
	if r.MaxSteps <= 0 {
		return fieldError("Stop.MaxSteps", fmt.Errorf("the step cap must be positive, got %d", r.MaxSteps))
	}
	if r.TolAbs < 0 || r.TolRel < 0 || math.IsNaN(r.TolAbs) || math.IsNaN(r.TolRel) {
		return fieldError("Stop.TolAbs, Stop.TolRel", fmt.Errorf("tolerances must be ≥ 0 (got absolute %g, relative %g)", r.TolAbs, r.TolRel))
	}
	if r.OnValidation && !hasVal {
		return fieldError("Stop.OnValidation", errors.New("stopping on validation functions needs validation functions (Problem.Validation)"))
	}
	if r.RepeatCheck < 0 || r.RepeatCheck > 100000 {
		return fieldError("Stop.RepeatCheck", fmt.Errorf("the repeat check's repetitions must be in [0, 100000], got %d", r.RepeatCheck))
	}
	if !(r.CertifyL >= 0) || math.IsInf(r.CertifyL, 0) {
		return fieldError("Stop.CertifyL", fmt.Errorf("the certificate's smoothness constant must be > 0 (0: the training L), got %g", r.CertifyL))
	}
	if r.ValPatience < 0 {
		return fieldError("Stop.ValPatience", fmt.Errorf("validation patience must be ≥ 0, got %d", r.ValPatience))
	}
	return nil
}

// validate checks that a read-only store resumes a checkpoint.
func (s Store) validate() error {
	if s.ReadOnly && (s.Dir == "" || !s.Resume) {
		return fieldError("Store.ReadOnly", errors.New("a read-only run resumes the checkpoint in Store.Dir: set Dir and Resume"))
	}
	return nil
}

// Reduction is how a step loss combines the training functions' values
// (Method.LossReduction).
type Reduction string

// The reductions: the mean (the default) and the sum over the N training
// functions.
const (
	ReduceMean Reduction = "mean"
	ReduceSum  Reduction = "sum"
)

// ParseReduction returns the reduction named s ("" is the mean).
func ParseReduction(s string) (Reduction, error) {
	switch Reduction(s) {
	case "", ReduceMean:
		return ReduceMean, nil
	case ReduceSum:
		return ReduceSum, nil
	}
	return "", fmt.Errorf("unknown loss reduction %q: use mean (the default) or sum", s)
}

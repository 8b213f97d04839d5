package cmd

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/greedy"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/mpi"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/steploss"
	"github.com/spf13/pflag"
)

func init() {
	register(&Command{Name: "train greedy", Summary: "greedy training (Algorithm 1) with checkpoints and --resume", Run: runTrainGreedy})
}

type greedyFlags struct {
	Param     string
	Inner     string
	TolRel    float64
	TolAbs    float64
	MaxSteps  int
	Lambda    string
	Mu        string
	Reduction string
	Tau       float64
	Out       string
	Resume    bool
	Certified bool
	CertifyL  float64
	CertKind  string
	// RepeatCheck is --repeat-check (greedy.Stop.RepeatCheck).
	RepeatCheck int
	Protocol    string
	Force       bool
	Diverge     float64
}

func runTrainGreedy(env *Env, args []string) error {
	c := &trainGreedyCmd{}
	fs := c.define(env)
	args, err := resumeArgs(fs, "train greedy", args)
	if err != nil {
		return err
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := c.check(fs); err != nil {
		return err
	}
	if mpi.Rank() == 0 {
		lock, err := claimCheckpointDir(c.gf.Out, c.gf.Resume, "manifest.json")
		if err != nil {
			return err
		}
		defer lock.Unlock()
	}
	sp, train, val, err := c.functions()
	if err != nil {
		return err
	}
	if h := sp.held; h != nil {
		fmt.Fprintf(env.Stderr, "note: rank %d of %d holds training functions [%d, %d) of %d and validation functions [%d, %d) of %d; it read %d images\n",
			mpi.Rank(), mpi.Size(), h.lo, h.hi, h.total, h.valLo, h.valHi, h.valTotal, h.loaded)
	}
	noteRankDevice(env, &c.pf)
	c.banner(env, sp, train, val)
	start := time.Now()
	defer innerMeters.Delete(env)
	intr := catchInterrupts(env, c.gf.Out, resumeCommand("train greedy", args))
	defer intr.release()
	cfg := c.config(env, sp, train, val, intr, start)
	if err := divideTraining(&cfg, train, sp.held); err != nil {
		return err
	}
	res, err := greedy.Train(train, cfg)
	if errors.Is(err, checkpoint.ErrInterrupted) {
		return intr.interrupted(err.Error())
	}
	if err != nil {
		return resumeUsage(err)
	}
	fmt.Fprintf(env.Stdout, "stopped: %s after %d steps in %.1f s; parameters in %s\n", res.StopCause, len(res.Steps), time.Since(start).Seconds(), c.gf.Out)
	if m := res.Manifest; m != nil && m.StopOnValidation {
		if m.TrainTolSteps > 0 {
			fmt.Fprintf(env.Stdout, "the training functions met the tolerance after %d steps; training went on for the validation functions\n", m.TrainTolSteps)
		} else {
			fmt.Fprintln(env.Stdout, "the training functions did not meet the tolerance before the validation functions stopped the run")
		}
	}
	return nil
}

// trainGreedyCmd is `l2o train greedy`: its flags and what they parse to.
type trainGreedyCmd struct {
	pf        problemFlags
	gf        greedyFlags
	vf        validationFlags
	sf        solverFlags
	preset    []string
	protocol  string // what the manifest records: protocolLabel
	method    models.Method
	inner     greedy.InnerSolver
	prec      steploss.Precision
	lam, mu   greedy.Schedule
	reduction greedy.Reduction
	certKind  learned.CertificateKind
}

// define declares the flags.
func (c *trainGreedyCmd) define(env *Env) *pflag.FlagSet {
	gf := &c.gf
	fs := newFlags(env, "train greedy", "train greedy --problem deblur --data DIR|synthetic --param m-pc [--protocol paper] [--inner auto|lbfgs|nag|closed] [--blur-boundary zero|circular|reflect] --tol-rel 1e7 --max-steps N --lambda 0 --mu 0 --out DIR [--resume]")
	addProtocol(fs, &gf.Protocol)
	c.pf.add(fs, 25, -1)
	fs.StringVar(&gf.Param, "param", "m-pc", "parametrization, a registered name (l2o param list): ps, pp, pc, pcK[-boundary], pf; m- prefix learns momentum; G:H pairs types")
	fs.StringVar(&gf.Inner, "inner", "auto", "inner solver: auto (L-BFGS for scalar parametrizations, NAG with 250 iterations a block and 1 round otherwise), lbfgs, nag or closed (least squares only)")
	fs.Float64Var(&gf.TolRel, "tol-rel", 1e7, "stop when every ‖∇fk(x^t)‖² < ‖∇fk(x^0)‖²/tol-rel (0: off)")
	fs.Float64Var(&gf.TolAbs, "tol-abs", 0, "stop when every ‖∇fk(x^t)‖ < tol-abs (0: off)")
	fs.IntVar(&gf.MaxSteps, "max-steps", 200, "cap on training steps")
	fs.StringVar(&gf.Lambda, "lambda", "0", "λt schedule: a value (1e-3), piecewise 'v@t1,v2@t2,v3' (v until step t1, …), or relative to each step's data curvature with the prefix rel: ('rel:1e-2', 'rel:1e-2@10,1e-3')")
	fs.StringVar(&gf.Mu, "mu", "0", "μt schedule, like --lambda")
	addLossReduction(fs, &gf.Reduction)
	fs.Float64Var(&gf.Tau, "tau", 0, "reference step τ (0: 1/L); τ ≥ 2/L is refused unless --force")
	fs.BoolVar(&gf.Force, "force", false, "train with a reference step τ ≥ 2/L, whose gradient steps do not decrease f")
	fs.Float64Var(&gf.Diverge, "diverge-factor", greedy.DefaultDivergeFactor, "stop with an error when the mean training objective exceeds this many times its starting value (0: off)")
	fs.StringVar(&gf.Out, "out", "runs/greedy", "checkpoint directory")
	fs.BoolVar(&gf.Resume, "resume", false, "continue the run in --out from its last completed step")
	c.pf.addPrecision(fs)
	fs.BoolVar(&gf.Certified, "stop-when-certified", false, "stop at the first T whose certificate P < 0")
	fs.Float64Var(&gf.CertifyL, "certify-L", 0, "smoothness L for --stop-when-certified (0: the training L)")
	fs.StringVar(&gf.CertKind, "certificate", "lyapunov", "certificate for --stop-when-certified: paper (the paper's P(ε1, ε2) with a γ making C1, C2 > 0) or lyapunov (the tool's own bound)")
	fs.IntVar(&gf.RepeatCheck, "repeat-check", 0, "let the tolerance stop training only at a step T that, repeated this many times from the iterates after it (as Algorithm 2 repeats the last step), raises no function's ‖∇f‖: the --n-val functions', or the training functions'; a step that fails is followed by more training (0: off, the paper)")
	c.sf.add(fs)
	c.vf.add(fs)
	return fs
}

// check validates the flags and parses the method, solver and schedules.
func (c *trainGreedyCmd) check(fs *pflag.FlagSet) error {
	gf := &c.gf
	var err error
	if c.preset, err = applyProtocol(fs, gf.Protocol, c.pf.Problem); err != nil {
		return err
	}
	c.protocol = protocolLabel(fs, gf.Protocol, c.pf.Problem, c.preset)
	if c.pf.NTrain < 1 {
		return usagef("--n-train must be at least 1")
	}
	if err := c.vf.validate(); err != nil {
		return err
	}
	if gf.MaxSteps < 1 {
		return usagef("--max-steps must be at least 1 (got %d)", gf.MaxSteps)
	}
	if gf.TolRel < 0 || gf.TolAbs < 0 || gf.Tau < 0 || math.IsNaN(gf.TolRel+gf.TolAbs+gf.Tau) {
		return usagef("--tol-rel, --tol-abs and --tau must be ≥ 0")
	}
	if gf.Diverge < 0 {
		return usagef("--diverge-factor must be ≥ 0 (0: off), got %g", gf.Diverge)
	}
	if gf.RepeatCheck < 0 || gf.RepeatCheck > 100000 {
		return usagef("--repeat-check %d: give a number of repetitions from 0 (off) to 100000", gf.RepeatCheck)
	}
	if !(gf.CertifyL >= 0) || math.IsInf(gf.CertifyL, 0) {
		return usagef("--certify-L %g: give a smoothness constant L > 0, or 0 for the training L", gf.CertifyL)
	}
	if c.method, err = models.ParseMethod(gf.Param); err != nil {
		return asUsage(err)
	}
	if c.certKind, err = learned.ParseCertificateKind(gf.CertKind); err != nil {
		return usagef("--certificate: %v", err)
	}
	if c.inner, err = c.sf.solver(gf.Inner, c.method); err != nil {
		return err
	}
	if err = c.pf.resolveTarget(); err != nil {
		return err
	}
	c.prec = c.pf.prec
	if c.lam, err = greedy.ParseSchedule(gf.Lambda); err != nil {
		return usagef("--lambda: %v", err)
	}
	if c.mu, err = greedy.ParseSchedule(gf.Mu); err != nil {
		return usagef("--mu: %v", err)
	}
	if c.reduction, err = greedy.ParseReduction(gf.Reduction); err != nil {
		return usagef("--loss-reduction: %v", err)
	}
	return nil
}

// functions builds the training (and validation) functions and checks
// that the method, precision, device and solver can train on them.
func (c *trainGreedyCmd) functions() (*split, *problem.Objective, *problem.Objective, error) {
	pf, gf := &c.pf, &c.gf
	pf.NTrain += c.vf.NVal
	pf.acceptsOps, pf.holdBlock, pf.holdVal = true, true, c.vf.NVal
	sp, err := pf.buildSplit(nil)
	if err != nil {
		return nil, nil, nil, err
	}
	pf.NTrain -= c.vf.NVal
	train, val := sp.train, (*problem.Objective)(nil)
	if sp.held != nil {
		val = sp.held.val
	} else if train, val, err = splitValidation(sp.train, c.vf.NVal); err != nil {
		return nil, nil, nil, err
	}
	if gf.Tau >= 2/train.L && !gf.Force {
		return nil, nil, nil, usagef("--tau %g ≥ 2/L = %.4g (L = %.4g of the training functions): gradient steps of this size do not decrease f, and greedy training diverges; use --tau 0 (1/L), or pass --force to train anyway", gf.Tau, 2/train.L, train.L)
	}
	if err := pf.checkMethod(c.learned(), train); err != nil {
		return nil, nil, nil, err
	}
	if gf.Inner == "closed" && !train.LeastSquares() {
		return nil, nil, nil, usagef("--inner closed needs a least-squares problem; %s has regularizer %s", sp.prob.Name, sp.prob.Reg)
	}
	return sp, train, val, nil
}

// banner prints what is trained, on what, and the table's header.
func (c *trainGreedyCmd) banner(env *Env, sp *split, train, val *problem.Objective) {
	gf, prob, nTrain := &c.gf, sp.prob, train.N
	if sp.held != nil {
		nTrain = sp.held.total
	}
	if c.preset != nil {
		fmt.Fprintf(env.Stdout, "protocol %s: %s\n", gf.Protocol, strings.Join(c.preset, " "))
	}
	fmt.Fprintf(env.Stdout, "training %s on %d %s functions (%d×%d, L = %.4g, %s) with the %s inner solver in %s → %s\n",
		c.method.Name(), nTrain, prob.Name, prob.H, prob.W, train.L, orNone(prob.Conventions.String()), c.inner.Name(), precisionOn(c.pf.target), gf.Out)
	if c.vf.NVal > 0 {
		fmt.Fprintf(env.Stdout, "validation on %d more functions, penalty scales %v\n", c.vf.NVal, c.vf.Scales)
	}
	if c.reduction == greedy.ReduceSum {
		fmt.Fprintf(env.Stdout, "loss reduction sum: the penalties weigh against Σk fk, so the steps use λt/%d and μt/%d against the mean (relative schedules unchanged)\n", nTrain, nTrain)
	}
	if gf.Resume {
		if m, err := checkpoint.ReadManifest(gf.Out); err == nil {
			fmt.Fprintf(env.Stdout, "resuming %s at step t = %d (%d steps completed, at most %d)\n", gf.Out, len(m.Steps), len(m.Steps), gf.MaxSteps)
			if len(m.Steps) >= gf.MaxSteps {
				fmt.Fprintf(env.Stderr, "note: the checkpoint already holds %d steps, --max-steps %d: nothing is trained; give a larger --max-steps to continue\n", len(m.Steps), gf.MaxSteps)
			}
		}
	}
	fmt.Fprintf(env.Stdout, "%5s %14s %11s %11s %10s %7s %8s", "t", "loss", "BGD margin", "max‖∇fk‖", "mean f", "evals", "seconds")
	if c.vf.NVal > 0 {
		fmt.Fprintf(env.Stdout, " %10s %6s", "val f", "scale")
	}
	fmt.Fprintf(env.Stdout, " %9s %9s\n", "elapsed", "ETA≤")
}

// learned is the method trained: the parametrization, the reference step,
// the penalty schedules (where it trains is the target, c.pf.target).
func (c *trainGreedyCmd) learned() greedy.Method {
	return greedy.Method{Param: c.method, Tau: c.gf.Tau, Lambda: c.lam, Mu: c.mu, LossReduction: c.reduction}
}

// config is the trainer's configuration, printing a row per step.
func (c *trainGreedyCmd) config(env *Env, sp *split, train, val *problem.Objective, intr *interrupts, start time.Time) greedy.Config {
	gf, vf, sf := &c.gf, &c.vf, &c.sf
	return greedy.Config{
		Problem: greedy.Problem{Validation: val, Name: sp.prob.Name, DataHash: sp.trainHash(train), Seed: c.pf.Seed,
			Provenance: env.trainingProvenance(sp, vf.NVal)},
		Method: c.learned(),
		Target: c.pf.target,
		Solver: greedy.Solver{Inner: c.inner, NoPrecond: !sf.Precond, WarmStart: sf.warmStart(), WeightScales: vf.Scales, ValLookahead: vf.Lookahead},
		Stop: greedy.Stop{
			MaxSteps:      gf.MaxSteps,
			TolAbs:        gf.TolAbs,
			TolRel:        gf.TolRel,
			WhenCertified: gf.Certified,
			CertifyL:      gf.CertifyL,
			Certificate:   c.certKind,
			OnValidation:  vf.StopOn == "validation",
			ValPatience:   vf.Patience,
			RepeatCheck:   gf.RepeatCheck,
			DivergeFactor: divergeFactor(gf.Diverge),
			Interrupt:     intr.Stop,
		},
		Store:  greedy.Store{Dir: gf.Out, Resume: gf.Resume, Protocol: c.protocol},
		Record: greedy.Record{InnerProgress: innerProgress(env), Progress: c.stepRow(env, c.vf.NVal > 0, start)},
	}
}

// stepRow returns the Progress that prints a row per step (with the
// validation columns when withVal).
func (c *trainGreedyCmd) stepRow(env *Env, withVal bool, start time.Time) func(checkpoint.StepInfo) {
	done := 0
	return func(s checkpoint.StepInfo) {
		clearStatus(env)
		mark := ""
		if s.FellBack {
			mark = "  (kept τI: solver did no better)"
		}
		fmt.Fprintf(env.Stdout, "%5d %14.8g %11.3g %11.4g %10.6g %7d %8.2f", s.T, s.Loss, s.BGDMargin, s.MaxGradNorm, s.MeanF, s.Evaluations, s.Seconds)
		if withVal {
			fmt.Fprintf(env.Stdout, " %10.6g %6g", s.ValF, s.WeightScale)
		}
		done++
		el := time.Since(start)
		fmt.Fprintf(env.Stdout, " %9s %9s", shortDuration(el), eta(done, done+c.gf.MaxSteps-1-s.T, el))
		fmt.Fprintln(env.Stdout, mark)
	}
}

// orNone returns s, or "no conventions" when s is empty.
func orNone(s string) string {
	if s == "" {
		return "no conventions"
	}
	return s
}

// precisionOn names the arithmetic of a greedy run: the CPU's precision,
// or the device's.
func precisionOn(t execution.Target) string {
	if d := t.Device; d != nil {
		return fmt.Sprintf("float%d on %s (%s)", 8*d.ValueSize(), t.Kind(), d.Name())
	}
	return string(t.Prec())
}

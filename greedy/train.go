package greedy

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// DefaultDivergeFactor is Stop.DivergeFactor's default.
const DefaultDivergeFactor = 10

// ErrDiverged marks a training run stopped because it diverged (see
// Stop.DivergeFactor); test with errors.Is.
var ErrDiverged = errors.New("the run diverged")

// Result is the outcome of Train.
type Result struct {
	Steps []checkpoint.StepInfo
	// Theta and Phi hold the parameters of every step when KeepParams is set.
	Theta, Phi [][]float64
	// X holds the training iterates after the last step: with
	// Method.Divide those of this process's block.
	X         []float64
	StopCause string
	Manifest  *checkpoint.Manifest
}

// Train runs Algorithm 1 on the training functions o: for t = 0, 1, … it
// solves step t's loss (trainer.step), keeps the step (the store: the
// checkpoint in Store.Dir), reports it (the recorder: Record.Progress and
// Record.Recorder) and ends where the stop rule says (Config.Stop: the
// tolerance, the step cap, a certificate, validation patience, divergence
// or an interrupt). The pieces live in config.go (the configuration's parts
// and their checks), trainer.go (defaults and the step solve), stop.go,
// store.go and record.go.
func Train(o *problem.Objective, cfg Config) (*Result, error) {
	tr, err := newTrainer(o, cfg)
	if err != nil {
		return nil, err
	}
	defer tr.close()
	if done, err := tr.open(); err != nil || done != nil {
		return done, err
	}
	if err := tr.measureStart(); err != nil {
		return nil, err
	}
	stop := ""
	for t := tr.start; t < cfg.Stop.MaxSteps && stop == ""; t++ {
		if tr.stop.interrupted() {
			return nil, fmt.Errorf("greedy: %w before step %d: the checkpoint in %s holds %d completed steps", checkpoint.ErrInterrupted, t, cfg.Store.Dir, t)
		}
		if stop, err = tr.advance(t); err != nil {
			return nil, err
		}
	}
	if stop == "" {
		stop = "step cap reached"
	}
	return tr.finish(stop)
}

// advance trains step t, keeps and reports it, and returns the stop cause
// the stop rule gives before it (the tolerance) or after it (validation
// patience, a certificate), "" to go on.
func (tr *trainer) advance(t int) (string, error) {
	s, cause, err := tr.step(t)
	if err != nil || cause != "" {
		return cause, err
	}
	if err := tr.record(s); err != nil {
		return "", err
	}
	if cause := tr.stop.valStalled(s.Info.ValF); cause != "" {
		return cause, nil
	}
	return tr.stop.certified(tr.cfg.Method.Param, tr.family, s, tr.tau)
}

// innerSettings describes the inner solver's budget for the manifest.
func innerSettings(inner InnerSolver, nTheta, nPhi int, cfg Config) string {
	warm := ""
	if cfg.Solver.WarmStart {
		warm = ",start=previous"
	}
	switch s := inner.(type) {
	case NAG:
		return s.Settings(nTheta, nPhi) + warm
	case LBFGS:
		return s.Settings(!cfg.Solver.NoPrecond) + warm
	}
	return fmt.Sprintf("%+v", inner) + warm
}

// compatible reports whether a checkpoint can be resumed with a new configuration.
func compatible(old, cur *checkpoint.Manifest) error {
	type field struct {
		name     string
		old, cur any
	}
	for _, f := range []field{
		{"problem", old.Problem, cur.Problem},
		{"conventions", old.Conventions.String(), cur.Conventions.String()},
		{"image size", fmt.Sprintf("%d×%d", old.H, old.W), fmt.Sprintf("%d×%d", cur.H, cur.W)},
		{"alpha", old.Alpha, cur.Alpha},
		{"operator", old.Operator, cur.Operator},
		{"regularizer", old.Regular, cur.Regular},
		{"training functions", old.NTrain, cur.NTrain},
		{"data hash", old.DataHash, cur.DataHash},
		{"observations hash (the data y: noise, blur, angles)", old.ObservationsHash, checkpoint.Recorded(old.ObservationsHash, cur.ObservationsHash)},
		{"seed", old.Seed, cur.Seed},
		{"method", old.Method, cur.Method},
		{"parametrization versions", fmt.Sprint(orDefaultVersions(old.ParamVersions, cur.ParamVersions)), fmt.Sprint(cur.ParamVersions)},
		{"tau", old.Tau, cur.Tau},
		{"lambda", old.Lambda, cur.Lambda},
		{"mu", old.Mu, cur.Mu},
		{"loss reduction", reductionOf(old), reductionOf(cur)},
		{"inner solver", old.Inner, cur.Inner},
		{"inner solver settings", old.InnerSettings, checkpoint.Recorded(old.InnerSettings, cur.InnerSettings)},
		{"validation functions", old.NVal, cur.NVal},
		{"penalty weight scales", fmt.Sprint(old.WeightScales), fmt.Sprint(cur.WeightScales)},
		{"validation lookahead", old.ValLookahead, cur.ValLookahead},
		{"stop on validation", old.StopOnValidation, cur.StopOnValidation},
		{"validation patience", old.ValPatience, cur.ValPatience},
		{"precision", cpuPrecision(old, cur), cpuPrecision(cur, old)},
	} {
		if f.old != f.cur {
			return fmt.Errorf("the checkpoint was trained with %s %v, this run asks for %v", f.name, f.old, f.cur)
		}
	}
	return nil
}

// orDefaultVersions is a checkpoint's recorded parametrization versions,
// or version 1 of each current family for checkpoints that recorded none.
func orDefaultVersions(old, cur map[string]int) map[string]int {
	if old != nil {
		return old
	}
	d := map[string]int{}
	for n := range cur {
		d[n] = 1
	}
	return d
}

// cpuPrecision is the precision of run m that a resume compares with that
// of run other: m's when both ran on the CPU; "" when either ran on a
// device, which computes in its own (a run resumed from or onto a device
// records the target of its steps instead: StepInfo.Device).
func cpuPrecision(m, other *checkpoint.Manifest) steploss.Precision {
	if m.Device != "" || other.Device != "" {
		return ""
	}
	return orFloat64(m.Precision)
}

// execLabel names the target a manifest's run trained on as --device does
// (cpu, cpu32, or the device's kind: cuda, and host or host32 for runs of
// the array operations on the CPU, which no longer run).
func execLabel(m *checkpoint.Manifest) string {
	return execution.Label(m.Device, m.Precision)
}

// orFloat64 returns p, or Float64 for "" (checkpoints that recorded no
// precision were trained in float64).
func orFloat64(p steploss.Precision) steploss.Precision {
	if p == "" {
		return steploss.Float64
	}
	return p
}

// blockPreconditioner combines the parametrizations' preconditioners for the
// θ block (curvature from the gradients g) and the φ block (from the momentum
// directions p), g and p being those of this process's functions of world
// w; nil if neither has one.
func blockPreconditioner(m models.Method, loss *steploss.StepLoss, g, p []float64, w world, o *problem.Objective, shiftG, shiftH float64) (func(dst, src []float64), error) {
	nTheta := loss.ThetaLen()
	ident := func(dst, src []float64) { copy(dst, src) }
	block := func(b int, par models.Parametrization, v []float64, shift float64) (func(dst, src []float64), bool, error) {
		if f, ok := loss.Precondition(b, shift); ok {
			return f, true, nil
		}
		if par == nil {
			return ident, false, nil
		}
		f, ok, err := w.precondition(par, v, o.H, o.W, shift)
		if !ok || err != nil {
			return ident, false, err
		}
		return f, true, nil
	}
	pg, okG, err := block(0, m.G, g, shiftG)
	if err != nil {
		return nil, err
	}
	ph, okH, err := block(1, m.H, p, shiftH)
	if err != nil {
		return nil, err
	}
	if !okG && !okH {
		return nil, nil
	}
	return func(dst, src []float64) {
		pg(dst[:nTheta], src[:nTheta])
		if len(src) > nTheta {
			ph(dst[nTheta:], src[nTheta:])
		}
	}, nil
}

// cachedPerBlock returns f, computed at most once for each block 0 and 1.
func cachedPerBlock(f func(b int) (float64, error)) func(b int) (float64, error) {
	var val [2]float64
	var done [2]bool
	return func(b int) (float64, error) {
		if !done[b] {
			v, err := f(b)
			if err != nil {
				return 0, err
			}
			val[b], done[b] = v, true
		}
		return val[b], nil
	}
}

// candidate is one solve of a greedy step.
type candidate struct {
	info       checkpoint.StepInfo
	u          []float64
	theta, phi []float64
}

// solveStep minimises the step loss with weights λ, μ from the reference,
// keeping the reference when the solver did no better (BGD), and returns the
// solution with its full parameters.
func solveStep(loss *steploss.StepLoss, sp *Subproblem, inner InnerSolver, curvature, paperCurvature func(int) (float64, error),
	cfg Config, w world, o *problem.Objective, grad, p []float64, lam, mu float64, start []float64) (*candidate, error) {
	if err := loss.SetWeights(lam, mu); err != nil {
		return nil, err
	}
	weighted := func(c func(int) (float64, error)) func(int) (float64, error) {
		return func(b int) (float64, error) {
			v, err := c(b)
			if b == 0 {
				return lam + o.L*v, err
			}
			return mu + o.L*v, err
		}
	}
	sp.Lipschitz = weighted(curvature)
	sp.PaperLipschitz = weighted(paperCurvature)
	sp.Precond = nil
	if !cfg.Solver.NoPrecond && preconditioned(inner) {
		var err error
		if sp.Precond, err = blockPreconditioner(cfg.Method.Param, loss, grad, p, w, o, lam/o.L, mu/o.L); err != nil {
			return nil, err
		}
	}
	u0 := loss.Reference()
	ref, err := sp.Loss.Eval(u0, nil)
	if err != nil {
		return nil, err
	}
	from := u0
	if start != nil {
		from = append([]float64(nil), start...)
	}
	u, err := inner.Minimize(sp, from)
	if err != nil {
		return nil, fmt.Errorf("inner solver %s: %w", inner.Name(), err)
	}
	v, err := sp.Loss.Eval(u, nil)
	if err != nil {
		return nil, err
	}
	c := &candidate{info: checkpoint.StepInfo{RefLoss: ref, Lambda: lam, Mu: mu}, u: u}
	if math.IsNaN(v) || v > ref {
		c.u, v, c.info.FellBack = u0, ref, true
	}
	c.info.Loss = v
	c.info.BGDMargin = ref - v
	if c.theta, c.phi, err = loss.Params(c.u); err != nil {
		return nil, err
	}
	return c, nil
}

// InnerProgress is where the inner solver of a step is.
type InnerProgress struct {
	Step        int           // the step t
	Evaluations int           // of the step loss so far in this step
	Budget      int           // the inner solvers' budget of evaluations (0: unknown)
	Loss        float64       // the last value of the step loss
	Elapsed     time.Duration // since the step's solve began
}

// innerBudget is the number of step-loss evaluations the inner solver may
// spend on one solve (0 when it has no fixed budget).
func innerBudget(inner InnerSolver, loss *steploss.StepLoss) int {
	switch s := inner.(type) {
	case NAG:
		iters, rounds := s.Budget(loss.ParamLens())
		n := 0
		for _, it := range iters {
			n += it
		}
		return n * rounds
	case LBFGS:
		_, maxEval, _ := s.settings()
		return maxEval
	}
	return 0
}

// reductionOf is the loss reduction a checkpoint's steps were trained under,
// or the mean where its penalties make the two the same: weights that are
// zero at every step or relative (the reduction scales neither), as under
// --protocol paper with λ = μ = 0. So a run may resume under either then.
func reductionOf(m *checkpoint.Manifest) string {
	if !scaledByReduction(m.Lambda) && !scaledByReduction(m.Mu) {
		return string(ReduceMean)
	}
	return orMean(m.LossReduction)
}

// scaledByReduction reports whether the loss reduction changes a penalty
// weight recorded as s: an absolute schedule with a nonzero value. A record
// that does not parse counts as scaled, so its reduction is compared.
func scaledByReduction(s string) bool {
	sch, err := ParseSchedule(s)
	if err != nil {
		return true
	}
	if sch.Relative {
		return false
	}
	for _, v := range sch.Values {
		if v != 0 {
			return true
		}
	}
	return false
}

// orMean is a recorded loss reduction, the mean where none was recorded.
func orMean(r string) string {
	if r == "" {
		return string(ReduceMean)
	}
	return r
}

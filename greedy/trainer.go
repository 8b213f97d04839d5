package greedy

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// trainer holds one run of Algorithm 1: its settings checked and defaulted
// (newTrainer), its state (the training iterates, and the validation
// functions' in val) and its recorders. Train drives it step by step.
type trainer struct {
	// o holds this process's training functions: all of them, or with
	// Method.Divide its block (w says which); every per-function quantity
	// below is of these functions only.
	o     *problem.Objective
	w     world
	cfg   Config
	inner InnerSolver
	tau   float64
	// scales are the candidate multipliers of (λt, μt).
	scales []float64
	val    *validator // nil without validation functions
	// stepDevice is the target recorded on every step this run trains
	// (StepInfo.Device: cpu, cpu32, cuda): set when it resumes a run
	// trained on another.
	stepDevice string
	// loss is the step loss of this process's functions, which the inner
	// solver evaluates (Subproblem.Loss): with Method.Divide a block of
	// it, joined to the other processes' by the link.
	loss *steploss.StepLoss
	// family is the training functions' operators without their data: the
	// certificate's.
	family *problem.Objective
	sp     *Subproblem
	man    *checkpoint.Manifest
	res    *Result
	// The run's stop rule, store and recorder (Config.Stop, Store, Record).
	stop  *stopRule
	store *store
	rec   recorder

	start    int // the first step this run solves (after a resume)
	x, xprev []float64
	// Scratch of every step: f_k and ∇f_k at x, the momentum x − x⁻.
	vals, grad, p []float64
	ws            *problem.Workspace
	// prec is the run's precision; eo evaluates f and ∇f at the training
	// iterates in it (o itself for float64), or on the step loss's device
	// (onDevice).
	prec     steploss.Precision
	eo       *problem.Objective
	onDevice bool
	// gradAtX says that vals and grad hold f and ∇f at x already: on a
	// device, take evaluates both at x⁺ at once.
	gradAtX bool
	// warm is where the next inner solve starts with Solver.WarmStart: the
	// last step's (θ, φ) concatenated (nil before the first step).
	warm []float64
	// With Stop.RepeatCheck: the last step's full parameters θ‖φ, and the
	// checker of the training functions (when the run has no validation
	// functions).
	last      []float64
	repeatVal *validator
}

// newTrainer checks the settings, fills in their defaults and builds the
// step loss, the validator and the run's manifest.
func newTrainer(o *problem.Objective, cfg Config) (*trainer, error) {
	if err := cfg.validate(o); err != nil {
		return nil, err
	}
	// Operator-aware terms (models.NormalPoly) take the functions' operator.
	cfg.Method.Param = cfg.Method.Param.ForOperator(o.A)
	tr := &trainer{o: o, cfg: cfg, inner: cfg.Solver.Inner, tau: cfg.Method.Tau, scales: cfg.Solver.WeightScales, family: family(o)}
	if tr.inner == nil {
		tr.inner = LBFGS{}
	}
	if tr.tau == 0 {
		tr.tau = 1 / o.L
	}
	if len(tr.scales) == 0 {
		tr.scales = []float64{1}
	}
	var err error
	if tr.w, err = newWorld(o, cfg.Method.Divide); err != nil {
		return nil, err
	}
	if d := cfg.Method.Divide; d != nil && d.Total > 0 && d.Family != nil {
		tr.family = family(d.Family) // every function's operators, not the block's
	}
	if tr.w.divided() && !tr.w.first() && cfg.Store.Dir != "" && !cfg.Store.ReadOnly {
		return nil, fieldError("Store.Dir", errors.New("with Method.Divide only the first block's process writes the checkpoint: set Store.ReadOnly (to resume) or no Dir on the others"))
	}
	if v := cfg.Problem.Validation; v != nil || cfg.Method.Divide.dividesValidation() {
		vw, err := newValWorld(v, cfg.Method.Divide)
		if err != nil {
			return nil, err
		}
		if tr.val, err = newValidator(cfg.Method.Param, v, vw, tr.tau, cfg.Solver.ValLookahead); err != nil {
			return nil, err
		}
	}
	tr.prec = cfg.Target.Prec()
	if tr.w.divided() && cfg.Method.Divide.Total == 0 {
		if tr.o, err = o.Block(tr.w.lo, tr.w.hi); err != nil {
			tr.close()
			return nil, fmt.Errorf("greedy: dividing the training: %w", err)
		}
	}
	if tr.loss, err = tr.newLoss(tr.o); err != nil {
		tr.close()
		return nil, err
	}
	if tr.man, err = tr.manifest(o); err != nil {
		tr.close()
		return nil, err
	}
	if tr.eo, err = tr.o.InPrecision(tr.prec); err != nil {
		tr.close()
		return nil, fmt.Errorf("greedy: training in %s: %w", tr.prec, err)
	}
	if err := tr.evaluateOnDevice(); err != nil {
		tr.close()
		return nil, err
	}
	tr.sp = &Subproblem{Loss: tr.loss, Quadratic: o.LeastSquares()}
	tr.res = &Result{Manifest: tr.man}
	tr.x = tr.x0()
	tr.xprev = append([]float64(nil), tr.x...)
	tr.vals = make([]float64, tr.o.N)
	tr.grad = make([]float64, len(tr.x))
	tr.p = make([]float64, len(tr.x))
	tr.ws = &problem.Workspace{}
	tr.stop = newStopRule(cfg.Stop)
	tr.store = &store{Store: cfg.Store, man: tr.man}
	tr.rec = recorder{cfg.Record}
	return tr, nil
}

// manifest describes the run: settings, versions and parameter sizes.
func (tr *trainer) manifest(o *problem.Objective) (*checkpoint.Manifest, error) {
	cfg := tr.cfg
	obs, err := tr.w.sumFloats(tr.o.Y) // every function's
	if err != nil {
		return nil, err
	}
	nTheta, nPhi := tr.loss.ParamLens()
	// A checkpoint must name registered parametrizations, so that Load can
	// parse them back; a run kept in memory may use any type.
	pversions, err := models.Versions(cfg.Method.Param)
	if err != nil && cfg.Store.Dir != "" {
		return nil, fmt.Errorf("greedy: checkpoint %s: %w", cfg.Store.Dir, err)
	}
	man := &checkpoint.Manifest{
		Format: checkpoint.FormatVersion, Problem: cfg.Problem.Name, Operator: tr.family.A.String(), Conventions: o.Conventions, Regular: tr.family.Reg.String(),
		Alpha: o.Alpha, H: o.H, W: o.W, NTrain: tr.w.n, DataHash: cfg.Problem.DataHash, ObservationsHash: obs, Noise: o.Noise,
		Seed: cfg.Problem.Seed, Method: cfg.Method.Param.Name(), ParamVersions: pversions, Tau: tr.tau, L: o.L, Lambda: cfg.Method.Lambda.String(), Mu: cfg.Method.Mu.String(),
		Inner: tr.inner.Name(), InnerSettings: innerSettings(tr.inner, nTheta, nPhi, cfg), Protocol: cfg.Store.Protocol, TolRel: cfg.Stop.TolRel, TolAbs: cfg.Stop.TolAbs, MaxSteps: cfg.Stop.MaxSteps,
		Versions: checkpoint.Versions(), ThetaLen: nTheta, PhiLen: nPhi, Provenance: cfg.Problem.Provenance,
	}
	if tr.prec == steploss.Float32 {
		man.Precision = steploss.Float32
	}
	if cfg.Method.LossReduction == ReduceSum {
		man.LossReduction = string(ReduceSum)
	}
	man.Device = cfg.Target.Kind()
	man.RepeatCheck = cfg.Stop.RepeatCheck
	if tr.val != nil {
		man.NVal = tr.val.w.n
		man.WeightScales = tr.scales
		man.ValLookahead = tr.val.lookahead
		man.StopOnValidation = cfg.Stop.OnValidation
		man.ValPatience = cfg.Stop.ValPatience
	}
	return man, nil
}

func (tr *trainer) close() {
	if tr.val != nil {
		tr.val.close()
	}
	if tr.repeatVal != nil {
		tr.repeatVal.close()
	}
	if tr.loss != nil {
		tr.loss.Close()
	}
}

// evaluateOnDevice makes f and ∇f at the training iterates come from the
// step loss's device where it has one (steploss.StepLoss.DeviceObjective),
// so that a step's host work does not grow with the functions' size.
func (tr *trainer) evaluateOnDevice() error {
	be, err := tr.loss.DeviceObjective()
	if err != nil || be == nil {
		return err
	}
	tr.eo, tr.onDevice = tr.o.OnEvaluator(be), true
	return nil
}

// gradients computes f_k(x_k) into vals (may be nil) and ∇f_k(x_k) into grad
// in the run's precision, or on the device.
func (tr *trainer) gradients(vals, grad, x []float64) error {
	return tr.eo.Eval(vals, grad, x, tr.ws)
}

// open prepares the store: with Resume it takes over the checkpoint's
// record and restores the iterates of its last step (a finished run is
// returned as done); otherwise it creates the checkpoint. Then it
// initialises the recorder.
func (tr *trainer) open() (done *Result, err error) {
	cfg := tr.cfg
	if !cfg.Store.Resume {
		if err := tr.store.create(); err != nil {
			return nil, err
		}
		return nil, tr.rec.init(tr.man)
	}
	old, stepTarget, err := tr.store.resume(cfg.Problem.Provenance)
	if err != nil {
		return nil, err
	}
	tr.start, tr.stepDevice = len(old.Steps), stepTarget
	if tr.start > 0 {
		if err := tr.restore(old); err != nil {
			return nil, tr.store.refuse(err)
		}
	}
	// A run stopped by the tolerance goes on when a repeat check is asked
	// for that it did not pass.
	recheck := cfg.Stop.RepeatCheck > 0 && !passedRepeat(old, cfg.Stop.RepeatCheck) && strings.Contains(old.StopCause, "tolerance reached")
	if old.Finished && !recheck && (old.StopCause != "step cap reached" || cfg.Stop.MaxSteps <= tr.start) {
		return &Result{Steps: old.Steps, X: tr.x, StopCause: old.StopCause, Manifest: old}, nil
	}
	return nil, tr.rec.init(tr.man)
}

// restore reads the iterates of a resumed run's last step (and of its
// validation functions), and that step's parameters where the warm start
// or the repeat check needs them.
func (tr *trainer) restore(old *checkpoint.Manifest) error {
	cfg := tr.cfg
	// Every training function's iterates are in the checkpoint; this
	// process keeps its own.
	states := []*[]float64{&tr.x, &tr.xprev}
	if tr.val != nil {
		states = append(states, &tr.val.x, &tr.val.prev)
	}
	for i, dst := range states {
		w := tr.w
		if i >= 2 {
			w = tr.val.w
		}
		v, err := tr.readState(i, w.n*tr.o.ImageLen(), w.part)
		if err != nil {
			return err
		}
		*dst = v
	}
	if !cfg.Solver.WarmStart && cfg.Stop.RepeatCheck == 0 {
		return nil
	}
	theta, phi, err := checkpoint.LoadParams(cfg.Store.Dir, old, tr.start-1)
	if err != nil {
		return err
	}
	tr.last = append(append([]float64(nil), theta...), phi...)
	if cfg.Solver.WarmStart {
		tr.warm = slices.Clone(tr.last)
	}
	return nil
}

// norms returns ‖g_k‖ of every training function, g being the gradients
// of this process's.
func (tr *trainer) norms(g []float64) ([]float64, error) { return tr.w.norms(g) }

// blockNorms returns the norms of the n equal blocks of g.
func blockNorms(g []float64, n int) []float64 {
	hw := len(g) / n
	out := make([]float64, n)
	for k := range out {
		gk := g[k*hw : (k+1)*hw]
		out[k] = math.Sqrt(kernels.Dot(gk, gk))
	}
	return out
}

// x0 returns a copy of the starting points in the run's precision.
func (tr *trainer) x0() []float64 {
	x := append([]float64(nil), tr.o.X0...)
	if tr.prec == steploss.Float32 {
		for i, v := range x {
			x[i] = float64(float32(v))
		}
	}
	return x
}

// measureStart records ‖∇f_k(x_k^0)‖ and the mean objective at the starting
// points, against which the tolerance and divergence are measured.
func (tr *trainer) measureStart() error {
	o := tr.o
	if err := tr.gradients(nil, tr.grad, tr.x0()); err != nil {
		return err
	}
	r := tr.stop
	var err error
	if r.norm0, err = tr.norms(tr.grad); err != nil {
		return err
	}
	if r.f0, err = tr.meanF(o.X0); err != nil {
		return err
	}
	if r.OnValidation {
		v := tr.val
		if r.valNorm0, err = v.norms(v.start()); err != nil {
			return err
		}
		if r.valBest, err = v.meanAt(v.start()); err != nil {
			return err
		}
		// A resumed run replays the patience rule over its steps.
		for _, st := range tr.man.Steps {
			r.valStalled(st.ValF)
		}
	}
	return nil
}

// tolerance checks the iterates before step t: the training gradients
// finite, and the tolerance (of the validation functions with
// Stop.OnValidation; with a repeat check only at a step that passes it). It
// returns the largest training and validation gradient norms, and a stop
// cause when the run ends here.
func (tr *trainer) tolerance(t int) (maxNorm, valMax float64, stop string, err error) {
	gn, err := tr.norms(tr.grad)
	if err != nil {
		return 0, 0, "", err
	}
	for _, v := range gn {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, 0, "", fmt.Errorf("greedy: step %d: a training gradient is not finite: %w; use a smaller --tau or positive --lambda", t, ErrDiverged)
		}
		maxNorm = math.Max(maxNorm, v)
	}
	r := tr.stop
	if !r.OnValidation {
		if r.converged(gn, r.norm0) {
			stop, err = tr.repeatStop(t, "tolerance reached")
		}
		return maxNorm, 0, stop, err
	}
	if r.converged(gn, r.norm0) && tr.man.TrainTolSteps == 0 {
		tr.man.TrainTolSteps = t
	}
	vn, err := tr.val.norms(tr.val.x)
	if err != nil {
		return 0, 0, "", err
	}
	for _, x := range vn {
		valMax = math.Max(valMax, x)
	}
	if r.converged(vn, r.valNorm0) {
		stop, err = tr.repeatStop(t, "validation tolerance reached")
	}
	return maxNorm, valMax, stop, err
}

// step solves greedy step t from the current iterates and advances them:
// the weights λt, μt (scaled by the data curvature when relative), one
// solve per candidate weight scale (the best on the validation functions
// kept), the new iterates and their mean objective. It returns a stop
// cause, without solving, when the tolerance holds at the current iterates
// (of the validation functions with Stop.OnValidation).
func (tr *trainer) step(t int) (s *Step, stop string, err error) {
	loss := tr.loss
	began := time.Now()
	if !tr.gradAtX {
		if err := tr.gradients(tr.vals, tr.grad, tr.x); err != nil {
			return nil, "", err
		}
	}
	tr.gradAtX = false
	maxNorm, valMax, stop, err := tr.tolerance(t)
	if err != nil || stop != "" {
		return nil, stop, err
	}
	grad, p := tr.grad, tr.p
	for i := range p {
		p[i] = tr.x[i] - tr.xprev[i]
	}
	// The operands first: a reduced block's curvature comes from them.
	// The weights are set below, once the relative ones are scaled.
	if err := loss.SetStep(tr.x, grad, p, 0, 0); err != nil {
		return nil, "", err
	}
	curvature, paperCurv := tr.curvatures(grad, p)
	lam, mu, err := tr.weights(t, curvature)
	if err != nil {
		return nil, "", err
	}
	if tr.val != nil {
		if err := tr.val.begin(); err != nil {
			return nil, "", err
		}
	}
	evalsBefore := tr.loss.Evaluations()
	defer tr.observeInner(t, evalsBefore)()
	best, err := tr.bestCandidate(t, curvature, paperCurv, grad, p, lam, mu)
	if err != nil {
		return nil, "", err
	}
	info := best.info
	info.MaxGradNorm = maxNorm
	info.ValMaxGradNorm = valMax
	if info.MeanF, err = tr.take(t, best); err != nil {
		return nil, "", err
	}
	info.Evaluations = tr.loss.Evaluations() - evalsBefore
	info.Seconds = time.Since(began).Seconds()
	s = &Step{Info: info, Theta: best.theta, Phi: best.phi, X: tr.x, XPrev: tr.xprev}
	if tr.val != nil {
		s.XVal, s.XValPrev = tr.val.x, tr.val.prev
	}
	return s, "", nil
}

// take makes the chosen candidate step t's: its weights go to the step
// losses, the validation functions and the warm start follow it, and the
// iterates advance to x⁺. It returns their mean objective, which the stop
// rule checks for divergence.
func (tr *trainer) take(t int, best *candidate) (float64, error) {
	if err := tr.loss.SetWeights(best.info.Lambda, best.info.Mu); err != nil {
		return 0, err
	}
	if tr.val != nil {
		tr.val.advance()
	}
	if tr.cfg.Solver.WarmStart {
		tr.warm = append(append(tr.warm[:0], best.theta...), best.phi...)
	}
	next := make([]float64, len(tr.x))
	if err := tr.loss.Next(next, best.u); err != nil {
		return 0, err
	}
	tr.xprev, tr.x = tr.x, next
	mf, err := tr.meanAtNext()
	if err != nil {
		return 0, err
	}
	return mf, tr.stop.diverged(t, mf)
}

// meanAtNext returns the mean objective at the new iterates x. On a device
// one evaluation there gives f and ∇f at x: the mean, and the gradients
// the next step starts from (gradAtX); on the CPU the mean is meanF's.
func (tr *trainer) meanAtNext() (float64, error) {
	if !tr.onDevice {
		return tr.meanF(tr.x)
	}
	if err := tr.gradients(tr.vals, tr.grad, tr.x); err != nil {
		return 0, err
	}
	tr.gradAtX = true
	return tr.w.mean(tr.vals)
}

// observeInner reports the inner solver's evaluations of step t to
// Record.InnerProgress (if set) and returns what ends it.
func (tr *trainer) observeInner(t, evalsBefore int) (stop func()) {
	inner, report := tr.sp.Loss, tr.rec.InnerProgress
	if report == nil {
		return func() {}
	}
	budget := innerBudget(tr.inner, tr.loss) * len(tr.scales)
	began := time.Now()
	inner.Observe(func(_ int, v float64) {
		report(InnerProgress{Step: t, Evaluations: tr.loss.Evaluations() - evalsBefore, Budget: budget, Loss: v, Elapsed: time.Since(began)})
	})
	return func() { inner.Observe(nil) }
}

// bestCandidate solves step t once per candidate weight scale of (λ, μ)
// and returns the solution kept: with validation functions the one with the
// lowest validation objective, else the only one.
func (tr *trainer) bestCandidate(t int, curvature, paperCurv func(int) (float64, error), grad, p []float64, lam, mu float64) (*candidate, error) {
	var best *candidate
	for ci, sc := range tr.scales {
		c, err := solveStep(tr.loss, tr.sp, tr.inner, curvature, paperCurv, tr.cfg, tr.w, tr.o, grad, p, sc*lam, sc*mu, tr.warm)
		if err != nil {
			return nil, fmt.Errorf("greedy: step %d: %w", t, err)
		}
		c.info.T = t
		if tr.val != nil {
			c.info.WeightScale = sc
			if c.info.ValScore, c.info.ValF, err = tr.val.score(c.theta, c.phi); err != nil {
				return nil, err
			}
			if ci > 0 && !(c.info.ValScore < best.info.ValScore) {
				continue
			}
			tr.val.keep()
		}
		best = c
	}
	return best, nil
}

// curvatures returns the data curvatures of the two blocks, each computed
// at most once a step (for relative weights and for NAG's step): the exact
// one (a reduced block's comes from its operands) and the paper's bound
// (1/N) Σk ‖Bk‖² (NAG with StepPaper).
func (tr *trainer) curvatures(grad, p []float64) (exact, paper func(int) (float64, error)) {
	o, m, w := tr.o, tr.cfg.Method.Param, tr.w
	onBlock := func(b int) (models.Parametrization, []float64) {
		if b == 1 {
			return m.H, p
		}
		return m.G, grad
	}
	closed := false
	if n, ok := tr.inner.(NAG); ok && n.Step == StepClosed {
		closed = true
	}
	exact = cachedPerBlock(func(b int) (float64, error) {
		if c, ok := tr.loss.Curvature(b); ok {
			return c, nil
		}
		if closed {
			if c, ok, err := tr.loss.SpectralCurvature(b); ok || err != nil {
				return c, err
			}
		}
		par, v := onBlock(b)
		if w.divided() {
			return w.curvature(par, v, o.H, o.W)
		}
		return exactCurvature(tr.loss, b, par, v, o.N, o.H, o.W)
	})
	paper = cachedPerBlock(func(b int) (float64, error) {
		par, v := onBlock(b)
		return w.paperCurvature(par, v, o.H, o.W)
	})
	return exact, paper
}

// weights returns (λt, μt): the schedules' values, scaled by L times the
// block's data curvature for relative schedules; μt = 0 without H.
func (tr *trainer) weights(t int, curvature func(int) (float64, error)) (lam, mu float64, err error) {
	cfg, o := tr.cfg, tr.o
	lam, mu = cfg.Method.Lambda.At(t), cfg.Method.Mu.At(t)
	if cfg.Method.LossReduction == ReduceSum {
		// Σk fk + λ/2‖·‖² has the minimiser of (1/N) Σk fk + λ/(2N)‖·‖².
		if !cfg.Method.Lambda.Relative {
			lam /= float64(tr.w.n)
		}
		if !cfg.Method.Mu.Relative {
			mu /= float64(tr.w.n)
		}
	}
	if cfg.Method.Lambda.Relative && lam > 0 {
		c, err := curvature(0)
		if err != nil {
			return 0, 0, fmt.Errorf("greedy: step %d: relative λ: %w", t, err)
		}
		lam *= o.L * c
	}
	if cfg.Method.Mu.Relative && mu > 0 && cfg.Method.Param.H != nil {
		c, err := curvature(1)
		if err != nil {
			return 0, 0, fmt.Errorf("greedy: step %d: relative μ: %w", t, err)
		}
		mu *= o.L * c
	}
	if cfg.Method.Param.H == nil {
		mu = 0
	}
	return lam, mu, nil
}

// record appends a completed step to the manifest and the result, saves it
// to the store and then reports it to the recorder (so that Progress
// reports a committed step).
func (tr *trainer) record(s *Step) error {
	if tr.cfg.Store.KeepParams {
		tr.res.Theta = append(tr.res.Theta, append([]float64(nil), s.Theta...))
		tr.res.Phi = append(tr.res.Phi, append([]float64(nil), s.Phi...))
	}
	s.Info.Device = tr.stepDevice
	tr.man.Steps = append(tr.man.Steps, s.Info)
	if tr.cfg.Stop.RepeatCheck > 0 {
		tr.last = append(append(tr.last[:0], s.Theta...), s.Phi...)
	}
	if err := tr.saveStep(s); err != nil {
		return err
	}
	return tr.rec.step(tr.man, s)
}

// finish ends the run with its stop cause: the store commits it, and the
// result holds the steps and the last iterates.
func (tr *trainer) finish(stop string) (*Result, error) {
	if err := tr.store.finish(stop); err != nil {
		return nil, err
	}
	tr.res.Steps = tr.man.Steps
	tr.res.X = tr.x
	tr.res.StopCause = stop
	return tr.res, nil
}

// isReduced reports whether the step loss of m works in a reduced subspace
// (a parametrization implementing models.Reducer).
func isReduced(m models.Method) bool {
	for _, p := range []models.Parametrization{m.G, m.H} {
		if _, ok := p.(models.Reducer); ok && p != nil {
			return true
		}
	}
	return false
}

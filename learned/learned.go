package learned

import (
	"fmt"
	"math"
	"runtime"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/ondevice"
	"github.com/greedyl2o/greedyl2o/problem"
)

// Optimizer is Algorithm 2: the learned optimizer that applies (θ0, φ0), …,
// (θT, φT) and then keeps (θT, φT) for every later iteration. It implements
// baselines.Method, so the evaluation harness runs it like any other method.
type Optimizer struct {
	Label  string
	Method models.Method
	H, W   int
	// Steps is the number of trained steps T+1.
	Steps int
	// Problem and Conventions say where the parameters were trained
	// (problem.Objective.Problem and .Conventions); when set, Start refuses
	// functions of another problem or under other conventions.
	Problem     string
	Conventions problem.Conventions
	// Safeguard, when τ = Safeguard > 0, checks every function's learned
	// step x_L by the rule SafeguardRule and replaces a rejected one by the
	// gradient step x_g = x − τ∇f(x) from the previous iterate, resetting
	// that function's momentum. The step used is min(Safeguard, 1/L) for the
	// L of the functions it runs on. Off (0) is Algorithm 2 as published.
	//
	// The rule SafeguardDecrease (the default) rejects a step that raises
	// f: with τ ≤ 1/L the gradient step decreases f, so the method is
	// monotone. SafeguardBGD rejects a step unless f(x_L) ≤ f(x_g): then
	// every iteration decreases f at least by (τ/2)‖∇f(x)‖², and ∇f(x^t) → 0
	// on every L-smooth f bounded below, whatever the learned parameters do
	// (the proof is in the package doc); it costs one more f per iteration.
	Safeguard float64
	// SafeguardRule is SafeguardDecrease ("" means it) or SafeguardBGD.
	SafeguardRule string
	// Target is where the iterations compute. With a Device the iterates,
	// ∇f and the update stay on the device, each iteration reads back only
	// Σ_k f_k and every ‖∇f_k‖² at its new iterates (Evaluated, one copy),
	// and X copies the iterates when asked: every parametrization (PF and user ones by
	// their graphs on the host: ondevice.NewDeviceTerm) on objectives with
	// a device form (ondevice.CheckObjective); with Safeguard, the
	// iterations and the safeguard's tests run on the host with f and ∇f
	// from the device. On the CPU (the zero value) the iterations take f
	// and ∇f from the objective Start receives, in its precision; a float32
	// Target evaluates them in float32 (problem.Objective.InPrecision).
	Target execution.Target
	// params returns the parameters of step t < Steps.
	params func(t int) (theta, phi []float64, err error)
}

// New returns the learned optimizer for parameters held in memory.
func New(label string, m models.Method, h, w int, theta, phi [][]float64) (*Optimizer, error) {
	if len(theta) == 0 {
		return nil, fmt.Errorf("learned optimizer %s has no trained steps", label)
	}
	return &Optimizer{Label: label, Method: m, H: h, W: w, Steps: len(theta), params: func(t int) ([]float64, []float64, error) {
		var p []float64
		if t < len(phi) {
			p = phi[t]
		}
		return theta[t], p, nil
	}}, nil
}

// Load opens the learned optimizer stored in a greedy checkpoint directory.
// Parameters are read into memory when they total at most 512 MiB, and from
// disk step by step otherwise.
func Load(dir string) (*Optimizer, *checkpoint.Manifest, error) {
	man, err := checkpoint.ReadManifest(dir)
	if err != nil {
		return nil, nil, err
	}
	if len(man.Steps) == 0 {
		return nil, nil, fmt.Errorf("checkpoint %s has no completed steps yet", dir)
	}
	m, err := models.ParseMethod(man.Method)
	if err != nil {
		return nil, nil, fmt.Errorf("checkpoint %s: %w%s", dir, err, registrationHint(man))
	}
	if err := models.CheckVersions(m, man.ParamVersions); err != nil {
		return nil, nil, fmt.Errorf("checkpoint %s: %w", dir, err)
	}
	if err := checkParamLens(m, man); err != nil {
		return nil, nil, fmt.Errorf("checkpoint %s: %w", dir, err)
	}
	l := &Optimizer{Label: "greedy " + man.Method, Method: m, H: man.H, W: man.W, Steps: len(man.Steps),
		Problem: man.Problem, Conventions: man.Conventions}
	total := int64(len(man.Steps)) * int64(man.ThetaLen+man.PhiLen) * 8
	if total <= 512<<20 {
		thetas, phis := make([][]float64, l.Steps), make([][]float64, l.Steps)
		for t := range thetas {
			if thetas[t], phis[t], err = checkpoint.LoadParams(dir, man, t); err != nil {
				return nil, nil, err
			}
		}
		l.params = func(t int) ([]float64, []float64, error) { return thetas[t], phis[t], nil }
	} else {
		l.params = func(t int) ([]float64, []float64, error) { return checkpoint.LoadParams(dir, man, t) }
	}
	return l, man, nil
}

// registrationHint says, for a checkpoint whose method this binary cannot
// parse, which program trained it (when its provenance records one that
// uses greedyl2o as a library) and how to get a binary that knows the
// family.
func registrationHint(man *checkpoint.Manifest) string {
	hint := "; a family registered by another program: run that program, or build one that registers the family (docs/extending.md, \"Your own l2o\")"
	if man.Provenance != nil && man.Provenance.Build.Program != "" {
		b := man.Provenance.Build
		hint = fmt.Sprintf("; it was trained by %s (built with greedyl2o %s), which registers it: run that program, or build one that registers the family (docs/extending.md, \"Your own l2o\")", b.Program, b.Library)
	}
	return hint
}

// checkParamLens checks that the manifest's parameter lengths are what its
// method takes on its image size: an edited or mixed manifest would
// otherwise run θ as parameters of another shape.
func checkParamLens(m models.Method, man *checkpoint.Manifest) error {
	if man.H < 1 || man.W < 1 {
		return fmt.Errorf("image size %d×%d must be positive", man.H, man.W)
	}
	want := func(p models.Parametrization) int {
		if p == nil {
			return 0
		}
		return p.ParamShape(man.H, man.W).TotalSize()
	}
	if g, h := want(m.G), want(m.H); man.ThetaLen != g || man.PhiLen != h {
		return fmt.Errorf("%s on %d×%d images takes %d values of θ and %d of φ, the manifest says %d and %d: the manifest does not match its parameters",
			m.Name(), man.H, man.W, g, h, man.ThetaLen, man.PhiLen)
	}
	return nil
}

// Resized returns a copy of l that runs on h×w images with the same
// parameters, for parametrizations whose parameters do not depend on the
// image size (models.SizeFree: PS, PC-k and their momentum forms). It is
// an out-of-distribution use (l2o eval --shift size=…): nothing was
// learned at that size. Other parametrizations are refused.
func (l *Optimizer) Resized(h, w int) (*Optimizer, error) {
	if h < 1 || w < 1 {
		return nil, fmt.Errorf("learned optimizer %s: image size %d×%d must be positive", l.Label, h, w)
	}
	for _, p := range []models.Parametrization{l.Method.G, l.Method.H} {
		if !models.SizeFree(p) {
			return nil, fmt.Errorf("learned optimizer %s: %s's parameters are bound to the %d×%d images it was trained on; only size-free parametrizations (ps, pc-k) run at another size",
				l.Label, p.Name(), l.H, l.W)
		}
	}
	c := *l
	c.H, c.W = h, w
	return &c, nil
}

// Params returns the parameters used at iteration t (those of step min(t, T)).
func (l *Optimizer) Params(t int) (theta, phi []float64, err error) {
	return l.params(min(t, l.Steps-1))
}

// Name implements baselines.Method.
func (l *Optimizer) Name() string { return l.Label }

// Start implements baselines.Method.
func (l *Optimizer) Start(o *problem.Objective) (baselines.Iterator, error) {
	if o.H != l.H || o.W != l.W {
		return nil, fmt.Errorf("learned optimizer %s was trained on %d×%d images, the functions have %d×%d", l.Label, l.H, l.W, o.H, o.W)
	}
	if l.Problem != "" || l.Conventions != nil {
		if err := problem.CheckTrainedFor(l.Problem, l.Conventions, o); err != nil {
			return nil, fmt.Errorf("learned optimizer %s: %w", l.Label, err)
		}
	}
	dev := l.Target.Device
	o, err := l.Target.Objective(o)
	if err != nil {
		return nil, fmt.Errorf("learned optimizer %s: %w", l.Label, err)
	}
	if dev != nil && l.Safeguard > 0 {
		// The safeguard's tests need f and ∇f of every function at the
		// candidate points: the iterations run on the host with f and ∇f
		// from the device (ondevice.BatchEvaluator).
		be, err := ondevice.NewBatchEvaluator(dev, o)
		if err != nil {
			return nil, fmt.Errorf("learned optimizer %s: %w", l.Label, err)
		}
		c := *l
		c.Target = execution.Target{}
		it, err := c.Start(o.OnEvaluator(be))
		if err != nil {
			be.Close()
			return nil, err
		}
		li := it.(*learnedIterator)
		li.evaluator = be
		runtime.AddCleanup(li, func(b *ondevice.BatchEvaluator) { b.Close() }, be)
		return li, nil
	}
	if dev != nil {
		return l.startOnDevice(o)
	}
	it := &learnedIterator{l: l, o: o}
	// Operator-aware terms (models.NormalPoly) take these functions'
	// operator, not the training one's: that is how they transfer.
	upd, err := models.NewUpdater(l.Method.ForOperator(o.A), o.N, o.H, o.W)
	if err != nil {
		return nil, fmt.Errorf("learned optimizer %s: %w", l.Label, err)
	}
	it.update = upd
	it.xk = append([]float64(nil), o.X0...)
	it.prev = append([]float64(nil), o.X0...)
	it.grad = make([]float64, len(o.X0))
	it.mom = make([]float64, len(o.X0))
	if l.Safeguard > 0 {
		rule, err := ParseSafeguardRule(l.SafeguardRule)
		if err != nil {
			return nil, fmt.Errorf("learned optimizer %s: %w", l.Label, err)
		}
		it.rule = rule
		it.tau = l.Safeguard
		if o.L > 0 {
			it.tau = math.Min(it.tau, 1/o.L)
		}
		it.fx = make([]float64, o.N)
		it.fPrev = make([]float64, o.N)
		it.gradPrev = make([]float64, len(o.X0))
		if rule == SafeguardBGD {
			it.xg = make([]float64, len(o.X0))
			it.fg = make([]float64, o.N)
		}
	}
	return it, nil
}

type learnedIterator struct {
	// evaluator, if set, gives f and ∇f from a device (a safeguarded
	// Optimizer on a device); Close frees it.
	evaluator              *ondevice.BatchEvaluator
	l                      *Optimizer
	o                      *problem.Objective
	update                 *models.Updater
	t                      int
	xk, prev, grad, mom    []float64
	ws                     problem.Workspace
	loadedStep, loadedOnce int
	// Safeguard state: f and ∇f at the previous iterate, the rule and its
	// step τ, how many learned steps were rejected, and how many were
	// accepted at each iteration; for SafeguardBGD the gradient points x_g
	// and f there.
	fx, fPrev, gradPrev []float64
	xg, fg              []float64
	taken               []int     // functions that took x_g this iteration
	sub                 *subBatch // their batch, for ∇f at x_g
	rule                string
	tau                 float64
	rejected            int
	accepted            []int
}

func (it *learnedIterator) X() []float64 { return it.xk }

// Close frees the device memory of an iterator whose f and ∇f come from a
// device; it does nothing otherwise.
func (it *learnedIterator) Close() error {
	if it.evaluator != nil {
		it.evaluator.Close()
	}
	return nil
}

func (it *learnedIterator) Next() error {
	step := min(it.t, it.l.Steps-1)
	if it.loadedOnce == 0 || it.loadedStep != step {
		theta, phi, err := it.l.params(step)
		if err != nil {
			return err
		}
		if err := it.update.SetParams(theta, phi); err != nil {
			return err
		}
		it.loadedStep, it.loadedOnce = step, 1
	}
	// With the safeguard, f and ∇f at it.xk were computed by the previous
	// call (after its step); without it they are computed here.
	if it.fx == nil || it.t == 0 {
		if err := it.o.Eval(it.fx, it.grad, it.xk, &it.ws); err != nil {
			return err
		}
	}
	if it.l.Method.H != nil {
		for i := range it.mom {
			it.mom[i] = it.xk[i] - it.prev[i]
		}
	}
	// prev's values are no longer needed: the new iterate goes there.
	if err := it.update.Step(it.prev, it.xk, it.grad, it.mom); err != nil {
		return err
	}
	it.prev, it.xk = it.xk, it.prev
	if it.fx != nil {
		copy(it.fPrev, it.fx)
		copy(it.gradPrev, it.grad)
		if err := it.o.Eval(it.fx, it.grad, it.xk, &it.ws); err != nil {
			return err
		}
		if err := it.guard(); err != nil {
			return err
		}
		for k, f := range it.fx {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return fmt.Errorf("%s: iteration %d: the safeguard's gradient step gave a non-finite value (function %d): the functions are not L-smooth with the L given (%w)", it.l.Label, it.t, k, baselines.ErrDiverged)
			}
		}
		it.t++
		return nil
	}
	for i, x := range it.xk {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s: iteration %d produced a non-finite iterate (function %d): the learned step %w on these functions; check the certificate with 'l2o certify'", it.l.Label, it.t, i/it.o.ImageLen(), baselines.ErrDiverged)
		}
	}
	it.t++
	return nil
}

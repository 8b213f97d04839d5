package greedy

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/param"
	"github.com/greedyl2o/greedyl2o/problem"
)

// Config sets up greedy training (Algorithm 1).
type Config struct {
	Method param.Method
	// Tau is the step of the reference G = τI; 0 means 1/L of the training set.
	Tau float64
	// Lambda and Mu weight the penalties λt/2‖θ − θ̃‖² and μt/2‖φ − φ̃‖².
	Lambda, Mu Schedule
	// Inner minimises each step's loss; nil means LBFGS{}.
	Inner InnerSolver
	// TolAbs stops training when every ‖∇fk(xk^t)‖ < TolAbs (0: off).
	TolAbs float64
	// TolRel stops training when every ‖∇fk(xk^t)‖² < ‖∇fk(xk^0)‖²/TolRel (0: off).
	TolRel float64
	// MaxSteps caps the number of steps (required, > 0).
	MaxSteps int
	// StopWhenCertified stops at the first T whose certificate (Certificate:
	// the paper's or the Lyapunov bound, "" for DefaultCertificate) holds for
	// CertifyL (0: the training L); needs λt, μt > 0 to be meaningful.
	StopWhenCertified bool
	CertifyL          float64
	Certificate       CertificateKind
	// Dir is the checkpoint directory ("" keeps nothing on disk).
	Dir string
	// Resume continues the run in Dir from its last completed step.
	Resume bool
	// Protocol names the preset the configuration came from ("paper"), for
	// the manifest.
	Protocol string
	// Problem, DataHash and Seed are recorded in the manifest and checked on resume.
	Problem  string
	DataHash string
	Seed     int64
	// Progress, if set, is called after every step.
	Progress func(StepInfo)
	// NoPrecond turns off the preconditioning of the L-BFGS inner solver
	// (parametrizations implementing param.Preconditioner are preconditioned
	// by default).
	NoPrecond bool
	// KeepParams keeps every step's parameters in memory in Result (for
	// tests and short runs; off by default so memory does not grow with t).
	KeepParams bool
	// Validation, if set, holds functions that are not trained on but
	// follow the learned steps during training, as unseen functions will
	// under Algorithm 2; each step records their mean objective (ValF).
	Validation *problem.Objective
	// WeightScales are candidate multipliers s of the penalty weights: with
	// Validation, each step is solved for every (s·λt, s·μt) and keeps the
	// solution with the lowest validation objective after the step. Empty
	// means {1}; more than one candidate needs Validation.
	WeightScales []float64
	// ValLookahead K > 1 scores a candidate by the validation objective after
	// applying its step K times in a row, as Algorithm 2 repeats the last
	// step beyond T, instead of once.
	ValLookahead int
	// DivergeFactor stops training with an error (ErrDiverged) when the mean
	// training objective after a step exceeds DivergeFactor times its value
	// at the starting points (0 means DefaultDivergeFactor; negative: off).
	// A non-finite objective or gradient always stops it. With τ < 2/L every
	// step's loss is at most that of a gradient step, so the mean objective
	// never rises: exceeding the factor means the run diverged.
	DivergeFactor float64
	// Stop, if set, is asked before every step; when it returns true the
	// run ends there with ErrInterrupted, its checkpoint complete up to the
	// previous step (resume it with Resume).
	Stop func() bool
}

// DefaultDivergeFactor is Config.DivergeFactor's default.
const DefaultDivergeFactor = 10

// ErrDiverged marks a training run stopped because it diverged (see
// Config.DivergeFactor); test with errors.Is.
var ErrDiverged = errors.New("the run diverged")

// ErrInterrupted marks a training run stopped by Config.Stop.
var ErrInterrupted = errors.New("interrupted")

// Result is the outcome of Train.
type Result struct {
	Steps []StepInfo
	// Theta and Phi hold the parameters of every step when KeepParams is set.
	Theta, Phi [][]float64
	// X holds the training iterates after the last step.
	X         []float64
	StopCause string
	Manifest  *Manifest
}

// Train runs Algorithm 1 on the training functions o.
func Train(o *problem.Objective, cfg Config) (*Result, error) {
	if cfg.MaxSteps <= 0 {
		return nil, fmt.Errorf("greedy: the step cap must be positive, got %d", cfg.MaxSteps)
	}
	if cfg.Method.G == nil {
		return nil, errors.New("greedy: no parametrization for G")
	}
	if cfg.TolAbs < 0 || cfg.TolRel < 0 || math.IsNaN(cfg.TolAbs) || math.IsNaN(cfg.TolRel) {
		return nil, fmt.Errorf("greedy: tolerances must be ≥ 0 (got absolute %g, relative %g)", cfg.TolAbs, cfg.TolRel)
	}
	inner := cfg.Inner
	if inner == nil {
		inner = LBFGS{}
	}
	tau := cfg.Tau
	if tau == 0 {
		tau = 1 / o.L
	}
	scales := cfg.WeightScales
	if len(scales) == 0 {
		scales = []float64{1}
	}
	for _, sc := range scales {
		if !(sc >= 0) || math.IsInf(sc, 0) {
			return nil, fmt.Errorf("greedy: penalty weight scales must be finite and ≥ 0, got %g", sc)
		}
	}
	if len(scales) > 1 && cfg.Validation == nil {
		return nil, errors.New("greedy: choosing among penalty weight scales needs validation functions")
	}
	var val *validator
	if v := cfg.Validation; v != nil {
		if v.H != o.H || v.W != o.W {
			return nil, fmt.Errorf("greedy: validation functions are %d×%d, training functions %d×%d", v.H, v.W, o.H, o.W)
		}
		var err error
		if cfg.ValLookahead < 0 {
			return nil, fmt.Errorf("greedy: validation lookahead must be ≥ 0, got %d", cfg.ValLookahead)
		}
		if val, err = newValidator(cfg.Method, v, tau, cfg.ValLookahead); err != nil {
			return nil, err
		}
		defer val.close()
	}
	loss, err := NewStepLoss(cfg.Method, o, tau)
	if err != nil {
		return nil, err
	}
	defer loss.Close()

	nTheta, nPhi := loss.ParamLens()
	// A checkpoint must name registered parametrizations, so that Load can
	// parse them back; a run kept in memory may use any type.
	pversions, err := param.Versions(cfg.Method)
	if err != nil && cfg.Dir != "" {
		return nil, fmt.Errorf("greedy: checkpoint %s: %w", cfg.Dir, err)
	}
	man := &Manifest{
		Format: FormatVersion, Problem: cfg.Problem, Operator: o.A.String(), Conventions: o.Conventions, Regular: o.Reg.String(),
		Alpha: o.Alpha, H: o.H, W: o.W, NTrain: o.N, DataHash: cfg.DataHash, Seed: cfg.Seed,
		Method: cfg.Method.Name(), ParamVersions: pversions, Tau: tau, L: o.L, Lambda: cfg.Lambda.String(), Mu: cfg.Mu.String(),
		Inner: inner.Name(), InnerSettings: innerSettings(inner, nTheta, nPhi, cfg), Protocol: cfg.Protocol, TolRel: cfg.TolRel, TolAbs: cfg.TolAbs, MaxSteps: cfg.MaxSteps,
		Versions: versions(), ThetaLen: nTheta, PhiLen: nPhi,
	}
	if val != nil {
		man.NVal = val.o.N
		man.WeightScales = scales
		man.ValLookahead = val.lookahead
	}
	hw := o.ImageLen()
	x := append([]float64(nil), o.X0...)
	xprev := append([]float64(nil), o.X0...)
	start := 0
	if cfg.Resume {
		if cfg.Dir == "" {
			return nil, errors.New("greedy: resume needs a checkpoint directory")
		}
		old, err := ReadManifest(cfg.Dir)
		if err != nil {
			return nil, fmt.Errorf("greedy: %w %s: %w", ErrCannotResume, cfg.Dir, err)
		}
		if err := compatible(old, man); err != nil {
			return nil, fmt.Errorf("greedy: %w %s: %w", ErrCannotResume, cfg.Dir, err)
		}
		start = len(old.Steps)
		man.Steps = old.Steps
		// Every committed file is checked before the run builds on it; a
		// checkpoint without checksums gets those of its files as they are.
		if old.Checksums == nil {
			if err := RecordChecksums(cfg.Dir, old); err != nil {
				return nil, fmt.Errorf("greedy: %w %s: %w", ErrCannotResume, cfg.Dir, err)
			}
		} else if err := VerifyChecksums(cfg.Dir, old.Checksums); err != nil {
			return nil, fmt.Errorf("greedy: %w %s: %w", ErrCannotResume, cfg.Dir, err)
		}
		man.Checksums = old.Checksums
		if start > 0 {
			read := func(name string, n int) ([]float64, error) {
				v, err := ReadNPYVerified(cfg.Dir, StateFile(name, start), n, man.Checksums)
				if err != nil {
					return nil, fmt.Errorf("greedy: %w %s: %w", ErrCannotResume, cfg.Dir, err)
				}
				return v, nil
			}
			if x, err = read("x", len(x)); err != nil {
				return nil, err
			}
			if xprev, err = read("xprev", len(x)); err != nil {
				return nil, err
			}
			if val != nil {
				if val.x, err = read("xval", len(val.x)); err != nil {
					return nil, err
				}
				if val.prev, err = read("xvalprev", len(val.x)); err != nil {
					return nil, err
				}
			}
		}
		if old.Finished && (old.StopCause != "step cap reached" || cfg.MaxSteps <= start) {
			return &Result{Steps: old.Steps, X: x, StopCause: old.StopCause, Manifest: old}, nil
		}
	} else if cfg.Dir != "" {
		if _, err := os.Stat(filepath.Join(cfg.Dir, "manifest.json")); err == nil {
			return nil, fmt.Errorf("greedy: %s already holds a checkpoint: use --resume to continue it or choose another --out", cfg.Dir)
		}
		man.Checksums = map[string]string{}
		if err := WriteManifest(cfg.Dir, man); err != nil {
			return nil, err
		}
	}

	res := &Result{Manifest: man}
	grad := make([]float64, len(x))
	vals := make([]float64, o.N)
	p := make([]float64, len(x))
	ws := &problem.Workspace{}
	norms := func(g []float64) []float64 {
		out := make([]float64, o.N)
		for k := range out {
			gk := g[k*hw : (k+1)*hw]
			out[k] = math.Sqrt(kernels.Dot(gk, gk))
		}
		return out
	}
	// ‖∇fk(xk^0)‖ for the relative tolerance.
	if err := o.Eval(nil, grad, o.X0, ws); err != nil {
		return nil, err
	}
	norm0 := norms(grad)
	f0, err := o.Mean(o.X0)
	if err != nil {
		return nil, err
	}
	factor := cfg.DivergeFactor
	if factor == 0 {
		factor = DefaultDivergeFactor
	}
	diverged := func(t int, mf float64) error {
		if math.IsNaN(mf) || math.IsInf(mf, 0) {
			return fmt.Errorf("greedy: step %d: the mean training objective is %g: %w (it was %.6g at the start); use a smaller --tau or positive --lambda", t, mf, ErrDiverged, f0)
		}
		if factor > 0 && f0 > 0 && mf > factor*f0 {
			return fmt.Errorf("greedy: step %d: the mean training objective %.6g exceeds %g times its starting value %.6g: %w; use a smaller --tau or positive --lambda (or raise --diverge-factor)", t, mf, factor, f0, ErrDiverged)
		}
		return nil
	}
	sp := &Subproblem{Loss: loss, Quadratic: o.LeastSquares()}
	converged := func(n []float64) bool {
		if cfg.TolAbs == 0 && cfg.TolRel == 0 {
			return false
		}
		for k, v := range n {
			if cfg.TolAbs > 0 && v >= cfg.TolAbs {
				return false
			}
			if cfg.TolRel > 0 && v*v >= norm0[k]*norm0[k]/cfg.TolRel {
				return false
			}
		}
		return true
	}
	stop := "step cap reached"
	for t := start; t < cfg.MaxSteps; t++ {
		if cfg.Stop != nil && cfg.Stop() {
			return nil, fmt.Errorf("greedy: %w before step %d: the checkpoint in %s holds %d completed steps", ErrInterrupted, t, cfg.Dir, t)
		}
		began := time.Now()
		if err := o.Eval(vals, grad, x, ws); err != nil {
			return nil, err
		}
		gn := norms(grad)
		maxNorm := 0.0
		for _, v := range gn {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("greedy: step %d: a training gradient is not finite: %w; use a smaller --tau or positive --lambda", t, ErrDiverged)
			}
			maxNorm = math.Max(maxNorm, v)
		}
		if converged(gn) {
			stop = "tolerance reached"
			break
		}
		for i := range p {
			p[i] = x[i] - xprev[i]
		}
		lam, mu := cfg.Lambda.At(t), cfg.Mu.At(t)
		// The operands first: a reduced block's curvature comes from them.
		// The weights are set below, once the relative ones are scaled.
		if err := loss.SetStep(x, grad, p, 0, 0); err != nil {
			return nil, err
		}
		// The data curvatures of the two blocks, computed at most once a step
		// (for relative weights and for NAG's step): exact ones (a reduced
		// block's come from its operands) and the paper's bound (1/N) Σk ‖Bk‖²
		// (NAG with StepPaper).
		onBlock := func(b int) (param.Parametrization, []float64) {
			if b == 1 {
				return cfg.Method.H, p
			}
			return cfg.Method.G, grad
		}
		curvature := cachedPerBlock(func(b int) (float64, error) {
			if c, ok := loss.Curvature(b); ok {
				return c, nil
			}
			par, v := onBlock(b)
			return blockCurvature(par, v, o.N, o.H, o.W)
		})
		paperCurvature := cachedPerBlock(func(b int) (float64, error) {
			par, v := onBlock(b)
			return paperCurvature(par, v, o.N, o.H, o.W)
		})
		if cfg.Lambda.Relative && lam > 0 {
			c, err := curvature(0)
			if err != nil {
				return nil, fmt.Errorf("greedy: step %d: relative λ: %w", t, err)
			}
			lam *= o.L * c
		}
		if cfg.Mu.Relative && mu > 0 && cfg.Method.H != nil {
			c, err := curvature(1)
			if err != nil {
				return nil, fmt.Errorf("greedy: step %d: relative μ: %w", t, err)
			}
			mu *= o.L * c
		}
		if cfg.Method.H == nil {
			mu = 0
		}
		if val != nil {
			if err := val.begin(); err != nil {
				return nil, err
			}
		}
		evalsBefore := loss.Evaluations()
		// One solve per candidate weight scale; with validation functions the
		// candidate with the lowest validation objective is kept.
		var (
			info  StepInfo
			u     []float64
			theta []float64
			phi   []float64
		)
		for ci, sc := range scales {
			c, err := solveStep(loss, sp, inner, curvature, paperCurvature, cfg, o, grad, p, sc*lam, sc*mu)
			if err != nil {
				return nil, fmt.Errorf("greedy: step %d: %w", t, err)
			}
			c.info.T = t
			if val != nil {
				c.info.WeightScale = sc
				if c.info.ValScore, c.info.ValF, err = val.score(c.theta, c.phi); err != nil {
					return nil, err
				}
				if ci > 0 && !(c.info.ValScore < info.ValScore) {
					continue
				}
				val.keep()
			}
			info, u, theta, phi = c.info, c.u, c.theta, c.phi
		}
		if err := loss.SetWeights(info.Lambda, info.Mu); err != nil {
			return nil, err
		}
		if val != nil {
			val.advance()
		}
		info.MaxGradNorm = maxNorm
		next := make([]float64, len(x))
		if err := loss.Next(next, u); err != nil {
			return nil, err
		}
		xprev, x = x, next
		mf, err := o.Mean(x)
		if err != nil {
			return nil, err
		}
		if err := diverged(t, mf); err != nil {
			return nil, err
		}
		info.MeanF = mf
		info.Evaluations = loss.Evaluations() - evalsBefore
		info.Seconds = time.Since(began).Seconds()
		if cfg.KeepParams {
			res.Theta = append(res.Theta, append([]float64(nil), theta...))
			res.Phi = append(res.Phi, append([]float64(nil), phi...))
		}
		man.Steps = append(man.Steps, info)
		if cfg.Dir != "" {
			var vx, vprev []float64
			if val != nil {
				vx, vprev = val.x, val.prev
			}
			if err := saveStep(cfg.Dir, man, t, theta, phi, x, xprev, vx, vprev); err != nil {
				return nil, err
			}
		}
		if cfg.Progress != nil {
			cfg.Progress(info)
		}
		if cfg.StopWhenCertified {
			cl := cfg.CertifyL
			if cl == 0 {
				cl = o.L
			}
			e1, e2, err := ParamNorms(cfg.Method, theta, phi, tau, o.H, o.W)
			if err != nil {
				return nil, err
			}
			kind := cfg.Certificate
			if kind == "" {
				kind = DefaultCertificate
			}
			if Certified(kind, e1, e2, tau, cl) {
				stop = "certified (" + string(kind) + ")"
				break
			}
		}
	}
	man.Finished = true
	man.StopCause = stop
	if cfg.Dir != "" {
		if err := WriteManifest(cfg.Dir, man); err != nil {
			return nil, err
		}
	}
	res.Steps = man.Steps
	res.X = x
	res.StopCause = stop
	return res, nil
}

// saveStep writes the parameters and state of step t, then commits the
// manifest with their checksums, then removes the previous state.
func saveStep(dir string, man *Manifest, t int, theta, phi, x, xprev, xval, xvalprev []float64) error {
	if man.Checksums == nil {
		man.Checksums = map[string]string{}
	}
	files := []struct {
		rel string
		v   []float64
	}{{ParamFile("theta", t), theta}}
	if len(phi) > 0 {
		files = append(files, struct {
			rel string
			v   []float64
		}{ParamFile("phi", t), phi})
	}
	states := [][]float64{x, xprev, xval, xvalprev}
	for i, name := range stateNames {
		if states[i] != nil {
			files = append(files, struct {
				rel string
				v   []float64
			}{StateFile(name, t+1), states[i]})
		}
	}
	for _, f := range files {
		sum, err := WriteNPYSum(filepath.Join(dir, filepath.FromSlash(f.rel)), f.v)
		if err != nil {
			return err
		}
		man.Checksums[f.rel] = sum
	}
	for _, name := range stateNames {
		delete(man.Checksums, StateFile(name, t))
	}
	if err := WriteManifest(dir, man); err != nil {
		return err
	}
	for _, name := range stateNames {
		os.Remove(statePath(dir, name, t))
	}
	return nil
}

// orIf returns v when cond holds and "" otherwise: a field that an older
// checkpoint did not record is not compared.
func orIf(cond bool, v string) string {
	if cond {
		return v
	}
	return ""
}

// innerSettings describes the inner solver's budget for the manifest.
func innerSettings(inner InnerSolver, nTheta, nPhi int, cfg Config) string {
	switch s := inner.(type) {
	case NAG:
		return s.Settings(nTheta, nPhi)
	case LBFGS:
		return s.Settings(!cfg.NoPrecond)
	}
	return fmt.Sprintf("%+v", inner)
}

// compatible reports whether a checkpoint can be resumed with a new configuration.
func compatible(old, cur *Manifest) error {
	type field struct {
		name     string
		old, cur any
	}
	for _, f := range []field{
		{"problem", old.Problem, cur.Problem},
		{"conventions", old.Conventions.String(), cur.Conventions.String()},
		{"operator", old.Operator, cur.Operator},
		{"regularizer", old.Regular, cur.Regular},
		{"alpha", old.Alpha, cur.Alpha},
		{"image size", [2]int{old.H, old.W}, [2]int{cur.H, cur.W}},
		{"training functions", old.NTrain, cur.NTrain},
		{"data hash", old.DataHash, cur.DataHash},
		{"seed", old.Seed, cur.Seed},
		{"method", old.Method, cur.Method},
		{"parametrization versions", fmt.Sprint(orDefaultVersions(old.ParamVersions, cur.ParamVersions)), fmt.Sprint(cur.ParamVersions)},
		{"tau", old.Tau, cur.Tau},
		{"lambda", old.Lambda, cur.Lambda},
		{"mu", old.Mu, cur.Mu},
		{"inner solver", old.Inner, cur.Inner},
		{"inner solver settings", old.InnerSettings, orIf(old.InnerSettings != "", cur.InnerSettings)},
		{"validation functions", old.NVal, cur.NVal},
		{"penalty weight scales", fmt.Sprint(old.WeightScales), fmt.Sprint(cur.WeightScales)},
		{"validation lookahead", old.ValLookahead, cur.ValLookahead},
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

// blockPreconditioner combines the parametrizations' preconditioners for the
// θ block (curvature from the gradients g) and the φ block (from the momentum
// directions p); nil if neither has one.
func blockPreconditioner(m param.Method, loss *StepLoss, g, p []float64, o *problem.Objective, shiftG, shiftH float64) func(dst, src []float64) {
	nTheta := loss.ThetaLen()
	ident := func(dst, src []float64) { copy(dst, src) }
	pg, okG := ident, false
	if f, ok := loss.Precondition(0, shiftG); ok {
		pg, okG = f, true
	} else if pc, ok := m.G.(param.Preconditioner); ok {
		if f, ok := pc.Precondition(g, o.N, o.H, o.W, shiftG); ok {
			pg, okG = f, true
		}
	}
	ph, okH := ident, false
	if f, ok := loss.Precondition(1, shiftH); ok {
		ph, okH = f, true
	} else if m.H != nil {
		if pc, ok := m.H.(param.Preconditioner); ok {
			if f, ok := pc.Precondition(p, o.N, o.H, o.W, shiftH); ok {
				ph, okH = f, true
			}
		}
	}
	if !okG && !okH {
		return nil
	}
	return func(dst, src []float64) {
		pg(dst[:nTheta], src[:nTheta])
		if len(src) > nTheta {
			ph(dst[nTheta:], src[nTheta:])
		}
	}
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
	info       StepInfo
	u          []float64
	theta, phi []float64
}

// solveStep minimises the step loss with weights λ, μ from the reference,
// keeping the reference when the solver did no better (BGD), and returns the
// solution with its full parameters.
func solveStep(loss *StepLoss, sp *Subproblem, inner InnerSolver, curvature, paperCurvature func(int) (float64, error),
	cfg Config, o *problem.Objective, grad, p []float64, lam, mu float64) (*candidate, error) {
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
	if !cfg.NoPrecond {
		sp.Precond = blockPreconditioner(cfg.Method, loss, grad, p, o, lam/o.L, mu/o.L)
	}
	u0 := loss.Reference()
	ref, err := loss.Eval(u0, nil)
	if err != nil {
		return nil, err
	}
	u, err := inner.Minimize(sp, u0)
	if err != nil {
		return nil, fmt.Errorf("inner solver %s: %w", inner.Name(), err)
	}
	v, err := loss.Eval(u, nil)
	if err != nil {
		return nil, err
	}
	c := &candidate{info: StepInfo{RefLoss: ref, Lambda: lam, Mu: mu}, u: u}
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

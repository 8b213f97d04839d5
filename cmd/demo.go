package cmd

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/greedy"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/report"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

func init() {
	register(&Command{Name: "demo", Summary: "train greedy M-PS and M-PC on synthetic deblurring, compare with baselines, write an HTML report", Run: runDemo})
}

// demoConfig sets up l2o demo.
type demoConfig struct {
	Out           string
	Size          int
	NTrain, NTest int
	Seed          int64
	MaxSteps      int     // greedy step cap
	TolRel        float64 // greedy relative gradient tolerance
	// Penalty maps a greedy method to its λ = μ schedule: without them
	// the learned M-PC kernels fit the training trajectories but diverge on
	// held-out functions.
	Penalty map[string]string
	// Safeguard runs the learned methods with the safeguard (a step that
	// raises f becomes a gradient step of size τ).
	Safeguard      bool
	InnerEvals     int // L-BFGS evaluations per greedy step
	Iters          int // evaluation iterations
	FStarIters     int // NAG iterations for f*
	TuneIters      int // PGD iterations per run of the δ search (0: default δ)
	ReconIter      int // iteration of the reconstructions and of the PSNR column
	FinalIters     int // L-BFGS iterations of the "final" reconstruction
	KernelCropSize int
}

// demoPenalty are the demo's λ = μ, relative to each step's data
// curvature. Measured on the 64×64 demo (10 training, 10 test functions, 60
// steps, optimality after 300 iterations): M-PS with rel:1e-2 reaches 1e-9
// (constant 1e-5: 2.6e-4); M-PC with rel:1e-2 and the safeguard 2.7e-6
// (constant 1e-4: 8e-4), but diverges beyond T without the safeguard.
var demoPenalty = map[string]string{"m-pc": "rel:1e-2", "m-ps": "rel:1e-2"}

// demoDefaults are the settings of the full demo (about three minutes on two
// cores); quickDefaults those of --quick (seconds, for tests).
var (
	demoDefaults = demoConfig{
		Size: 64, NTrain: 10, NTest: 10, Seed: 1, MaxSteps: 60, TolRel: 1e7, InnerEvals: 100, Penalty: demoPenalty, Safeguard: true,
		Iters: 300, FStarIters: 3000, TuneIters: 20, ReconIter: 15, FinalIters: 1000, KernelCropSize: 21,
	}
	quickDefaults = demoConfig{
		Size: 24, NTrain: 3, NTest: 3, Seed: 1, MaxSteps: 6, TolRel: 1e7, InnerEvals: 25, Penalty: demoPenalty, Safeguard: true,
		Iters: 40, FStarIters: 400, TuneIters: 0, ReconIter: 15, FinalIters: 200, KernelCropSize: 21,
	}
)

func runDemo(env *Env, args []string) error {
	fs := newFlags(env, "demo", "demo [--out ./l2o-demo] [--size 64] [--n-train 10] [--n-test 10] [--quick] [--seed 1]")
	out := fs.String("out", "l2o-demo", "output directory of the report (its checkpoints/ subdirectory is replaced)")
	size := fs.Int("size", 0, "image size (0: 64, or 24 with --quick)")
	nTrain := fs.Int("n-train", 0, "training functions (0: 10, or 3 with --quick)")
	nTest := fs.Int("n-test", 0, "held-out test functions (0: 10, or 3 with --quick)")
	quick := fs.Bool("quick", false, "a tiny version that runs in seconds (for tests)")
	seed := fs.Int64("seed", 1, "seed of the synthetic images and noise")
	maxSteps := fs.Int("max-steps", 0, "cap on greedy training steps (0: 60, or 6 with --quick)")
	iters := fs.Int("iters", 0, "evaluation iterations (0: 300, or 40 with --quick)")
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg := demoDefaults
	if *quick {
		cfg = quickDefaults
	}
	cfg.Out, cfg.Seed = *out, *seed
	for _, f := range []struct {
		name string
		v    int
		dst  *int
		min  int
	}{{"size", *size, &cfg.Size, 21}, {"n-train", *nTrain, &cfg.NTrain, 1}, {"n-test", *nTest, &cfg.NTest, 1},
		{"max-steps", *maxSteps, &cfg.MaxSteps, 1}, {"iters", *iters, &cfg.Iters, 1}} {
		if f.v < 0 || (f.v > 0 && f.v < f.min) {
			return usagef("--%s %d: use 0 (the default) or a value of at least %d", f.name, f.v, f.min)
		}
		if f.v > 0 {
			*f.dst = f.v
		}
	}
	if cfg.Size > 1024 {
		return usagef("--size %d is too large for a demo: use at most 1024", cfg.Size)
	}
	if cfg.Out == "" {
		return usagef("--out must not be empty")
	}
	res, err := demo(env, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout)
	if err := report.WriteTable(env.Stdout, res.curves, nil, cfg.ReconIter); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "\ndemo finished in %.1f s; report: %s\n", res.seconds, res.index)
	return nil
}

// demoResult is what demo produced.
type demoResult struct {
	curves  []*eval.Curve
	index   string
	seconds float64
}

// demo trains, evaluates and writes the report.
func demo(env *Env, cfg demoConfig) (*demoResult, error) {
	began := time.Now()
	// Start from the flags' defaults so that fields added to problemFlags
	// keep their default values.
	var pf problemFlags
	pf.add(pflag.NewFlagSet("demo", pflag.ContinueOnError), cfg.NTrain, cfg.NTest)
	pf.Problem, pf.Data, pf.Size, pf.Seed = "deblur", "synthetic", cfg.Size, cfg.Seed
	prob, train, test, err := pf.build()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	fmt.Fprintf(env.Stdout, "l2o demo: %s, %d×%d images, %d training and %d held-out test functions (seed %d) → %s\n",
		prob.Name, prob.H, prob.W, train.N, test.N, cfg.Seed, cfg.Out)

	// Greedy training of M-PS and M-PC.
	learned := map[string]*greedy.Learned{}
	var learnedOrder []string
	for _, name := range []string{"m-pc", "m-ps"} {
		l, err := demoTrain(env, cfg, prob, train, name)
		if err != nil {
			return nil, err
		}
		learned[name] = l
		learnedOrder = append(learnedOrder, name)
	}

	// PGD's δ.
	delta := baselines.DefaultDelta
	if cfg.TuneIters > 0 {
		p := newProgress(env.Stderr, 1, "tuning PGD δ (Nelder–Mead)")
		d, err := baselines.TuneDelta(train, cfg.TuneIters)
		if err != nil {
			return nil, fmt.Errorf("demo: %w", err)
		}
		delta = d
		p.done(fmt.Sprintf("δ = %.4g", delta))
	}

	// f* of the test functions.
	p := newProgress(env.Stderr, 1, fmt.Sprintf("f* (%d NAG iterations)", cfg.FStarIters))
	fstar, err := baselines.Optimum(test, cfg.FStarIters, filepath.Join(cfg.Out, "cache"))
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	p.done("cached under " + filepath.Join(cfg.Out, "cache"))

	// Evaluation.
	methods := []baselines.Method{learned["m-pc"], learned["m-ps"],
		baselines.GradientDescent{}, baselines.HeavyBall{}, baselines.NAG{}, baselines.LBFGS{}, baselines.PreconditionedGD{Delta: delta}}
	total := len(methods) * (cfg.Iters + 1)
	done := 0
	p = newProgress(env.Stderr, total, fmt.Sprintf("evaluating %d methods", len(methods)))
	curves, err := eval.Run(test, fstar, methods, eval.Options{
		Iters: cfg.Iters, PSNRAt: []int{0, cfg.ReconIter, cfg.Iters},
		Progress: func(string, int) { done++; p.set(done) },
	})
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	p.done(fmt.Sprintf("%d iterations each", cfg.Iters))

	// Extras: learned scalars, kernels, reconstructions.
	hb := baselines.HeavyBall{}
	scalars, err := scalarSeries(learned["m-ps"], hb, test.L)
	if err != nil {
		return nil, err
	}
	kernels, kernelCols, err := kernelPanels(learned["m-pc"], cfg.KernelCropSize)
	if err != nil {
		return nil, err
	}
	recons, err := demoReconstructions(test, cfg, []baselines.Method{baselines.NAG{}, learned["m-ps"], learned["m-pc"]})
	if err != nil {
		return nil, err
	}
	rep := &report.Report{
		Title:    "l2o demo: greedy learned optimizers on synthetic deblurring",
		Curves:   curves,
		PSNRIter: cfg.ReconIter,
		Scalars:  scalars, Kernels: kernels, KernelColumns: kernelCols, Reconstructions: recons,
		Notes: []string{
			fmt.Sprintf("Problem %s (%s, %s, α = %g, noise %g) on %d×%d synthetic images; greedy M-PS and M-PC trained on %d functions "+
				"(L-BFGS inner solver, at most %d evaluations per step, relative tolerance %g, at most %d steps, λ = μ = %s for M-PC and %s for M-PS; safeguard %v) "+
				"and evaluated with the baselines on %d held-out functions, seed %d.",
				prob.Name, prob.A, prob.Reg, prob.Alpha, prob.Noise, prob.H, prob.W, train.N, cfg.InnerEvals, cfg.TolRel, cfg.MaxSteps,
				cfg.Penalty["m-pc"], cfg.Penalty["m-ps"], cfg.Safeguard, test.N, cfg.Seed),
			fmt.Sprintf("Trained steps: M-PC %d, M-PS %d (the last step's parameters are kept afterwards). PGD δ = %.4g. "+
				"f* is the smallest value of %d iterations of NAG with backtracking.",
				learned["m-pc"].Steps, learned["m-ps"].Steps, delta, cfg.FStarIters),
			fmt.Sprintf("Built by l2o %s in %.0f s (greedy checkpoints in checkpoints/).", Version, time.Since(began).Seconds()),
		},
	}
	index, err := rep.Write(cfg.Out)
	if err != nil {
		return nil, err
	}
	return &demoResult{curves: curves, index: index, seconds: time.Since(began).Seconds()}, nil
}

// demoTrain trains one greedy method with checkpoints in
// cfg.Out/checkpoints/NAME (replacing an earlier run there).
func demoTrain(env *Env, cfg demoConfig, prob *models.Problem, train *models.Objective, name string) (*greedy.Learned, error) {
	method, err := models.ParseMethod(name)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(cfg.Out, "checkpoints", name)
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("demo: removing the previous checkpoint %s: %w", dir, err)
	}
	pen, err := greedy.ParseSchedule(cfg.Penalty[name])
	if err != nil {
		return nil, fmt.Errorf("demo: penalty of %s: %w", name, err)
	}
	p := newProgress(env.Stderr, cfg.MaxSteps, "training greedy "+name)
	res, err := greedy.Train(train, greedy.Config{
		Method: method, Lambda: pen, Mu: pen,
		Inner:  greedy.LBFGS{MaxEvaluations: cfg.InnerEvals},
		TolRel: cfg.TolRel, MaxSteps: cfg.MaxSteps, Dir: dir,
		Problem: prob.Name, DataHash: dataHash(train), Seed: cfg.Seed, KeepParams: true,
		Progress: func(s greedy.StepInfo) { p.set(s.T + 1) },
	})
	if err != nil {
		return nil, fmt.Errorf("demo: training %s: %w", name, err)
	}
	p.done(fmt.Sprintf("%d steps, %s", len(res.Steps), res.StopCause))
	l, err := greedy.NewLearned("greedy "+name, method, train.H, train.W, res.Theta, res.Phi)
	if err != nil {
		return nil, err
	}
	if cfg.Safeguard {
		l.Safeguard = 1 / train.L
		l.Label += " (safeguarded)"
	}
	return l, nil
}

// demoReconstructions returns the ground truth, the observation, the
// iterates of methods at iteration cfg.ReconIter and a converged L-BFGS
// iterate for the first test function.
func demoReconstructions(test *models.Objective, cfg demoConfig, methods []baselines.Method) ([]report.Panel, error) {
	one, err := test.Subset([]int{0})
	if err != nil {
		return nil, err
	}
	h, w := one.H, one.W
	panel := func(label string, x []float64) report.Panel {
		if one.Truth != nil {
			label = fmt.Sprintf("%s\n%.2f dB", label, eval.PSNR(x, one.Truth))
		}
		return report.Panel{Label: label, H: h, W: w, Pix: append([]float64(nil), x...)}
	}
	var out []report.Panel
	if one.Truth != nil {
		out = append(out, report.Panel{Label: "ground truth\n ", H: h, W: w, Pix: one.Truth})
	}
	if len(one.Y) == h*w {
		out = append(out, panel("observation y", one.Y))
	}
	run := func(m baselines.Method, iters int) ([]float64, error) {
		it, err := m.Start(one)
		if err != nil {
			return nil, err
		}
		for t := 0; t < iters; t++ {
			if err := it.Next(); err != nil {
				return nil, fmt.Errorf("demo: reconstruction with %s: %w", m.Name(), err)
			}
		}
		return it.X(), nil
	}
	for _, m := range methods {
		x, err := run(m, cfg.ReconIter)
		if err != nil {
			return nil, err
		}
		out = append(out, panel(fmt.Sprintf("%s, t = %d", m.Name(), cfg.ReconIter), x))
	}
	x, err := run(baselines.LBFGS{}, cfg.FinalIters)
	if err != nil {
		return nil, err
	}
	return append(out, panel(fmt.Sprintf("final (L-BFGS, t = %d)", cfg.FinalIters), x)), nil
}

// scalarSeries returns α_t = θ_t and β_t = φ_t of a learned optimizer with
// scalar parameters (PS, M-PS) and the heavy-ball references for
// smoothness l; nil when the parameters are not scalars.
func scalarSeries(l *greedy.Learned, hb baselines.HeavyBall, lip float64) (*report.ScalarSeries, error) {
	if l == nil || l.Method.G == nil || l.Method.G.Name() != "ps" {
		return nil, nil
	}
	s := &report.ScalarSeries{Method: l.Name()}
	for t := 0; t < l.Steps; t++ {
		theta, phi, err := l.Params(t)
		if err != nil {
			return nil, fmt.Errorf("parameters of %s at step %d: %w", l.Name(), t, err)
		}
		if len(theta) != 1 {
			return nil, fmt.Errorf("%s: step %d has %d step-size parameters, want 1", l.Name(), t, len(theta))
		}
		s.Alpha = append(s.Alpha, theta[0])
		if len(phi) == 1 {
			s.Beta = append(s.Beta, phi[0])
		}
	}
	if lip > 0 && !math.IsInf(lip, 0) {
		a, b, err := hb.Parameters(&models.Objective{L: lip})
		if err != nil {
			return nil, err
		}
		s.AlphaStar, s.BetaStar = a, b
	}
	return s, nil
}

// kernelPanels returns centre crops of the image-sized kernels θ_t (and
// φ_t) of a PC learned optimizer at a few steps t; nil for other
// parametrizations.
// The second result is the number of θ panels (one row of the grid).
func kernelPanels(l *greedy.Learned, size int) ([]report.Panel, int, error) {
	if l == nil || l.Method.G == nil || l.Method.G.Name() != "pc" {
		return nil, 0, nil
	}
	size = min(size, l.H, l.W)
	if size%2 == 0 {
		size--
	}
	var steps []int
	for _, t := range []int{0, 1, 2, 5, 10, 20, l.Steps - 1} {
		if t < l.Steps && (len(steps) == 0 || t > steps[len(steps)-1]) {
			steps = append(steps, t)
		}
	}
	if len(steps) > 6 {
		steps = append(steps[:5], steps[len(steps)-1])
	}
	var thetas, phis []report.Panel
	for _, t := range steps {
		theta, phi, err := l.Params(t)
		if err != nil {
			return nil, 0, fmt.Errorf("parameters of %s at step %d: %w", l.Name(), t, err)
		}
		k, err := report.KernelCrop(fmt.Sprintf("G kernel θ, t = %d", t), theta, l.H, l.W, size)
		if err != nil {
			return nil, 0, err
		}
		thetas = append(thetas, k)
		if len(phi) == l.H*l.W && l.Method.H != nil && l.Method.H.Name() == "pc" && t > 0 {
			k, err := report.KernelCrop(fmt.Sprintf("H kernel φ, t = %d", t), phi, l.H, l.W, size)
			if err != nil {
				return nil, 0, err
			}
			phis = append(phis, k)
		}
	}
	return append(thetas, phis...), len(thetas), nil
}

// progress reports the advance of a long phase on stderr: a progress bar
// when stderr is a terminal, otherwise (CI logs, tests) one line when the
// phase starts and one when it ends.
type progress struct {
	w     io.Writer
	desc  string
	bar   *progressbar.ProgressBar
	start time.Time
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newProgress starts a phase of max units of work.
func newProgress(w io.Writer, max int, desc string) *progress {
	p := &progress{w: w, desc: desc, start: time.Now()}
	if isTerminal(w) {
		p.bar = progressbar.NewOptions(max,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(fmt.Sprintf("%-28s", desc)),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowCount(),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	} else {
		fmt.Fprintf(w, "%s…\n", desc)
	}
	return p
}

// set records that n units are done.
func (p *progress) set(n int) {
	if p.bar != nil {
		p.bar.Set(n)
	}
}

// done ends the phase with a one-line summary.
func (p *progress) done(summary string) {
	if p.bar != nil {
		p.bar.Finish()
	}
	fmt.Fprintf(p.w, "%s: %s (%.1f s)\n", p.desc, summary, time.Since(p.start).Seconds())
}

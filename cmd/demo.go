package cmd

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/greedy"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/provenance"
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
	// RepeatCheck is greedy.Stop.RepeatCheck (0: the paper's rule, stop at
	// the tolerance): the tolerance stops training only at a step that,
	// repeated this many times, raises no training function's ‖∇f‖. With
	// the paper's rule the demo's M-PC stops at T = 28 and, repeated beyond
	// it, rises from 1.2e-4 at iteration 100 to 6.1e3 at 1000; with a
	// check of 200 it trains to T = 56 (steps 28–55 fail) and reaches f*'s
	// accuracy by iteration 500 (docs/operator-families.md).
	RepeatCheck int
	// Noise is the standard deviation of the observation noise of the
	// demo's problem (0 keeps the problem's, 0.01); see demoNoise.
	Noise float64
	// Penalty is the λ = μ schedule of both greedy methods ("0": the
	// paper's unpenalised Algorithm 1).
	Penalty string
	// Safeguard lists the greedy methods of which a safeguarded copy (a
	// step that raises f becomes a gradient step of size 1/L) is evaluated
	// as well; the plain methods, Algorithm 2 as published, always are.
	Safeguard      []string
	InnerEvals     int // L-BFGS evaluations per greedy step
	Iters          int // evaluation iterations
	FStarIters     int // NAG iterations for f*
	TuneIters      int // PGD iterations per run of the δ search (0: default δ)
	ReconIter      int // iteration of the reconstructions and of the PSNR column
	FinalIters     int // L-BFGS iterations of the minimiser's reconstruction
	KernelCropSize int
	// HBMu is μ of the heavy-ball reference drawn with M-PS's θt, φt
	// (--hb-mu: a value, or rel:R for R·L), as in l2o report.
	HBMu string
}

// demoNoise is the observation noise of the demo's synthetic problem, half
// the paper's 0.01; α stays the paper's 2e-4, so L = 1.32 as in the paper.
// Measured with L-BFGS (1000 iterations) on the demo's 10 test images, mean
// PSNR without a 3-pixel rim (the zero-padded blur darkens the observation's
// rim, which alone costs it about 5 dB over the whole image): with noise
// 0.01 the observation has 30.04 dB and the minimiser 29.58 dB, with 0.0075
// 30.25 and 32.16, with 0.005 30.40 and 34.31 (and 34.31 is within 0.5 dB
// of the best L-BFGS iterate). Keeping noise 0.01 and raising α also works
// (α = 1e-3: minimiser 33.99 dB; 2e-3: 34.40) but changes L. The synthetic
// images are smoother than STL-10 (mean |∇x| 0.040 against 0.075, at a
// similar pixel standard deviation, 0.18 against 0.20), so the blur costs
// them less (observation 30.04 dB against 24.89 dB on 25 STL-10 test
// images) and the minimiser's amplified noise outweighs what deblurring
// gains; on STL-10 with noise 0.01 the minimiser has 26.09 dB.
const demoNoise = 0.005

// demoDefaults are the settings of the full demo (under a minute on two
// cores); quickDefaults those of --quick (seconds, for tests). Both train on
// the paper's N = 25 functions with its λ = μ = 0: with 10 training
// functions the unpenalised M-PC kernels fit the training functions but
// diverge on the test functions within T (mean optimality 2.8e-3 at t = 5,
// 5.0e-2 at t = 15), with 25 they beat L-BFGS up to t = 44.
var (
	demoDefaults = demoConfig{
		Size: 64, NTrain: 25, NTest: 10, Seed: 1, MaxSteps: 100, TolRel: 1e7, RepeatCheck: 200, Noise: demoNoise, Penalty: "0", Safeguard: []string{"m-pc"}, InnerEvals: 100,
		Iters: 300, FStarIters: 3000, TuneIters: 20, ReconIter: 15, FinalIters: 1000, KernelCropSize: 21, HBMu: "rel:1e-4",
	}
	quickDefaults = demoConfig{
		Size: 24, NTrain: 25, NTest: 3, Seed: 1, MaxSteps: 20, TolRel: 1e7, RepeatCheck: 50, Noise: demoNoise, Penalty: "0", Safeguard: []string{"m-pc"}, InnerEvals: 25,
		Iters: 60, FStarIters: 400, TuneIters: 0, ReconIter: 15, FinalIters: 200, KernelCropSize: 21, HBMu: "rel:1e-4",
	}
)

func runDemo(env *Env, args []string) error {
	fs := newFlags(env, "demo", "demo [--out ./l2o-demo] [--size 64] [--n-train 25] [--n-test 10] [--quick] [--seed 1] [--noise 0.005] [--lambda 0] [--safeguard m-pc]")
	out := fs.String("out", "l2o-demo", "output directory of the report and its checkpoints/ (refused if it holds results, unless --force)")
	force := fs.Bool("force", false, "replace the results of an earlier demo in --out")
	size := fs.Int("size", 0, "image size (0: 64, or 24 with --quick)")
	nTrain := fs.Int("n-train", 0, "training functions (0: 25, the paper's number)")
	nTest := fs.Int("n-test", 0, "held-out test functions (0: 10, or 3 with --quick)")
	quick := fs.Bool("quick", false, "a tiny version that runs in seconds (for tests)")
	seed := fs.Int64("seed", 1, "seed of the synthetic images and noise")
	maxSteps := fs.Int("max-steps", 0, "cap on greedy training steps (0: 100, or 20 with --quick)")
	repeat := fs.Int("repeat-check", -1, "stop greedy training at the tolerance only at a step that, repeated this many times, raises no training function's ‖∇f‖ (-1: 200, or 50 with --quick; 0: the paper's rule)")
	iters := fs.Int("iters", 0, "evaluation iterations (0: 300, or 60 with --quick)")
	noise := fs.Float64("noise", demoNoise, "standard deviation of the observation noise (the paper's: 0.01)")
	lambda := fs.String("lambda", "0", "λ = μ schedule of both greedy methods (0: the paper's; e.g. rel:1e-2)")
	safeguard := fs.StringSlice("safeguard", []string{"m-pc"}, "greedy methods (m-pc, m-ps) also evaluated with the safeguard; \"\" for none")
	hbMu := fs.String("hb-mu", demoDefaults.HBMu, hbMuUsage)
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg := demoDefaults
	if *quick {
		cfg = quickDefaults
	}
	if _, _, err := heavyBallMu(*hbMu, 1); err != nil {
		return usagef("--hb-mu: %v", err)
	}
	cfg.Out, cfg.Seed, cfg.Penalty, cfg.HBMu = *out, *seed, *lambda, *hbMu
	if *repeat < -1 || *repeat > 100000 {
		return usagef("--repeat-check %d: use -1 (the default), 0 (off) or a number of repetitions up to 100000", *repeat)
	}
	if *repeat >= 0 {
		cfg.RepeatCheck = *repeat
	}
	var err error
	if cfg.Safeguard, err = demoSafeguards(*safeguard); err != nil {
		return err
	}
	if err := setDemoCounts(&cfg, *size, *nTrain, *nTest, *maxSteps, *iters); err != nil {
		return err
	}
	// The reconstructions and the PSNR column: at iteration 15, or the last
	// of a shorter run.
	cfg.ReconIter = min(cfg.ReconIter, cfg.Iters)
	if !(*noise > 0) || math.IsInf(*noise, 0) {
		return usagef("--noise %g: use a finite value > 0", *noise)
	}
	cfg.Noise = *noise
	if _, err := greedy.ParseSchedule(cfg.Penalty); err != nil {
		return usagef("--lambda: %v", err)
	}
	if cfg.Size > 1024 {
		return usagef("--size %d is too large for a demo: use at most 1024", cfg.Size)
	}
	if cfg.Out == "" {
		return usagef("--out must not be empty")
	}
	lock, err := claimResultsDir(env, "--out", cfg.Out, *force)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	if err := clearResults(cfg.Out, append(reportResults, "checkpoints/")...); err != nil {
		return err
	}
	res, err := demo(env, cfg)
	if err != nil {
		return err
	}
	return printDemo(env, res, cfg.ReconIter)
}

// setDemoCounts sets the demo's size, numbers of functions, step cap and
// iterations from their flags (0: the default), refusing values below each
// one's least.
func setDemoCounts(cfg *demoConfig, size, nTrain, nTest, maxSteps, iters int) error {
	for _, f := range []struct {
		name string
		v    int
		dst  *int
		min  int
	}{{"size", size, &cfg.Size, 21}, {"n-train", nTrain, &cfg.NTrain, 1}, {"n-test", nTest, &cfg.NTest, 1},
		{"max-steps", maxSteps, &cfg.MaxSteps, 1}, {"iters", iters, &cfg.Iters, 1}} {
		if f.v < 0 || (f.v > 0 && f.v < f.min) {
			return usagef("--%s %d: use 0 (the default) or a value of at least %d", f.name, f.v, f.min)
		}
		if f.v > 0 {
			*f.dst = f.v
		}
	}
	return nil
}

// printDemo prints the demo's table, verdict, comparisons, PSNR line and
// the report's path.
func printDemo(env *Env, res *demoResult, reconIter int) error {
	fmt.Fprintln(env.Stdout)
	if err := report.WriteTable(env.Stdout, res.curves, nil, reconIter); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "\n%s\n", res.winner)
	for _, l := range report.BestClassicalLines(res.curves, demoTols) {
		fmt.Fprintln(env.Stdout, l)
	}
	fmt.Fprintf(env.Stdout, "%s\n", res.reconLine)
	fmt.Fprintf(env.Stdout, "\ndemo finished in %.1f s; report: %s\n", res.seconds, res.index)
	return nil
}

// demoResult is what demo produced.
type demoResult struct {
	curves  []*eval.Curve
	index   string
	seconds float64
	// winner is the one-line verdict computed from the curves (demoWinner).
	winner string
	// reconLine gives the PSNRs of the reconstructions.
	reconLine string
}

// reconPSNR is the PSNR of one reconstruction panel, over the whole image
// and inside a rim of demoRim pixels.
type reconPSNR struct {
	Label          string
	PSNR, Interior float64
}

// demoRim is the rim that the interior PSNR leaves out: the zero-padded
// 5×5 blur darkens the observation's outer 2 pixels, which alone costs it
// about 5 dB of whole-image PSNR.
const demoRim = 3

// interiorPSNR is the PSNR of x against truth (h×w) without a rim of r pixels.
func interiorPSNR(x, truth []float64, h, w, r int) float64 {
	var xs, ts []float64
	for i := r; i < h-r; i++ {
		xs = append(xs, x[i*w+r:i*w+w-r]...)
		ts = append(ts, truth[i*w+r:i*w+w-r]...)
	}
	return eval.PSNR(xs, ts)
}

// demoBaselines are the classical methods the demo evaluates: gradient
// descent, heavy ball, NAG, L-BFGS and PGD (with the tuned δ), and the
// stronger baselines silver step sizes, NAG with adaptive restart and
// Barzilai–Borwein (docs/baselines.md).
func demoBaselines(delta float64) []baselines.Method {
	return []baselines.Method{baselines.GradientDescent{}, baselines.HeavyBall{}, baselines.NAG{}, baselines.LBFGS{}, baselines.PreconditionedGD{Delta: delta},
		baselines.SilverGD{}, baselines.RestartNAG{}, baselines.BarzilaiBorwein{}}
}

// demoTols are the tolerances of the winner line.
var demoTols = []float64{1e-4, 1e-6}

// demoWinner says, from the measured curves, which method reaches each
// tolerance in the fewest iterations and which in the least time (ties
// joined by "and").
func demoWinner(curves []*eval.Curve, tols []float64) string {
	var parts []string
	for _, tol := range tols {
		tl := strings.Replace(strconv.FormatFloat(tol, 'e', -1, 64), "e-0", "e-", 1)
		bestIt, bestSec := -1, math.Inf(1)
		var byIt, bySec []string
		for _, c := range curves {
			if it := c.ItersTo(tol); it >= 0 {
				switch {
				case bestIt < 0 || it < bestIt:
					bestIt, byIt = it, []string{c.Method}
				case it == bestIt:
					byIt = append(byIt, c.Method)
				}
			}
			if s := c.SecondsTo(tol); !math.IsNaN(s) {
				switch {
				case s < bestSec:
					bestSec, bySec = s, []string{c.Method}
				case s == bestSec:
					bySec = append(bySec, c.Method)
				}
			}
		}
		if bestIt < 0 {
			parts = append(parts, "no method reaches "+tl)
			continue
		}
		parts = append(parts,
			fmt.Sprintf("fewest iterations to %s: %s (%d)", tl, strings.Join(byIt, " and "), bestIt),
			fmt.Sprintf("least time to %s: %s (%s s)", tl, strings.Join(bySec, " and "), report.FormatSeconds(bestSec)))
	}
	return "winner: " + strings.Join(parts, "; ")
}

// demo trains, evaluates and writes the report.
func demo(env *Env, cfg demoConfig) (*demoResult, error) {
	d := &demoRun{cfg: cfg, began: time.Now()}
	if err := d.functions(env); err != nil {
		return nil, err
	}
	d.trained, d.steps = map[string]*learned.Optimizer{}, map[string]int{}
	for _, name := range []string{"m-pc", "m-ps"} {
		l, err := demoTrain(env, cfg, d.prob, d.train, name, env.trainingProvenance(d.sp, 0))
		if err != nil {
			return nil, err
		}
		d.trained[name], d.steps[name] = l, l.Steps
	}
	if err := d.evaluate(env); err != nil {
		return nil, err
	}
	return d.report(env)
}

// demoRun is the state of one demo.
type demoRun struct {
	cfg         demoConfig
	began       time.Time
	sp          *split
	prob        *problem.Problem
	train, test *problem.Objective
	paperNoise  float64
	trained     map[string]*learned.Optimizer
	steps       map[string]int
	delta       float64
	curves      []*eval.Curve
}

// functions builds the training and test functions at the demo's noise.
func (d *demoRun) functions(env *Env) error {
	cfg := d.cfg
	// Start from the flags' defaults so that fields added to problemFlags
	// keep their default values.
	var pf problemFlags
	pf.add(pflag.NewFlagSet("demo", pflag.ContinueOnError), cfg.NTrain, cfg.NTest)
	pf.Problem, pf.Data, pf.Size, pf.Seed = "deblur", "synthetic", cfg.Size, cfg.Seed
	sp, err := pf.buildSplit(nil)
	if err != nil {
		return err
	}
	d.sp, d.prob, d.train, d.test = sp, sp.prob, sp.train, sp.test
	d.paperNoise = d.prob.Noise
	if cfg.Noise > 0 && cfg.Noise != d.prob.Noise {
		// The demo's own noise level: the same images, observations drawn
		// again with build's noise seeds (offset 0 training, 1 test).
		d.prob.Noise = cfg.Noise
		if d.train, err = d.prob.Instantiate(d.train.Truth, d.train.N, 0); err != nil {
			return err
		}
		if d.test, err = d.prob.Instantiate(d.test.Truth, d.test.N, 1); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	prob := d.prob
	setting := fmt.Sprintf("%s, α = %g, noise %g (the paper's: %g), %s blur boundary", prob.Name, prob.Alpha, prob.Noise, d.paperNoise,
		prob.Conventions[problem.ConventionBlurBoundary])
	fmt.Fprintf(env.Stdout, "l2o demo: %s, %d×%d images, %d training and %d held-out test functions (seed %d) → %s\n",
		setting, prob.H, prob.W, d.train.N, d.test.N, cfg.Seed, cfg.Out)
	return nil
}

// evaluate tunes PGD's δ, computes f* and runs the learned methods as
// Algorithm 2 (the last step's parameters repeated beyond T), their
// safeguarded copies and the baselines.
func (d *demoRun) evaluate(env *Env) error {
	cfg, train, test := d.cfg, d.train, d.test
	d.delta = baselines.DefaultDelta
	if cfg.TuneIters > 0 {
		p := newProgress(env.Stderr, 1, "tuning PGD δ (Nelder–Mead)")
		delta, err := baselines.TuneDelta(train, cfg.TuneIters)
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		d.delta = delta
		p.done(fmt.Sprintf("δ = %.4g", delta))
	}
	p := newProgress(env.Stderr, 1, fmt.Sprintf("f* (%d NAG iterations)", cfg.FStarIters))
	fstar, err := baselines.Optimum(test, cfg.FStarIters, filepath.Join(cfg.Out, "cache"))
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	p.done("cached under " + filepath.Join(cfg.Out, "cache"))
	methods := []baselines.Method{d.trained["m-pc"], d.trained["m-ps"]}
	for _, name := range cfg.Safeguard {
		sg := *d.trained[name]
		sg.Safeguard = 1 / train.L
		sg.Label += " (safeguarded)"
		methods = append(methods, &sg)
	}
	methods = append(methods, demoBaselines(d.delta)...)
	total, done := len(methods)*(cfg.Iters+1), 0
	p = newProgress(env.Stderr, total, fmt.Sprintf("evaluating %d methods", len(methods)))
	d.curves, err = eval.Run(test, fstar, methods, eval.Options{
		Iters: cfg.Iters, PSNRAt: []int{0, cfg.ReconIter, cfg.Iters},
		Progress: func(string, int) { done++; p.set(done) },
	})
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	p.done(fmt.Sprintf("%d iterations each", cfg.Iters))
	return nil
}

// report draws the learned scalars, kernels and reconstructions and writes
// the report with its provenance.
func (d *demoRun) report(env *Env) (*demoResult, error) {
	cfg, prob, train, test := d.cfg, d.prob, d.train, d.test
	winner := demoWinner(d.curves, demoTols)
	recons, psnrs, err := demoReconstructions(test, cfg, []baselines.Method{baselines.LBFGS{}, d.trained["m-ps"], d.trained["m-pc"]})
	if err != nil {
		return nil, err
	}
	var rl []string
	for _, r := range psnrs {
		rl = append(rl, fmt.Sprintf("%s %s/%s", r.Label, report.FormatPSNR(r.PSNR), report.FormatPSNR(r.Interior)))
	}
	reconLine := fmt.Sprintf("PSNR (dB) on test function 1, whole image/without its %d-pixel rim: %s", demoRim, strings.Join(rl, "; "))
	prov := &provenance.Record{Invocation: env.invocation(), Data: d.sp.trainRecord(0), Test: d.sp.testRecord("test", d.sp.sel.TestRefs, ""),
		FStar: fmt.Sprintf("nag(iters=%d)", cfg.FStarIters)}
	prov.Data.Noise, prov.Test.Noise = prob.Noise, prob.Noise // the demo's own level
	rep := &report.Report{
		Provenance:      prov,
		Title:           "l2o demo: greedy learned optimizers on synthetic deblurring",
		Curves:          d.curves,
		PSNRIter:        cfg.ReconIter,
		Reconstructions: recons,
		Notes: []string{
			strings.ToUpper(winner[:1]) + winner[1:] + fmt.Sprintf(" (mean optimality over the %d test functions, %d iterations).", test.N, cfg.Iters),
			fmt.Sprintf("Problem %s (%s, %s, α = %g, noise %g%s) on %d×%d synthetic images; greedy M-PS and M-PC trained on %d functions "+
				"(Algorithm 1: L-BFGS inner solver, at most %d evaluations per step, relative tolerance %g%s, at most %d steps, λ = μ = %s) "+
				"and evaluated as Algorithm 2 (the last step's parameters repeated beyond T; no safeguard%s) with the baselines on %d held-out functions, seed %d.",
				prob.Name, prob.A, prob.Reg, prob.Alpha, prob.Noise, noiseNote(prob.Noise, d.paperNoise), prob.H, prob.W, train.N, cfg.InnerEvals, cfg.TolRel, repeatNote(cfg.RepeatCheck), cfg.MaxSteps,
				cfg.Penalty, safeguardNote(cfg.Safeguard), test.N, cfg.Seed),
			fmt.Sprintf("Trained steps T+1: M-PC %d, M-PS %d. PGD δ = %.4g. f* is the smallest value of %d iterations of NAG with backtracking.",
				d.steps["m-pc"], d.steps["m-ps"], d.delta, cfg.FStarIters),
			reconLine + ".",
			fmt.Sprintf("Built by l2o %s in %.0f s (greedy checkpoints in checkpoints/).", Version, time.Since(d.began).Seconds()),
		},
	}
	for _, name := range []string{"m-ps", "m-pc"} {
		if err := d.addCheckpoint(rep, name); err != nil {
			return nil, err
		}
	}
	index, err := rep.Write(cfg.Out)
	if err != nil {
		return nil, err
	}
	return &demoResult{curves: d.curves, index: index, seconds: time.Since(d.began).Seconds(), winner: winner, reconLine: reconLine}, nil
}

// addCheckpoint draws the θt, φt (M-PS, with the heavy-ball reference for
// the checkpoint's L and --hb-mu's μ) or kernels (M-PC) of the demo's
// checkpoint of name, read back from checkpoints/NAME, as l2o report
// --params does: the same figures, captions, scalars.csv and sources.
func (d *demoRun) addCheckpoint(rep *report.Report, name string) error {
	dir := filepath.Join(d.cfg.Out, "checkpoints", name)
	l, man, err := learned.Load(dir)
	if err != nil {
		return fmt.Errorf("demo: reading back the checkpoint %s: %w", dir, err)
	}
	return addLearned(rep, l, man, dir, &reportOpts{hbMu: d.cfg.HBMu, kernelCrop: d.cfg.KernelCropSize})
}

// noiseNote explains the demo's noise level in the report's notes.
func noiseNote(noise, paper float64) string {
	if noise == paper {
		return ": the paper's α and noise"
	}
	if noise == demoNoise {
		return fmt.Sprintf(": the paper's α, half its noise %g, because with noise %g the minimiser's PSNR on these smooth synthetic images "+
			"is below the observation's once the observation's dark rim is left out", paper, paper)
	}
	return fmt.Sprintf(": the paper's α, noise %g instead of its %g", noise, paper)
}

// safeguardNote names the safeguarded copies in the report's notes.
func safeguardNote(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return "; the safeguarded " + strings.Join(names, " and ") + " shown as well"
}

// demoTrain trains one greedy method with checkpoints in
// cfg.Out/checkpoints/NAME (replacing an earlier run there).
func demoTrain(env *Env, cfg demoConfig, prob *problem.Problem, train *problem.Objective, name string, prov *provenance.Record) (*learned.Optimizer, error) {
	method, err := models.ParseMethod(name)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(cfg.Out, "checkpoints", name)
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("demo: removing the previous checkpoint %s: %w", dir, err)
	}
	pen, err := greedy.ParseSchedule(cfg.Penalty)
	if err != nil {
		return nil, fmt.Errorf("demo: penalty of %s: %w", name, err)
	}
	p := newProgress(env.Stderr, cfg.MaxSteps, "training greedy "+name)
	res, err := greedy.Train(train, greedy.Config{
		Problem: greedy.Problem{Name: prob.Name, DataHash: dataHash(train), Seed: cfg.Seed, Provenance: prov},
		Method:  greedy.Method{Param: method, Lambda: pen, Mu: pen},
		Solver:  greedy.Solver{Inner: greedy.LBFGS{MaxEvaluations: cfg.InnerEvals}},
		Stop: greedy.Stop{
			TolRel:      cfg.TolRel,
			MaxSteps:    cfg.MaxSteps,
			RepeatCheck: cfg.RepeatCheck,
		},
		Store:  greedy.Store{Dir: dir, KeepParams: true},
		Record: greedy.Record{Progress: func(s checkpoint.StepInfo) { p.set(s.T + 1) }},
	})
	if err != nil {
		return nil, fmt.Errorf("demo: training %s: %w", name, err)
	}
	p.done(fmt.Sprintf("%d steps, %s", len(res.Steps), res.StopCause))
	l, err := learned.New("greedy "+name, method, train.H, train.W, res.Theta, res.Phi)
	if err != nil {
		return nil, err
	}
	l.Problem, l.Conventions = train.Problem, train.Conventions
	return l, nil
}

// demoReconstructions returns the ground truth, the observation, the
// iterates of methods at iteration cfg.ReconIter and the minimiser (L-BFGS
// after cfg.FinalIters iterations) for the first test function, and the
// PSNRs of all but the ground truth.
func demoReconstructions(test *problem.Objective, cfg demoConfig, methods []baselines.Method) ([]report.Panel, []reconPSNR, error) {
	one, err := test.Subset([]int{0})
	if err != nil {
		return nil, nil, err
	}
	h, w := one.H, one.W
	var psnrs []reconPSNR
	panel := func(label string, x []float64) report.Panel {
		if one.Truth != nil {
			p := eval.PSNR(x, one.Truth)
			psnrs = append(psnrs, reconPSNR{Label: label, PSNR: p, Interior: interiorPSNR(x, one.Truth, h, w, demoRim)})
			label = fmt.Sprintf("%s\n%s dB", label, report.FormatPSNR(p))
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
			return nil, nil, err
		}
		out = append(out, panel(fmt.Sprintf("%s, t = %d", m.Name(), cfg.ReconIter), x))
	}
	x, err := run(baselines.LBFGS{}, cfg.FinalIters)
	if err != nil {
		return nil, nil, err
	}
	return append(out, panel(fmt.Sprintf("minimiser (L-BFGS, t = %d)", cfg.FinalIters), x)), psnrs, nil
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

// demoSafeguards parses the demo's --safeguard list.
func demoSafeguards(list []string) ([]string, error) {
	var out []string
	for _, name := range list {
		switch name {
		case "":
		case "m-pc", "m-ps":
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		default:
			return nil, usagef("--safeguard %s: use m-pc, m-ps or \"\"", name)
		}
	}
	return out, nil
}

// repeatNote describes the demo's repeat check for the report.
func repeatNote(k int) string {
	if k == 0 {
		return ""
	}
	return fmt.Sprintf(" met at a step that, repeated %d times, raises no training function's ‖∇f‖ (--repeat-check)", k)
}

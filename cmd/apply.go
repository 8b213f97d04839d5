package cmd

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"

	"github.com/greedyl2o/greedyl2o/banert"
	"github.com/greedyl2o/greedyl2o/learned"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/greedy"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/provenance"
	"github.com/greedyl2o/greedyl2o/report"
)

func init() {
	register(&Command{Name: "apply", Summary: "run a learned optimizer (Algorithm 2) on new functions", Run: runApply})
	register(&Command{Name: "eval", Summary: "compare learned optimizers and baselines on a test set (CSV/JSON curves)", Run: runEval})
}

// cacheHelp documents --cache.
const cacheHelp = "directory of the f* cache: one file per test set, named by the SHA-256 of its functions' data and starting points, operator, regularizer, α, size and the f* method and iterations, so a changed function never reuses a stale f*; safe to delete"

func defaultCacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "greedyl2o")
	}
	return filepath.Join(os.TempDir(), "greedyl2o-cache")
}

func runApply(env *Env, args []string) error {
	var pf problemFlags
	fs := newFlags(env, "apply", "apply --params DIR [--data DIR|synthetic] [--iters 200] [--out DIR --save-at 15,50,final]")
	pf.add(fs, -1, 10)
	params := fs.String("params", "", "greedy checkpoint directory")
	iters := fs.Int("iters", 200, "iterations to run")
	tol := fs.Float64("tol", 0, "stop early when every ‖∇fk‖ < tol (0: run all iterations)")
	guard := addSafeguardFlag(fs, false, "safeguard the learned steps with a gradient step of size τ: decrease (a bare --safeguard) replaces a step that raises f (monotone), bgd one that does worse than the gradient step (∇f → 0 whatever was learned; one more f per iteration); Algorithm 2 as published without it")
	precision := addPrecisionFlag(fs)
	out := fs.String("out", "", "folder for the iterates of --save-at (refused if it holds results, unless --force)")
	saveAt := fs.StringSlice("save-at", []string{"final"}, "with --out: iterations (or final) whose iterates are written as x_tNNNN.npy (N×H×W) and one PNG per function, with their PSNR and SSIM in saved.json")
	force := fs.Bool("force", false, "replace the results already in --out")
	if err := parse(fs, optionalValue(args, "safeguard")); err != nil {
		return err
	}
	if *params == "" {
		return usagef("--params is required")
	}
	if fs.Changed("save-at") && *out == "" {
		return usagef("--save-at needs --out DIR")
	}
	if err := pf.cpu32(fs, precision); err != nil {
		return err
	}
	prec, err := problem.ParsePrecision(*precision)
	if err != nil {
		return usagef("--precision: %v", err)
	}
	if *iters < 1 {
		return usagef("--iters must be at least 1")
	}
	info, err := loadLearned(*params)
	if err != nil {
		return err
	}
	run := info.Method
	guarded := len(guard.rules) > 0
	if guarded {
		g, ok := safeguardedBy(info, guard.rules[0])
		if !ok {
			return usagef("--safeguard: %s has no gradient-step fallback (Banert's method is safeguarded by construction)", *params)
		}
		run = g
	}
	if err := pf.adoptTrained(fs, []*LearnedInfo{info}, []string{*params}); err != nil {
		return err
	}
	if pf.Size == 0 {
		pf.Size = info.H
	}
	pf.acceptsOps = true
	held, err := pf.adoptData(env, fs, []*LearnedInfo{info}, []string{*params})
	if err != nil {
		return err
	}
	sp, testRec, err := pf.evalSplit(held, "test")
	if err != nil {
		return err
	}
	test := sp.test
	noteSkipped(env, sp)
	if err := checkTrained([]*LearnedInfo{info}, []string{*params}, test); err != nil {
		return err
	}
	if pf.deviceOps != nil {
		if prec != problem.Float64 {
			return usagef("--device %s computes in the device's precision: drop --precision %s", pf.Device, prec)
		}
		switch l := run.(type) {
		case *learned.Optimizer:
			if err := greedy.CheckDevice(l.Method, test); err != nil {
				return usagef("--device %s: %v", pf.Device, err)
			}
			c := *l
			c.Device = pf.deviceOps
			run = &c
		case *banert.Method:
			if err := banert.CheckDevice(pf.deviceOps, test, l.Net.Inputs); err != nil {
				return usagef("--device %s: %v", pf.Device, err)
			}
			c := *l
			c.Device = pf.deviceOps
			run = &c
		default:
			return usagef("--device %s: %s is not a greedy, unrolled or Banert optimizer; use --device cpu", pf.Device, *params)
		}
	}
	if err := checkTrainedSize([]*LearnedInfo{info}, []string{*params}, test); err != nil {
		return err
	}
	noteUnverified(env, []*LearnedInfo{info}, []string{*params})
	runOn, err := test.InPrecision(prec)
	if err != nil {
		return usagef("--precision %s: %v", prec, err)
	}
	it, err := run.Start(runOn)
	if c, ok := it.(io.Closer); ok && err == nil {
		defer c.Close()
	}
	if err != nil {
		return asUsage(err)
	}
	var saver *applySaver
	if *out != "" {
		lock, err := claimResultsDir(env, "--out", *out, *force)
		if err != nil {
			return err
		}
		defer lock.Unlock()
		if saver, err = newApplySaver(*out, test, *saveAt); err != nil {
			return err
		}
		for _, r := range testRec.Images {
			saver.names = append(saver.names, r.Name)
		}
	}
	vals := make([]float64, test.N)
	grad := make([]float64, len(test.X0))
	fmt.Fprintf(env.Stdout, "%s on %d test functions (%s evaluations)\n", run.Name(), test.N, prec)
	fmt.Fprintf(env.Stdout, "%6s %14s %14s\n", "iter", "mean f", "max‖∇f‖")
	row := func(t int, x []float64) (float64, error) {
		if err := test.Eval(vals, grad, x, nil); err != nil {
			return 0, err
		}
		for _, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, baselines.ErrDiverged
			}
		}
		var mean, gmax float64
		hw := test.ImageLen()
		for k, v := range vals {
			mean += v / float64(test.N)
			var s float64
			for _, g := range grad[k*hw : (k+1)*hw] {
				s += g * g
			}
			gmax = max(gmax, s)
		}
		gmax = sqrt(gmax)
		if t%10 == 0 || t < 10 {
			fmt.Fprintf(env.Stdout, "%6d %14.8g %14.6g\n", t, mean, gmax)
		}
		return gmax, nil
	}
	if _, err := row(0, test.X0); err != nil {
		return err
	}
	if err := saver.save(0, test.X0, false); err != nil {
		return err
	}
	steps := *iters
	last, lastT := test.X0, 0
	defer func() {
		if err := saver.save(lastT, last, true); err == nil && saver != nil {
			fmt.Fprintf(env.Stdout, "iterates saved in %s (saved.json lists them with their PSNR and SSIM)\n", *out)
		}
	}()
	for t := 1; t <= *iters; t++ {
		err := it.Next()
		var g float64
		if err == nil {
			g, err = row(t, it.X())
		}
		if err == nil && saver != nil {
			last, lastT = append(make([]float64, 0, len(last)), it.X()...), t
			err = saver.save(t, last, false)
		}
		if errors.Is(err, baselines.ErrDiverged) {
			// A diverging learned optimizer is a result, not a failure.
			fmt.Fprintf(env.Stdout, "%s diverged at iteration %d (a value, iterate or gradient left the finite numbers)", run.Name(), t)
			if !guarded {
				fmt.Fprint(env.Stdout, "; --safeguard keeps it monotone")
			}
			fmt.Fprintln(env.Stdout)
			return nil
		}
		if err != nil {
			return err
		}
		if *tol > 0 && g < *tol {
			fmt.Fprintf(env.Stdout, "every ‖∇fk‖ < %g after %d iterations\n", *tol, t)
			steps = t
			break
		}
	}
	if r, ok := it.(interface{ Rejected() int }); ok && guarded {
		fmt.Fprintf(env.Stdout, "the safeguard (%s) replaced %d of %d learned steps by gradient steps\n", guard.rules[0], r.Rejected(), steps*test.N)
	}
	if a, ok := it.(interface{ Acceptance() []float64 }); ok && guarded {
		if acc := a.Acceptance(); len(acc) > 0 {
			c := &eval.Curve{Iter: make([]int, len(acc)+1), Accepted: append([]float64{math.NaN()}, acc...)}
			for i := range c.Iter {
				c.Iter[i] = i
			}
			fmt.Fprintf(env.Stdout, "learned steps accepted %s\n", report.AcceptanceAt(c))
		}
	}
	return nil
}

// evalResults are the files and folders eval writes in --out.
var evalResults = []string{"curves.csv", "curves.json", "breakeven.json", "shift/", "shift.md", "recon/"}

// writeCurves writes curves.csv (with the provenance as header comments)
// and curves.json (with the provenance) into dir.
func writeCurves(dir string, curves []*eval.Curve, prov *provenance.Record) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "curves.csv"))
	if err != nil {
		return err
	}
	var header []string
	if prov != nil {
		header = prov.Lines()
	}
	if err := eval.WriteCSVWith(f, curves, header); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	j, err := os.Create(filepath.Join(dir, "curves.json"))
	if err != nil {
		return err
	}
	if err := eval.WriteJSONWith(j, curves, prov); err != nil {
		j.Close()
		return err
	}
	return j.Close()
}

// checkTrainedSize refuses trained parameters whose image size differs
// from that of the functions they are to run on (exit 2).
func checkTrainedSize(infos []*LearnedInfo, dirs []string, o *problem.Objective) error {
	for i, info := range infos {
		if info.H > 0 && (info.H != o.H || info.W != o.W) {
			return usagef("--params %s was trained on %d×%d images, the functions are %d×%d: a learned optimizer is bound to its image size; drop --size or use data of that size", dirs[i], info.H, info.W, o.H, o.W)
		}
	}
	return nil
}

// evalProgress reports eval.Run's progress on m: the method (k of n), the
// iteration and an estimate of the time left for that method.
func evalProgress(m *meter, methods []baselines.Method, iters, nFuncs int) func(string, int) {
	k := 0
	var began time.Time
	return func(name string, it int) {
		if it == 0 {
			k++
			began = time.Now()
			return
		}
		el := time.Since(began)
		if it == iters {
			m.done("eval: %s (%d of %d): %d iterations on %d functions in %s", name, k, len(methods), iters, nFuncs, shortDuration(el))
			return
		}
		m.update("eval: %s (method %d of %d): iteration %d of %d on %d functions, %s left for it", name, k, len(methods), it, iters, nFuncs, eta(it, iters, el))
	}
}

// optimumProgress is optimum with progress on m.
func optimumProgress(env *Env, m *meter, test *problem.Objective, method string, iters int, cache string) ([]float64, error) {
	start := time.Now()
	ran := false
	fstar, err := optimumWith(test, method, iters, cache, func(t, n int) {
		ran = true
		m.update("f*: %s iteration %d of at most %d on %d functions, %s left", method, t, n, test.N, eta(t, n, time.Since(start)))
	})
	if err == nil && ran {
		m.done("f*: %d %s iterations on %d functions in %s (cached in %s)", iters, method, test.N, shortDuration(time.Since(start)), cache)
	}
	return fstar, err
}

func printSummary(env *Env, curves []*eval.Curve, tols []float64) {
	width := 22
	for _, c := range curves {
		width = max(width, utf8.RuneCountInString(c.Method))
	}
	fmt.Fprintf(env.Stdout, "%-*s", width, "method")
	for _, tol := range tols {
		fmt.Fprintf(env.Stdout, " %9s %9s", fmt.Sprintf("it@%.0e", tol), fmt.Sprintf("s@%.0e", tol))
	}
	fmt.Fprintf(env.Stdout, " %12s\n", "final F")
	for _, c := range curves {
		fmt.Fprintf(env.Stdout, "%-*s", width, c.Method)
		for _, tol := range tols {
			it := c.ItersTo(tol)
			if it < 0 {
				fmt.Fprintf(env.Stdout, " %9s %9s", "—", "—")
			} else {
				fmt.Fprintf(env.Stdout, " %9d %9.3f", it, c.SecondsTo(tol))
			}
		}
		if c.Diverged() {
			fmt.Fprintf(env.Stdout, " %s\n", c.Status())
		} else {
			fmt.Fprintf(env.Stdout, " %12.3g\n", c.Mean[len(c.Mean)-1])
		}
	}
	fmt.Fprintln(env.Stdout, report.Winner(curves, tols))
	for _, l := range report.BestClassicalLines(curves, tols) {
		fmt.Fprintln(env.Stdout, l)
	}
	for _, l := range report.SafeguardLines(curves) {
		fmt.Fprintln(env.Stdout, l)
	}
}

// optimum estimates f* of the test functions with the named method ("nag"
// or "lbfgs"), cached in cache.
func optimum(test *problem.Objective, method string, iters int, cache string) ([]float64, error) {
	return optimumWith(test, method, iters, cache, nil)
}

func optimumWith(test *problem.Objective, method string, iters int, cache string, progress func(t, n int)) ([]float64, error) {
	if method != "nag" && method != "lbfgs" {
		return nil, usagef("--fstar-method must be nag or lbfgs, got %q", method)
	}
	m, err := baselines.ParseMethod(method)
	if err != nil {
		return nil, asUsage(err)
	}
	return baselines.OptimumProgress(test, m, iters, cache, progress)
}

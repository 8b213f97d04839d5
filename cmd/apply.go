package cmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/provenance"
	"github.com/greedyl2o/greedyl2o/report"
	"github.com/spf13/pflag"
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

// evalResults are the files and folders eval writes in --out.
var evalResults = []string{"curves.csv", "curves.json", "breakeven.json", "shift/", "shift.md", "recon/"}

// writeCurves writes curves.csv (with the provenance as header comments)
// and curves.json (with the provenance) into dir.
func writeCurves(dir string, curves []*eval.Curve, prov *provenance.Record) error {
	var header []string
	if prov != nil {
		header = prov.Lines()
	}
	if err := checkpoint.WriteAtomic(filepath.Join(dir, "curves.csv"), func(w io.Writer) error { return eval.WriteCSVWith(w, curves, header) }); err != nil {
		return err
	}
	return checkpoint.WriteAtomic(filepath.Join(dir, "curves.json"), func(w io.Writer) error { return eval.WriteJSONWith(w, curves, prov) })
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

// checkTrainedSizeFlag refuses, before the functions are built, a --size
// of synthetic functions other than a checkpoint's image size
// (checkTrainedSize, which checks the functions once built).
func (p *problemFlags) checkTrainedSizeFlag(fs *pflag.FlagSet, infos []*LearnedInfo, dirs []string) error {
	if !fs.Changed("size") || p.Data != "synthetic" {
		return nil
	}
	for i, info := range infos {
		if info.H > 0 && (info.H != p.Size || info.W != p.Size) {
			return usagef("--params %s was trained on %d×%d images, --size asks for %d×%d: a learned optimizer is bound to its image size; drop --size or use data of that size", dirs[i], info.H, info.W, p.Size, p.Size)
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
	if cache != "" {
		if err := os.MkdirAll(cache, 0o755); err != nil {
			return nil, usagef("--cache %s: %v: give a folder the f* cache can be written to", cache, err)
		}
	}
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

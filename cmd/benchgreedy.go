package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/bench"
	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/greedy"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/param"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/provenance"
)

func init() {
	register(&Command{Name: "bench greedy", Summary: "greedy training at the paper's scale: time per step, steps, memory, test optimality", Run: runBenchGreedy})
}

func runBenchGreedy(env *Env, args []string) error {
	var pf problemFlags
	var vf validationFlags
	var sf solverFlags
	var protocol string
	fs := newFlags(env, "bench greedy", "bench greedy [--data ../shared/data/stl10] [--params m-ps,m-pc] [--inner lbfgs,nag] [--safeguard decrease,bgd]")
	pf.add(fs, 25, 100)
	params := fs.StringSlice("params", []string{"m-ps", "m-pc"}, "methods to train")
	inners := fs.StringSlice("inner", []string{"lbfgs", "nag"}, "inner solvers")
	maxSteps := fs.Int("max-steps", 150, "cap on training steps (lbfgs)")
	nagSteps := fs.Int("nag-steps", 3, "steps to time for the nag inner solver (it is slow; 0 trains it fully)")
	tolRel := fs.Float64("tol-rel", 1e7, "relative training tolerance")
	evalAt := fs.IntSlice("at", []int{15, 60, 200}, "test iterations to report")
	guard := addSafeguardFlag(fs, true, "also evaluate each learned optimizer safeguarded by a gradient step of size τ under each rule listed, as eval does: decrease (a bare --safeguard) replaces a step that raises f, bgd one that does worse than the gradient step")
	target := fs.Float64("target", 1e-7, "test optimality whose first iteration and time are reported")
	evalIters := fs.Int("iters", 0, "test iterations to run (0: the largest --at)")
	fstarIters := fs.Int("fstar-iters", 2000, "NAG iterations for f* of the test set")
	fstarMethod := fs.String("fstar-method", "nag", "method whose lowest values estimate f*: nag, or lbfgs (far fewer iterations for the CT problems)")
	lambda := fs.String("lambda", "0", "λt schedule")
	mu := fs.String("mu", "0", "μt schedule")
	out := fs.String("out", "runs/bench-greedy", "directory for checkpoints and curves")
	cache := fs.String("cache", defaultCacheDir(), cacheHelp)
	force := fs.Bool("force", false, "replace the results a previous run left in --out (its checkpoints and curves)")
	precision := addPrecisionFlag(fs)
	sf.add(fs)
	addProtocol(fs, &protocol)
	vf.add(fs)
	if err := parse(fs, optionalValue(args, "safeguard")); err != nil {
		return err
	}
	preset, err := applyProtocol(fs, protocol, pf.Problem)
	if err != nil {
		return err
	}
	if preset != nil {
		fmt.Fprintf(env.Stdout, "protocol %s: %s\n", protocol, strings.Join(preset, " "))
	}
	if err := vf.validate(); err != nil {
		return err
	}
	if *maxSteps < 1 || len(*evalAt) == 0 {
		return usagef("--max-steps must be ≥ 1 and --at non-empty")
	}
	if !(*target > 0 && *target < 1) {
		return usagef("--target must be in (0, 1), got %g", *target)
	}
	if *evalIters < 0 || *fstarIters < 1 {
		return usagef("--iters must be ≥ 0 and --fstar-iters ≥ 1")
	}
	lam, err := greedy.ParseSchedule(*lambda)
	if err != nil {
		return usagef("--lambda: %v", err)
	}
	if err := pf.cpu32(fs, precision); err != nil {
		return err
	}
	prec, err := greedy.ParsePrecision(*precision)
	if err != nil {
		return usagef("--precision: %v", err)
	}
	lock, err := claimResultsDir(env, "--out", *out, *force)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	if err := clearResults(*out, "curves.csv", "curves.json"); err != nil {
		return err
	}
	muS, err := greedy.ParseSchedule(*mu)
	if err != nil {
		return usagef("--mu: %v", err)
	}
	pf.NTrain += vf.NVal
	sp, err := pf.buildSplit(nil)
	if err != nil {
		return err
	}
	prob, train, test := sp.prob, sp.train, sp.test
	prov := &provenance.Record{Invocation: env.invocation(), Data: sp.trainRecord(vf.NVal)}
	if test != nil {
		prov.Test = sp.testRecord("test", sp.sel.TestRefs, "")
		prov.FStar = fmt.Sprintf("%s(iters=%d)", *fstarMethod, *fstarIters)
	}
	pf.NTrain -= vf.NVal
	train, val, err := splitValidation(train, vf.NVal)
	if err != nil {
		return err
	}
	for _, p := range *params {
		method, err := param.ParseMethod(p)
		if err != nil {
			return asUsage(err)
		}
		if err := greedy.CheckPrecision(method, train, prec); err != nil {
			return usagef("--precision %s: %v", prec, err)
		}
	}
	vec := ""
	if prec == greedy.Float32 {
		vec = ", scalar loops"
		if problem.VectorKernels() {
			vec = ", vector kernels"
		}
	}
	fmt.Fprintf(env.Stdout, "Problem %s, %d×%d, %d training and %d test functions from %s, GOMAXPROCS %d, %s%s\n",
		prob.Name, prob.H, prob.W, pf.NTrain, pf.NTest, pf.Data, runtime.GOMAXPROCS(0), prec, vec)
	var fstar []float64
	mt := newMeter(env.Stderr)
	if test != nil {
		t0 := time.Now()
		if fstar, err = optimumProgress(env, mt, test, *fstarMethod, *fstarIters, *cache); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "f* of the test set from %d %s iterations: %.1f s (cached in %s)\n", *fstarIters, *fstarMethod, time.Since(t0).Seconds(), *cache)
	}
	iters := *evalIters
	for _, a := range *evalAt {
		iters = max(iters, a)
	}
	var all []*eval.Curve
	tgt := fmt.Sprintf("its→%g", *target)
	secTgt := fmt.Sprintf("s→%g", *target)
	fmt.Fprintf(env.Stdout, "\n%-6s %-6s %6s %10s %8s %10s %10s %10s", "method", "inner", "steps", "s/step", "evals", "RSS@10", "RSS@40", "RSS@80")
	for _, a := range *evalAt {
		fmt.Fprintf(env.Stdout, " %10s", fmt.Sprintf("F@%d", a))
	}
	fmt.Fprintf(env.Stdout, " %10s %10s", tgt, secTgt)
	fmt.Fprintln(env.Stdout)
	for _, p := range *params {
		method, err := param.ParseMethod(p)
		if err != nil {
			return asUsage(err)
		}
		for _, in := range *inners {
			inner, err := sf.solver(in, method)
			if err != nil {
				return err
			}
			steps := *maxSteps
			if in == "nag" && *nagSteps > 0 {
				steps = *nagSteps
			}
			dir := filepath.Join(*out, p+"-"+in)
			os.RemoveAll(dir)
			rssAt := map[int]int64{}
			var evals int
			runtime.GC()
			began := time.Now()
			res, err := greedy.Train(train, greedy.Config{
				Method: method, Inner: inner, TolRel: *tolRel, Lambda: lam, Mu: muS, NoPrecond: !sf.Precond, WarmStart: sf.warmStart(), Protocol: protocol, MaxSteps: steps, Dir: dir, Precision: prec,
				Problem: prob.Name, DataHash: dataHash(train), Seed: pf.Seed, Provenance: prov, Validation: val, WeightScales: vf.Scales, ValLookahead: vf.Lookahead, StopOnValidation: vf.StopOn == "validation", ValPatience: vf.Patience,
				Progress: func(s checkpoint.StepInfo) {
					evals += s.Evaluations
					if s.T+1 == 10 || s.T+1 == 40 || s.T+1 == 80 {
						rss, _, _ := bench.RSS() // 0 where /proc is missing
						rssAt[s.T+1] = rss
					}
					mt.update("bench: %s/%s step %d of at most %d: loss %.6g, %d evals in %.2f s; %s elapsed, at most %s left", p, in, s.T+1, steps, s.Loss, s.Evaluations, s.Seconds,
						shortDuration(time.Since(began)), eta(s.T+1, steps, time.Since(began)))
				},
			})
			if err != nil {
				return err
			}
			mt.done("bench: %s/%s trained: %d steps in %s (%s)", p, in, len(res.Steps), shortDuration(time.Since(began)), res.StopCause)
			var secs float64
			for _, s := range res.Steps {
				secs += s.Seconds
			}
			n := len(res.Steps)
			stepsCol := strconv.Itoa(n)
			if res.StopCause != "tolerance reached" {
				stepsCol = ">" + stepsCol
			}
			mb := func(t int) string {
				if v, ok := rssAt[t]; ok {
					return fmt.Sprintf("%.0f MB", float64(v)/1e6)
				}
				return "—"
			}
			fmt.Fprintf(env.Stdout, "%-6s %-6s %6s %10.3f %8.0f %10s %10s %10s", p, in, stepsCol, secs/float64(n), float64(evals)/float64(n), mb(10), mb(40), mb(80))
			if test != nil {
				learned, man, err := learned.Load(dir)
				if err != nil {
					return err
				}
				ms := []baselines.Method{learned}
				var rules []string
				for _, rule := range guard.rules {
					if g, ok := safeguardedBy(&LearnedInfo{Method: learned, Tau: man.Tau}, rule); ok {
						ms = append(ms, g)
						rules = append(rules, rule)
					}
				}
				curves, err := eval.Run(test, fstar, ms, eval.Options{Iters: iters, Precision: prec, Progress: evalProgress(mt, ms, iters, test.N)})
				if err != nil {
					return err
				}
				curves[0].Method = "greedy " + p + "/" + in
				printTail(env, curves[0], *evalAt, *target)
				all = append(all, curves[0])
				for i, c := range curves[1:] {
					c.Method = "greedy " + p + "/" + in + benchGuardSuffix(rules[i])
					fmt.Fprintf(env.Stdout, "\n%-6s %-6s %6s %10s %8s %10s %10s %10s", "", benchGuardLabel(rules[i]), "", "", "", "", "", "")
					printTail(env, c, *evalAt, *target)
					all = append(all, c)
				}
			}
			fmt.Fprintln(env.Stdout)
		}
	}
	if test != nil {
		base := []baselines.Method{baselines.NAG{}, baselines.LBFGS{}}
		curves, err := eval.Run(test, fstar, base, eval.Options{Iters: iters, Precision: prec, Progress: evalProgress(mt, base, iters, test.N)})
		if err != nil {
			return err
		}
		for _, c := range curves {
			fmt.Fprintf(env.Stdout, "%-6s %-6s %6s %10s %8s %10s %10s %10s", c.Method, "", "", "", "", "", "", "")
			printTail(env, c, *evalAt, *target)
			fmt.Fprintln(env.Stdout)
		}
		all = append(all, curves...)
		if err := writeCurves(*out, all, prov); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "curves (mean/min/max optimality per iteration and per second): %s\n", filepath.Join(*out, "curves.csv"))
	}
	return nil
}

// printTail prints a curve's mean optimality at the iterations in at, and the
// first iteration and time at which it reaches target ("—" if never).
func printTail(env *Env, c *eval.Curve, at []int, target float64) {
	for _, a := range at {
		if a < len(c.Mean) {
			fmt.Fprintf(env.Stdout, " %10.3g", c.Mean[a])
		} else {
			fmt.Fprintf(env.Stdout, " %10s", "—")
		}
	}
	if it := c.ItersTo(target); it >= 0 {
		fmt.Fprintf(env.Stdout, " %10d %10.2f", it, c.SecondsTo(target))
	} else {
		fmt.Fprintf(env.Stdout, " %10s %10s", "—", "—")
	}
}

// benchGuardSuffix ends the name of a learned optimizer's curve safeguarded
// by rule, as eval names it (report.MethodStyle draws it dotted).
func benchGuardSuffix(rule string) string {
	if rule == learned.SafeguardBGD {
		return " (safeguarded bgd)"
	}
	return " (safeguarded)"
}

// benchGuardLabel is the inner-solver column of a safeguarded row: +guard
// for the decrease rule (as before rules existed), +bgd for the BGD rule.
func benchGuardLabel(rule string) string {
	if rule == learned.SafeguardBGD {
		return "+bgd"
	}
	return "+guard"
}

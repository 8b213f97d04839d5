package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/bench"
	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/greedy"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/provenance"
	"github.com/greedyl2o/greedyl2o/steploss"
	"github.com/spf13/pflag"
)

func init() {
	register(&Command{Name: "bench greedy", Summary: "greedy training at the paper's scale: time per step, steps, memory, test optimality", Run: runBenchGreedy})
}

func runBenchGreedy(env *Env, args []string) error {
	c := &benchGreedyCmd{}
	fs := c.define(env)
	if err := parse(fs, optionalValue(args, "safeguard")); err != nil {
		return err
	}
	if err := c.check(env, fs); err != nil {
		return err
	}
	lock, err := claimResultsDir(env, "--out", *c.out, *c.force)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	if err := clearResults(*c.out, "curves.csv", "curves.json"); err != nil {
		return err
	}
	if err := c.functions(env); err != nil {
		return err
	}
	c.header(env)
	for _, p := range *c.params {
		for _, in := range *c.inners {
			if err := c.trainOne(env, p, in); err != nil {
				return err
			}
		}
	}
	return c.baselines(env)
}

// benchGreedyCmd is `l2o bench greedy`: its flags and its state.
type benchGreedyCmd struct {
	pf                            problemFlags
	vf                            validationFlags
	sf                            solverFlags
	protocol                      string
	params, inners                *[]string
	maxSteps, nagSteps, evalIters *int
	fstarIters                    *int
	evalAt                        *[]int
	tolRel, target                *float64
	fstarMethod, lambda, mu       *string
	reductionFlag                 string
	out, cache                    *string
	force                         *bool
	guard                         *safeguardFlag
	lam, mu2                      greedy.Schedule
	reduction                     greedy.Reduction
	methods                       map[string]models.Method // --params, parsed
	prec                          steploss.Precision
	prob                          *problem.Problem
	train, val, test              *problem.Objective
	prov                          *provenance.Record
	fstar                         []float64
	iters                         int
	mt                            *meter
	all                           []*eval.Curve
}

// define declares the flags.
func (c *benchGreedyCmd) define(env *Env) *pflag.FlagSet {
	fs := newFlags(env, "bench greedy", "bench greedy [--data ../shared/data/stl10] [--params m-ps,m-pc] [--inner lbfgs,nag] [--safeguard decrease,bgd]")
	c.pf.add(fs, 25, 100)
	c.params = fs.StringSlice("params", []string{"m-ps", "m-pc"}, "methods to train")
	c.inners = fs.StringSlice("inner", []string{"lbfgs", "nag"}, "inner solvers")
	c.maxSteps = fs.Int("max-steps", 150, "cap on training steps (lbfgs)")
	c.nagSteps = fs.Int("nag-steps", 3, "steps to time for the nag inner solver (it is slow; 0 trains it fully)")
	c.tolRel = fs.Float64("tol-rel", 1e7, "relative training tolerance")
	c.evalAt = fs.IntSlice("at", []int{15, 60, 200}, "test iterations to report")
	c.guard = addSafeguardFlag(fs, true, "also evaluate each learned optimizer safeguarded by a gradient step of size τ under each rule listed, as eval does: decrease (a bare --safeguard) replaces a step that raises f, bgd one that does worse than the gradient step")
	c.target = fs.Float64("target", 1e-7, "test optimality whose first iteration and time are reported")
	c.evalIters = fs.Int("iters", 0, "test iterations to run (0: the largest --at)")
	c.fstarIters = fs.Int("fstar-iters", 2000, "NAG iterations for f* of the test set")
	c.fstarMethod = fs.String("fstar-method", "nag", "method whose lowest values estimate f*: nag, or lbfgs (far fewer iterations for the CT problems)")
	c.lambda = fs.String("lambda", "0", "λt schedule")
	c.mu = fs.String("mu", "0", "μt schedule")
	addLossReduction(fs, &c.reductionFlag)
	c.out = fs.String("out", "runs/bench-greedy", "directory for checkpoints and curves")
	c.cache = fs.String("cache", defaultCacheDir(), cacheHelp)
	c.force = fs.Bool("force", false, "replace the results a previous run left in --out (its checkpoints and curves)")
	c.pf.addPrecision(fs)
	c.sf.add(fs)
	addProtocol(fs, &c.protocol)
	c.vf.add(fs)
	return fs
}

// check validates the flags.
func (c *benchGreedyCmd) check(env *Env, fs *pflag.FlagSet) error {
	preset, err := applyProtocol(fs, c.protocol, c.pf.Problem)
	if err != nil {
		return err
	}
	if preset != nil {
		fmt.Fprintf(env.Stdout, "protocol %s: %s\n", c.protocol, strings.Join(preset, " "))
	}
	if err := c.vf.validate(); err != nil {
		return err
	}
	if *c.maxSteps < 1 || len(*c.evalAt) == 0 {
		return usagef("--max-steps must be ≥ 1 and --at non-empty")
	}
	if *c.nagSteps < 0 || c.pf.NTest < 1 {
		return usagef("--nag-steps must be ≥ 0 (0: train fully) and --n-test ≥ 1 (got %d and %d)", *c.nagSteps, c.pf.NTest)
	}
	for _, l := range []struct {
		flag string
		list []string
	}{{"--params", *c.params}, {"--inner", *c.inners}} {
		if len(l.list) == 0 || slices.Contains(l.list, "") {
			return usagef("%s %q: give a comma-separated list without empty items", l.flag, strings.Join(l.list, ","))
		}
	}
	if !(*c.target > 0 && *c.target < 1) {
		return usagef("--target must be in (0, 1), got %g", *c.target)
	}
	if *c.evalIters < 0 || *c.fstarIters < 1 {
		return usagef("--iters must be ≥ 0 and --fstar-iters ≥ 1")
	}
	if c.lam, err = greedy.ParseSchedule(*c.lambda); err != nil {
		return usagef("--lambda: %v", err)
	}
	if c.mu2, err = greedy.ParseSchedule(*c.mu); err != nil {
		return usagef("--mu: %v", err)
	}
	if c.reduction, err = greedy.ParseReduction(c.reductionFlag); err != nil {
		return usagef("--loss-reduction: %v", err)
	}
	if err = c.pf.resolveTarget(); err != nil {
		return err
	}
	c.prec = c.pf.prec
	c.methods = map[string]models.Method{}
	for _, p := range *c.params {
		if c.methods[p], err = models.ParseMethod(p); err != nil {
			return asUsage(err)
		}
	}
	c.iters = *c.evalIters
	for _, a := range *c.evalAt {
		if a < 0 {
			return usagef("--at %d: test iterations are counted from 0", a)
		}
		c.iters = max(c.iters, a)
	}
	return nil
}

// functions builds the training, validation and test functions, their
// provenance and f*.
func (c *benchGreedyCmd) functions(env *Env) error {
	pf := &c.pf
	pf.NTrain += c.vf.NVal
	sp, err := pf.buildSplit(nil)
	if err != nil {
		return err
	}
	c.prob, c.test = sp.prob, sp.test
	c.prov = &provenance.Record{Invocation: env.invocation(), Data: sp.trainRecord(c.vf.NVal)}
	if c.test != nil {
		c.prov.Test = sp.testRecord("test", sp.sel.TestRefs, "")
		c.prov.FStar = fmt.Sprintf("%s(iters=%d)", *c.fstarMethod, *c.fstarIters)
	}
	pf.NTrain -= c.vf.NVal
	if c.train, c.val, err = splitValidation(sp.train, c.vf.NVal); err != nil {
		return err
	}
	for _, p := range *c.params {
		if err := pf.checkMethod(c.learned(c.methods[p]), c.train); err != nil {
			return err
		}
	}
	vec := ""
	if c.prec == steploss.Float32 {
		vec = ", scalar loops"
		if problem.VectorKernels() {
			vec = ", vector kernels"
		}
	}
	fmt.Fprintf(env.Stdout, "Problem %s, %d×%d, %d training and %d test functions from %s, GOMAXPROCS %d, %s%s\n",
		c.prob.Name, c.prob.H, c.prob.W, pf.NTrain, pf.NTest, pf.Data, runtime.GOMAXPROCS(0), c.prec, vec)
	c.mt = newMeter(env.Stderr)
	if c.test != nil {
		t0 := time.Now()
		if c.fstar, err = optimumProgress(env, c.mt, c.test, *c.fstarMethod, *c.fstarIters, *c.cache); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "f* of the test set from %d %s iterations: %.1f s (cached in %s)\n", *c.fstarIters, *c.fstarMethod, time.Since(t0).Seconds(), *c.cache)
	}
	return nil
}

// header prints the table's header.
func (c *benchGreedyCmd) header(env *Env) {
	fmt.Fprintf(env.Stdout, "\n%-6s %-6s %6s %10s %8s %10s %10s %10s", "method", "inner", "steps", "s/step", "evals", "RSS@10", "RSS@40", "RSS@80")
	for _, a := range *c.evalAt {
		fmt.Fprintf(env.Stdout, " %10s", fmt.Sprintf("F@%d", a))
	}
	fmt.Fprintf(env.Stdout, " %10s %10s", fmt.Sprintf("its→%g", *c.target), fmt.Sprintf("s→%g", *c.target))
	fmt.Fprintln(env.Stdout)
}

// trainOne trains method p with inner solver in, prints its row and
// evaluates it (and its safeguarded copies) on the test functions.
func (c *benchGreedyCmd) trainOne(env *Env, p, in string) error {
	inner, err := c.sf.solver(in, c.methods[p])
	if err != nil {
		return err
	}
	steps := *c.maxSteps
	if in == "nag" && *c.nagSteps > 0 {
		steps = *c.nagSteps
	}
	dir := filepath.Join(*c.out, p+"-"+in)
	os.RemoveAll(dir) // --out was empty, or --force
	rssAt := map[int]int64{}
	var evals int
	runtime.GC()
	began := time.Now()
	cfg := c.config(c.methods[p], inner, steps, dir)
	cfg.Record.Progress = func(s checkpoint.StepInfo) {
		evals += s.Evaluations
		if s.T+1 == 10 || s.T+1 == 40 || s.T+1 == 80 {
			rss, _, _ := bench.RSS() // 0 where /proc is missing
			rssAt[s.T+1] = rss
		}
		c.mt.update("bench: %s/%s step %d of at most %d: loss %.6g, %d evals in %.2f s; %s elapsed, at most %s left", p, in, s.T+1, steps, s.Loss, s.Evaluations, s.Seconds,
			shortDuration(time.Since(began)), eta(s.T+1, steps, time.Since(began)))
	}
	res, err := greedy.Train(c.train, cfg)
	if err != nil {
		return err
	}
	c.mt.done("bench: %s/%s trained: %d steps in %s (%s)", p, in, len(res.Steps), shortDuration(time.Since(began)), res.StopCause)
	c.row(env, p, in, res, evals, rssAt)
	if c.test != nil {
		if err := c.evalOne(env, p, in, dir); err != nil {
			return err
		}
	}
	fmt.Fprintln(env.Stdout)
	return nil
}

// learned is the method trained for parametrization m: the penalty
// schedules and their loss reduction (it trains on c.pf.target).
func (c *benchGreedyCmd) learned(m models.Method) greedy.Method {
	return greedy.Method{Param: m, Lambda: c.lam, Mu: c.mu2, LossReduction: c.reduction}
}

// config is the configuration of one training run of m with the inner
// solver inner, at most steps steps, its checkpoint in dir.
func (c *benchGreedyCmd) config(m models.Method, inner greedy.InnerSolver, steps int, dir string) greedy.Config {
	vf, sf := &c.vf, &c.sf
	return greedy.Config{
		Problem: greedy.Problem{Validation: c.val, Name: c.prob.Name, DataHash: dataHash(c.train), Seed: c.pf.Seed, Provenance: c.prov},
		Method:  c.learned(m),
		Target:  c.pf.target,
		Solver:  greedy.Solver{Inner: inner, NoPrecond: !sf.Precond, WarmStart: sf.warmStart(), WeightScales: vf.Scales, ValLookahead: vf.Lookahead},
		Stop: greedy.Stop{
			MaxSteps:     steps,
			TolRel:       *c.tolRel,
			OnValidation: vf.StopOn == "validation",
			ValPatience:  vf.Patience,
		},
		Store: greedy.Store{Dir: dir, Protocol: c.protocol},
	}
}

// row prints a trained method's steps, time per step, evaluations and RSS.
func (c *benchGreedyCmd) row(env *Env, p, in string, res *greedy.Result, evals int, rssAt map[int]int64) {
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
}

// evalOne evaluates the optimizer trained in dir and its safeguarded copies.
func (c *benchGreedyCmd) evalOne(env *Env, p, in, dir string) error {
	opt, man, err := learned.Load(dir)
	if err != nil {
		return err
	}
	ms := []baselines.Method{opt}
	var rules []string
	for _, rule := range c.guard.rules {
		if g, ok := safeguardedBy(&LearnedInfo{Method: opt, Tau: man.Tau}, rule); ok {
			ms = append(ms, g)
			rules = append(rules, rule)
		}
	}
	curves, err := eval.Run(c.test, c.fstar, ms, eval.Options{Iters: c.iters, Precision: c.prec, Progress: evalProgress(c.mt, ms, c.iters, c.test.N)})
	if err != nil {
		return err
	}
	curves[0].Method = "greedy " + p + "/" + in
	printTail(env, curves[0], *c.evalAt, *c.target)
	c.all = append(c.all, curves[0])
	for i, cv := range curves[1:] {
		cv.Method = "greedy " + p + "/" + in + benchGuardSuffix(rules[i])
		fmt.Fprintf(env.Stdout, "\n%-6s %-6s %6s %10s %8s %10s %10s %10s", "", benchGuardLabel(rules[i]), "", "", "", "", "", "")
		printTail(env, cv, *c.evalAt, *c.target)
		c.all = append(c.all, cv)
	}
	return nil
}

// baselines evaluates NAG and L-BFGS and writes every curve.
func (c *benchGreedyCmd) baselines(env *Env) error {
	if c.test == nil {
		return nil
	}
	base := []baselines.Method{baselines.NAG{}, baselines.LBFGS{}}
	curves, err := eval.Run(c.test, c.fstar, base, eval.Options{Iters: c.iters, Precision: c.prec, Progress: evalProgress(c.mt, base, c.iters, c.test.N)})
	if err != nil {
		return err
	}
	for _, cv := range curves {
		fmt.Fprintf(env.Stdout, "%-6s %-6s %6s %10s %8s %10s %10s %10s", cv.Method, "", "", "", "", "", "", "")
		printTail(env, cv, *c.evalAt, *c.target)
		fmt.Fprintln(env.Stdout)
	}
	c.all = append(c.all, curves...)
	if err := writeCurves(*c.out, c.all, c.prov); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "curves (mean/min/max optimality per iteration and per second): %s\n", filepath.Join(*c.out, "curves.csv"))
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

package cmd

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/baselines/banert"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/mpi"
	"github.com/greedyl2o/greedyl2o/ondevice"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/provenance"
	"github.com/greedyl2o/greedyl2o/report"
	"github.com/greedyl2o/greedyl2o/steploss"
	"github.com/spf13/pflag"
)

// evalCmd is `l2o eval`: its flags and, once prepared, what it runs.
type evalCmd struct {
	pf                      problemFlags
	fs                      *pflag.FlagSet
	params, methods, shifts *[]string
	reconAt                 *[]string
	psnrAt, shiftAt         *[]int
	guard                   *safeguardFlag
	iters, fstarIters       *int
	fstarMethod, cache, out *string
	set                     *string
	force                   *bool
	breakEvenAt             *float64
	shard                   *string
	sh                      eval.Shard
	part                    *eval.Part
	world                   bool // the functions split over MPI ranks
	protocol                string
	prec                    problem.Precision
	shiftSpecs              []shiftSpec
	infos                   []*LearnedInfo
	ms, base                []baselines.Method
	trainSeconds            map[string]float64
}

func runEval(env *Env, args []string) error {
	c := &evalCmd{}
	c.define(env)
	if err := parse(c.fs, optionalValue(args, "safeguard")); err != nil {
		return err
	}
	if err := c.check(); err != nil {
		return err
	}
	if !c.world || mpi.Rank() == 0 {
		lock, err := claimResultsDir(env, "--out", *c.out, *c.force)
		if err != nil {
			return err
		}
		defer lock.Unlock()
	}
	if err := c.loadMethods(); err != nil {
		return err
	}
	held, err := c.pf.adoptData(env, c.fs, c.infos, *c.params)
	if err != nil {
		return err
	}
	c.pf.nTestGiven = c.fs.Changed("n-test")
	sp, testRec, err := c.pf.evalSplit(held, *c.set)
	if err != nil {
		return err
	}
	noteSkipped(env, sp)
	noteRankDevice(env, &c.pf)
	if err := c.checkOn(sp.test); err != nil {
		return err
	}
	test, part, err := sp.test, sp.part, error(nil)
	if part == nil {
		if test, part, err = shardOf(sp.test, c.sh); err != nil {
			return err
		}
	}
	if c.part = part; part != nil && !c.world {
		fmt.Fprintln(env.Stderr, shardNote(part, test.N))
	}
	prov := &provenance.Record{Invocation: env.invocation(), Test: testRec, FStar: fmt.Sprintf("%s(iters=%d)", *c.fstarMethod, *c.fstarIters), Checkpoints: checkpointsOf(c.infos)}
	noteUnverified(env, c.infos, *c.params)
	return c.run(env, test, testRec, prov, held.exclude)
}

// define declares eval's flags.
func (c *evalCmd) define(env *Env) {
	fs := newFlags(env, "eval", "eval --params DIR[,DIR…] --methods gd,nag,lbfgs --problem NAME [--iters 200] --out DIR")
	c.fs = fs
	c.pf.add(fs, 1, 10)
	c.params = fs.StringSlice("params", nil, "greedy checkpoint directories to evaluate")
	c.methods = fs.StringSlice("methods", []string{"gd", "heavy-ball", "nag", "lbfgs", "silver", "nag-restart", "bb"}, "baselines: "+fmt.Sprint(baselines.MethodNames())+"; with settings pgd:δ (l2o tune pgd), lbfgs:m=M (l2o tune lbfgs), bb:m=M, nag-restart:function")
	c.guard = addSafeguardFlag(fs, true, "also evaluate every greedy/unrolled optimizer safeguarded by a gradient step of size τ under each rule listed: decrease (a bare --safeguard) replaces a learned step that raises f, bgd one that does worse than the gradient step (one more f per iteration); the curves record the fraction of steps accepted per iteration")
	c.iters = fs.Int("iters", 200, "iterations")
	c.fstarIters = fs.Int("fstar-iters", 2000, "NAG iterations for f*")
	c.fstarMethod = fs.String("fstar-method", "nag", "method whose lowest values estimate f*: nag, or lbfgs (far fewer iterations for the CT problems)")
	c.cache = fs.String("cache", defaultCacheDir(), cacheHelp)
	c.out = fs.String("out", "runs/eval", "output directory for curves.csv and curves.json (refused if it holds results, unless --force)")
	c.force = fs.Bool("force", false, "replace the results a previous eval left in --out")
	c.psnrAt = fs.IntSlice("psnr-at", []int{report.DefaultPSNRIter}, "iterations at which curves.json records every function's PSNR and SSIM against the ground truth (0 and the last are always recorded); report's table shows --psnr-iter's")
	c.reconAt = fs.StringSlice("recon-at", []string{strconv.Itoa(report.DefaultPSNRIter), "final"}, "iterations (or final) at which the first test function's iterates are saved in OUT/recon/ (.npy, .png, PSNR, SSIM) with the ground truth, observation and a minimiser, for report's reconstruction figure; none: --recon-at ''")
	c.set = fs.String("set", "test", "functions to evaluate on: test (held out), or train (the training functions: same images and noise as 'train' with the same --data, --seed and --n-train)")
	c.shifts = fs.StringSlice("shift", nil, "also evaluate out of distribution, the learned parameters applied unchanged: alpha=K (α times K, and L with it), sigma=S (blur width), noise=V, angles=K (CT projection angles), size=N (size-free parametrizations: ps, pc-k), images=phantoms|DATA (other images, resampled), or all ("+strings.Join(allShifts, ",")+"); curves in OUT/shift/, table in OUT/shift.md")
	c.shiftAt = fs.IntSlice("shift-at", []int{10, 50, 100, 200}, "iterations reported in the --shift table")
	c.breakEvenAt = fs.Float64("break-even-at", 1e-4, "target mean optimality of the break-even counts (problems after which training pays for itself); 0: none")
	c.pf.addPrecision(fs)
	addProtocol(fs, &c.protocol)
	c.shard = addShardFlag(fs)
}

// check validates the flags (before anything is read or written).
func (c *evalCmd) check() error {
	preset, err := applyProtocol(c.fs, c.protocol, c.pf.Problem)
	if err != nil {
		return err
	}
	c.pf.setPreset(preset)
	if *c.iters < 1 || *c.fstarIters < 1 {
		return usagef("--iters and --fstar-iters must be at least 1")
	}
	// The curves hold f, ‖∇f‖ and the optimality of every function at
	// every iteration.
	if n := int64(*c.iters) * int64(max(c.pf.NTest, 1)); *c.iters > maxEvalIters || n > maxEvalIters*100 {
		return usagef("--iters %d on --n-test %d functions: at most %d iterations and %d function-iterations (the curves keep each)", *c.iters, c.pf.NTest, maxEvalIters, maxEvalIters*100)
	}
	if *c.set != "test" && *c.set != "train" {
		return usagef("--set must be test or train, got %q", *c.set)
	}
	if c.shiftSpecs, err = parseShifts(*c.shifts); err != nil {
		return err
	}
	if len(c.shiftSpecs) > 0 && *c.set != "test" {
		return usagef("--shift applies to the held-out functions: drop --set %s", *c.set)
	}
	if c.sh, err = resolveShard(*c.shard, getenv); err != nil {
		return err
	}
	if w := worldShard(); !w.Whole() {
		if !c.sh.Whole() {
			return usagef("--shard %s under mpirun -np %d: the ranks split the functions already; give one of them", c.sh, w.Count)
		}
		c.sh, c.world = w, true
	}
	if !c.sh.Whole() && len(c.shiftSpecs) > 0 {
		return usagef("--shift with the functions split (--shard, or mpirun): evaluate the shifts on one process")
	}
	if b := *c.breakEvenAt; b < 0 || b >= 1 || math.IsNaN(b) {
		return usagef("--break-even-at %g: give a mean optimality in (0, 1), or 0 for none", b)
	}
	if err = c.pf.resolveTarget(); err != nil {
		return err
	}
	c.prec = c.pf.prec
	if len(c.shiftSpecs) > 0 && c.prec != problem.Float64 {
		return usagef("--shift evaluates in float64: drop --precision %s or --shift", c.prec)
	}
	for _, l := range []struct {
		flag string
		list []string
	}{{"--params", *c.params}, {"--methods", *c.methods}} {
		seen := map[string]bool{}
		for _, v := range l.list {
			if k := filepath.Clean(strings.TrimSpace(v)); seen[k] {
				return usagef("%s names %s twice: each would be a row of its own", l.flag, v)
			} else if v != "" {
				seen[k] = true
			}
		}
	}
	if !c.fs.Changed("shift-at") {
		// The default levels a short run does not reach give way to its last
		// iteration.
		at := slices.DeleteFunc(slices.Clone(*c.shiftAt), func(t int) bool { return t > *c.iters })
		if len(at) == 0 || at[len(at)-1] != *c.iters {
			at = append(at, *c.iters)
		}
		*c.shiftAt = at
	}
	if len(*c.params) == 0 && len(slices.DeleteFunc(slices.Clone(*c.methods), func(m string) bool { return strings.TrimSpace(m) == "" })) == 0 {
		return usagef("nothing to evaluate: give --params DIR or --methods (l2o eval --help lists the baselines)")
	}
	return c.checkIterations()
}

// maxEvalIters caps eval's --iters (and --iters × --n-test at 100 times it).
const maxEvalIters = 1_000_000

// checkIterations refuses iterations to record (--psnr-at, --recon-at,
// --shift-at) outside [0, --iters] where they are given (the defaults past
// a short --iters are passed over).
func (c *evalCmd) checkIterations() error {
	recon, err := reconAtFlag(*c.reconAt, "--recon-at")
	if err != nil {
		return err
	}
	for _, f := range []struct {
		flag string
		at   []int
	}{{"--psnr-at", *c.psnrAt}, {"--recon-at", recon}, {"--shift-at", *c.shiftAt}} {
		for _, t := range f.at {
			if !c.fs.Changed(f.flag[2:]) {
				break
			}
			if t > *c.iters || t < 0 && f.flag != "--recon-at" {
				return usagef("%s %d: give iterations from 0 to --iters %d", f.flag, t, *c.iters)
			}
		}
	}
	return nil
}

// loadMethods loads the checkpoints (adopting their problem, conventions
// and size) and lists the methods: each learned optimizer (on --device),
// its safeguarded copies, then the baselines.
func (c *evalCmd) loadMethods() error {
	for _, dir := range *c.params {
		info, err := loadLearned(dir)
		if err != nil {
			return err
		}
		c.infos = append(c.infos, info)
	}
	distinguishLabels(c.infos, *c.params)
	if err := c.pf.adoptTrained(c.fs, c.infos, *c.params); err != nil {
		return err
	}
	c.pf.acceptsOps = true
	if err := c.pf.validate(); err != nil {
		return err
	}
	c.trainSeconds = map[string]float64{}
	for _, info := range c.infos {
		if c.pf.Size == 0 {
			c.pf.Size = info.H
		}
		m := onDevice(info.Method, &c.pf)
		c.ms = append(c.ms, m)
		c.trainSeconds[m.Name()] = info.TrainSeconds
		for _, rule := range c.guard.rules {
			if g, ok := safeguardedBy(info, rule); ok {
				c.ms = append(c.ms, g)
				c.trainSeconds[g.Name()] = info.TrainSeconds
			}
		}
	}
	for _, name := range *c.methods {
		m, err := baselines.ParseMethod(name)
		if err != nil {
			return asUsage(err)
		}
		c.base = append(c.base, m)
	}
	c.ms = append(c.ms, c.base...)
	if err := c.pf.checkTrainedSizeFlag(c.fs, c.infos, *c.params); err != nil {
		return err
	}
	if err := checkShifts(&c.pf, c.shiftSpecs); err != nil {
		return err
	}
	return c.checkDistinct()
}

// checkDistinct refuses one checkpoint given twice (by its manifest's
// SHA-256: a copy or a link too) and two methods of one name: the curves
// are told apart by name.
func (c *evalCmd) checkDistinct() error {
	sums := map[string]string{}
	for i, info := range c.infos {
		sum := info.Checkpoint.ManifestSHA256
		if d, ok := sums[sum]; ok && sum != "" {
			return usagef("--params %s and %s are the same checkpoint (their manifests have one SHA-256): give it once", d, (*c.params)[i])
		}
		sums[sum] = (*c.params)[i]
	}
	names := map[string]bool{}
	for _, m := range c.ms {
		if names[m.Name()] {
			return usagef("two methods are named %s (--params, --methods): each curve is told apart by its name; give it once, or settings that name it apart", m.Name())
		}
		names[m.Name()] = true
	}
	return nil
}

// onDevice returns a learned optimizer whose iterations run on pf's
// device, labelled with it (the safeguarded copies and the baselines take f
// and ∇f from the device through eval.Options.Evaluator); m itself without
// a device.
func onDevice(m baselines.Method, pf *problemFlags) baselines.Method {
	if pf.target.Device == nil {
		return m
	}
	switch l := m.(type) {
	case *learned.Optimizer:
		c := *l
		c.Target, c.Label = pf.target, fmt.Sprintf("%s [%s]", l.Label, pf.Device)
		return &c
	case *banert.Method:
		c := *l
		c.Target, c.Label = pf.target, fmt.Sprintf("%s [%s]", l.Name(), pf.Device)
		return &c
	}
	return m
}

// checkOn refuses checkpoints that do not fit the test functions, and
// methods the device or precision cannot run on them.
func (c *evalCmd) checkOn(test *problem.Objective) error {
	if err := checkTrained(c.infos, *c.params, test); err != nil {
		return err
	}
	if err := checkTrainedSize(c.infos, *c.params, test); err != nil {
		return err
	}
	if pf := &c.pf; pf.target.Device != nil {
		for _, m := range c.ms {
			if l, ok := m.(*learned.Optimizer); ok && l.Target.Device != nil {
				if err := steploss.CheckDevice(l.Method, test); err != nil {
					return usagef("--device %s: %s: %v", pf.Device, l.Label, err)
				}
			}
			if b, ok := m.(*banert.Method); ok && b.Target.Device != nil {
				if err := banert.CheckTarget(b.Target, test, b.Net.Inputs); err != nil {
					return usagef("--device %s: %s: %v", pf.Device, b.Name(), err)
				}
			}
		}
	}
	if _, err := test.InPrecision(c.prec); err != nil {
		return usagef("--precision %s: %v", c.prec, err)
	}
	return nil
}

// run computes f*, runs every method, writes the curves, reconstructions
// and break-even counts, and the shifts.
func (c *evalCmd) run(env *Env, test *problem.Objective, testRec *provenance.Test, prov *provenance.Record, exclude map[string]bool) error {
	mt := newMeter(env.Stderr)
	fstar, err := optimumProgress(env, mt, test, *c.fstarMethod, *c.fstarIters, *c.cache)
	if err != nil {
		return err
	}
	opts := eval.Options{Iters: *c.iters, Precision: c.prec, Progress: evalProgress(mt, c.ms, *c.iters, test.N), PSNRAt: append([]int{0, *c.iters}, *c.psnrAt...), Part: c.part}
	var recon *reconWriter
	if c.part == nil || c.part.First == 0 {
		// The reconstructions are of the first test function: its shard's.
		if recon, err = evalRecon(&opts, test, testRec, *c.reconAt); err != nil {
			return err
		}
	}
	if ops := c.pf.target.Device; ops != nil {
		// The classical methods' (and the safeguards') f and ∇f on the
		// device, one round trip per evaluation.
		be, err := ondevice.NewBatchEvaluator(ops, test)
		if err != nil {
			return usagef("--device %s: %v", c.pf.Device, err)
		}
		defer be.Close()
		opts.Evaluator = be
		fmt.Fprintf(env.Stdout, "on %s: the learned iterations, and f and ∇f of every other method (curves measured in float64 on the CPU)\n", ops.Name())
	}
	curves, err := eval.Run(test, fstar, c.ms, opts)
	if err != nil {
		return err
	}
	if c.world {
		// Rank 0 writes the whole set's curves, as one process would.
		if curves, prov, err = gatherCurves(curves, prov); err != nil || curves == nil {
			return err
		}
		c.part = nil
	}
	noteBelowFstar(env, curves, *c.fstarMethod, *c.fstarIters)
	if err := c.write(env, curves, recon, prov); err != nil {
		return err
	}
	if len(c.shiftSpecs) > 0 {
		return runShifts(env, mt, &c.pf, exclude, prov, c.shiftSpecs, c.infos, c.guard.rules, c.base, curves, *c.iters, *c.fstarIters, *c.fstarMethod, *c.cache, *c.out, *c.shiftAt)
	}
	return nil
}

// belowFstar is the mean optimality below which a curve says that f* is
// not the minimum: L-BFGS ends within 1e-12 of a well-estimated f*.
const belowFstar = -1e-9

// noteBelowFstar says which methods went below f* (a negative mean
// optimality): optimality, and which method is fastest to a level, are then
// measured against a value above the minimum.
func noteBelowFstar(env *Env, curves []*eval.Curve, method string, iters int) {
	if len(curves) > 0 && len(curves[0].Optimality) > 0 {
		solved := 0
		for _, v := range curves[0].Optimality[0] {
			if v == 0 {
				solved++
			}
		}
		if solved > 0 {
			fmt.Fprintf(env.Stderr, "note: %d of %d test functions start at their estimated minimum (f(x⁰) ≤ f*): their optimality is 0 at every iteration and lowers every mean\n",
				solved, len(curves[0].Optimality[0]))
		}
	}
	for _, c := range curves {
		for i, m := range c.Mean {
			if m < belowFstar {
				fmt.Fprintf(env.Stderr, "note: %s goes below f* (mean optimality %.3g at iteration %d): f* from %d %s iterations is not the minimum; raise --fstar-iters or try --fstar-method lbfgs\n",
					c.Method, m, c.Iter[i], iters, method)
				break
			}
		}
	}
}

// write replaces the results in --out by the curves, reconstructions and
// break-even counts, and prints the summary.
func (c *evalCmd) write(env *Env, curves []*eval.Curve, recon *reconWriter, prov *provenance.Record) error {
	out := *c.out
	if err := clearResults(out, evalResults...); err != nil {
		return err
	}
	if err := writeCurves(out, curves, prov); err != nil {
		return err
	}
	if recon != nil {
		if err := recon.write(filepath.Join(out, "recon"), *c.fstarMethod, min(*c.fstarIters, 1000)); err != nil {
			return err
		}
	}
	printSummary(env, curves, []float64{1e-4, 1e-6})
	fmt.Fprintf(env.Stdout, "curves written to %s\n", out)
	if *c.breakEvenAt > 0 && c.part == nil {
		if be := printBreakEven(env, curves, c.trainSeconds, *c.breakEvenAt); be != nil {
			if err := writeBreakEven(filepath.Join(out, "breakeven.json"), be); err != nil {
				return err
			}
		}
	}
	return nil
}

package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/baselines/banert"
	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/mpi"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/provenance"
	"github.com/greedyl2o/greedyl2o/report"
	"github.com/greedyl2o/greedyl2o/steploss"
	"github.com/spf13/pflag"
)

// applyCmd is `l2o apply`: its flags and, once prepared, what it runs.
type applyCmd struct {
	pf         problemFlags
	fs         *pflag.FlagSet
	params     *string
	out        *string
	saveAt     *[]string
	iters      *int
	tol        *float64
	force      *bool
	shard      *string
	sh         eval.Shard
	world      bool // the functions split over MPI ranks
	n          int  // the number of test functions, over every shard
	guard      *safeguardFlag
	prec       problem.Precision
	info       *LearnedInfo
	run        baselines.Method // the optimizer (safeguarded, on --device)
	test       *problem.Objective
	vals, grad []float64
}

func runApply(env *Env, args []string) error {
	c := &applyCmd{}
	c.define(env)
	if err := parse(c.fs, optionalValue(args, "safeguard")); err != nil {
		return err
	}
	if err := c.check(); err != nil {
		return err
	}
	if err := c.load(); err != nil {
		return err
	}
	held, err := c.pf.adoptData(env, c.fs, []*LearnedInfo{c.info}, []string{*c.params})
	if err != nil {
		return err
	}
	sp, testRec, err := c.pf.evalSplit(held, "test")
	if err != nil {
		return err
	}
	c.test = sp.test
	noteSkipped(env, sp)
	noteRankDevice(env, &c.pf)
	if err := c.prepareOn(); err != nil {
		return err
	}
	whole, test, part := c.test, c.test, sp.part
	if part == nil {
		if test, part, err = shardOf(c.test, c.sh); err != nil {
			return err
		}
	} else if whole, err = gatheredTruth(test, part, *c.out != ""); err != nil {
		return err
	}
	images := testRec.Images
	if c.test, c.n = test, whole.N; part != nil && !c.world {
		fmt.Fprintln(env.Stderr, shardNote(part, test.N))
		if len(images) == part.Total {
			images = images[part.First : part.First+test.N]
		}
	}
	noteUnverified(env, []*LearnedInfo{c.info}, []string{*c.params})
	var saver *applySaver
	if *c.out != "" && c.world && mpi.Rank() > 0 {
		// Rank 0 saves every function's iterates; the others send theirs.
		if saver, err = newApplySaver(*c.out, whole, *c.saveAt); err != nil {
			return err
		}
		saver.dir = ""
	} else if *c.out != "" {
		lock, err := claimResultsDir(env, "--out", *c.out, *c.force)
		if err != nil {
			return err
		}
		defer lock.Unlock()
		on := c.test
		if c.world {
			on = whole
		}
		if saver, err = newApplySaver(*c.out, on, *c.saveAt); err != nil {
			return err
		}
		prov := &provenance.Record{Invocation: env.invocation(), Test: testRec, Checkpoints: checkpointsOf([]*LearnedInfo{c.info})}
		b, err := json.MarshalIndent(prov, "", "  ")
		if err != nil {
			return err
		}
		if err := checkpoint.WriteFileAtomic(filepath.Join(*c.out, "provenance.json"), append(b, '\n')); err != nil {
			return fmt.Errorf("--out %s: %w", *c.out, err)
		}
		for _, r := range images {
			saver.names = append(saver.names, r.Name)
		}
	}
	return c.iterate(env, saver)
}

// define declares apply's flags.
func (c *applyCmd) define(env *Env) {
	fs := newFlags(env, "apply", "apply --params DIR [--data DIR|synthetic] [--iters 200] [--out DIR --save-at 15,50,final]")
	c.fs = fs
	c.pf.add(fs, -1, 10)
	c.params = fs.String("params", "", "greedy checkpoint directory")
	c.iters = fs.Int("iters", 200, "iterations to run")
	c.tol = fs.Float64("tol", 0, "stop early when every ‖∇fk‖ < tol (0: run all iterations)")
	c.guard = addSafeguardFlag(fs, false, "safeguard the learned steps with a gradient step of size τ: decrease (a bare --safeguard) replaces a step that raises f (monotone), bgd one that does worse than the gradient step (∇f → 0 whatever was learned; one more f per iteration); Algorithm 2 as published without it")
	c.pf.addPrecision(fs)
	c.out = fs.String("out", "", "folder for the iterates of --save-at (refused if it holds results, unless --force)")
	c.saveAt = fs.StringSlice("save-at", []string{"final"}, "with --out: iterations (or final) whose iterates are written as x_tNNNN.npy (N×H×W) and one PNG per function, with their PSNR and SSIM in saved.json")
	c.force = fs.Bool("force", false, "replace the results already in --out")
	c.shard = fs.String("shard", "", "run only block i of n of the test functions (contiguous, fixed by the functions), each block into its own --out, for job arrays: i/n (from 1), slurm (SLURM_ARRAY_TASK_ID, _MIN, _STEP, _COUNT) or indexed/N (a Kubernetes Indexed Job of N completions: JOB_COMPLETION_INDEX)")
}

// check validates the flags.
func (c *applyCmd) check() error {
	if *c.params == "" {
		return usagef("--params is required")
	}
	if c.fs.Changed("save-at") && *c.out == "" {
		return usagef("--save-at needs --out DIR")
	}
	at, err := reconAtFlag(*c.saveAt, "--save-at")
	if err != nil {
		return err
	}
	if len(at) == 0 && *c.out != "" {
		return usagef("--save-at %q names no iteration: give iterations or final (15,50,final), or drop --out", strings.Join(*c.saveAt, ","))
	}
	for _, t := range at {
		if t > *c.iters {
			return usagef("--save-at %d is beyond --iters %d: no iterate of that iteration is computed", t, *c.iters)
		}
	}
	if err = c.pf.resolveTarget(); err != nil {
		return err
	}
	c.prec = c.pf.prec
	if *c.iters < 1 {
		return usagef("--iters must be at least 1")
	}
	if *c.tol < 0 {
		return usagef("--tol %g: give a gradient norm > 0, or 0 to run every iteration", *c.tol)
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
	return nil
}

// load reads the checkpoint, its safeguarded copy if asked for, and adopts
// its problem, conventions and size.
func (c *applyCmd) load() error {
	info, err := loadLearned(*c.params)
	if err != nil {
		return err
	}
	c.info, c.run = info, info.Method
	if len(c.guard.rules) > 0 {
		g, ok := safeguardedBy(info, c.guard.rules[0])
		if !ok {
			return usagef("--safeguard: %s has no gradient-step fallback (Banert's method is safeguarded by construction)", *c.params)
		}
		c.run = g
	}
	if err := c.pf.adoptTrained(c.fs, []*LearnedInfo{info}, []string{*c.params}); err != nil {
		return err
	}
	if err := c.pf.checkTrainedSizeFlag(c.fs, []*LearnedInfo{info}, []string{*c.params}); err != nil {
		return err
	}
	if c.pf.Size == 0 {
		c.pf.Size = info.H
	}
	c.pf.acceptsOps = true
	return nil
}

// prepareOn checks the checkpoint against the test functions and puts the
// optimizer on --device.
func (c *applyCmd) prepareOn() error {
	infos, dirs, pf, test := []*LearnedInfo{c.info}, []string{*c.params}, &c.pf, c.test
	if err := checkTrained(infos, dirs, test); err != nil {
		return err
	}
	if pf.target.Device != nil {
		switch l := c.run.(type) {
		case *learned.Optimizer:
			if err := steploss.CheckDevice(l.Method, test); err != nil {
				return usagef("--device %s: %v", pf.Device, err)
			}
			on := *l
			on.Target = pf.target
			c.run = &on
		case *banert.Method:
			if err := banert.CheckTarget(pf.target, test, l.Net.Inputs); err != nil {
				return usagef("--device %s: %v", pf.Device, err)
			}
			on := *l
			on.Target = pf.target
			c.run = &on
		default:
			return usagef("--device %s: %s is not a greedy, unrolled or Banert optimizer; use --device cpu", pf.Device, *c.params)
		}
	}
	return checkTrainedSize(infos, dirs, test)
}

// iterate runs the optimizer, printing mean f and max ‖∇f‖ and saving the
// iterates asked for.
func (c *applyCmd) iterate(env *Env, saver *applySaver) (err error) {
	test := c.test
	runOn, err := test.InPrecision(c.prec)
	if err != nil {
		return usagef("--precision %s: %v", c.prec, err)
	}
	it, err := c.run.Start(runOn)
	if err != nil {
		return asUsage(err)
	}
	if closer, ok := it.(io.Closer); ok {
		defer func() {
			if cerr := closer.Close(); err == nil {
				err = cerr
			}
		}()
	}
	c.vals, c.grad = make([]float64, test.N), make([]float64, len(test.X0))
	fmt.Fprintf(env.Stdout, "%s on %d test functions (%s evaluations)\n", c.run.Name(), c.total(), c.prec)
	fmt.Fprintf(env.Stdout, "%6s %14s %14s\n", "iter", "mean f", "max‖∇f‖")
	if _, err := c.row(env, 0, c.hostStats, test.X0, false); err != nil {
		return err
	}
	if err := c.save(saver, 0, test.X0, false); err != nil {
		return err
	}
	last, lastT := test.X0, 0
	steps, diverged := *c.iters, false
	for t := 1; t <= *c.iters; t++ {
		err := it.Next()
		if err != nil && !errors.Is(err, baselines.ErrDiverged) {
			return err
		}
		g, err := c.row(env, t, c.statsOf(it), nil, err != nil)
		if err == nil && saver != nil {
			last, lastT = append(make([]float64, 0, len(last)), it.X()...), t
			err = c.save(saver, t, last, false)
		}
		if errors.Is(err, baselines.ErrDiverged) {
			c.sayDiverged(env, t)
			diverged = true
			break
		}
		if err != nil {
			return err
		}
		if *c.tol > 0 && g < *c.tol {
			fmt.Fprintf(env.Stdout, "every ‖∇fk‖ < %g after %d iterations\n", *c.tol, t)
			steps = t
			break
		}
	}
	if !diverged {
		if err := c.sayGuard(env, it, steps); err != nil {
			return err
		}
	}
	if err := c.save(saver, lastT, last, true); err == nil && saver != nil {
		fmt.Fprintf(env.Stdout, "%d iterates saved in %s (saved.json lists them with their PSNR and SSIM)\n", saver.count(), *c.out)
	}
	return nil
}

// rowStats writes f_k and ‖∇f_k‖² of every function at the iterate x into
// stats (rowOf's layout after its first value).
type rowStats func(stats, x []float64) error

// row evaluates the iterate x of iteration t by eval (failed: the
// iteration left the finite numbers), prints mean f and max ‖∇fk‖ over
// every function (every iteration below 10, then every tenth) and returns
// max ‖∇fk‖; under mpirun the ranks' values are combined on rank 0 in
// function order.
func (c *applyCmd) row(env *Env, t int, eval rowStats, x []float64, failed bool) (float64, error) {
	// stats holds failed, then f_k and ‖∇f_k‖² of every function.
	stats := make([]float64, 1+2*c.test.N)
	if failed {
		stats = stats[:1]
		stats[0] = 1
	} else if err := eval(stats[1:], x); err != nil {
		return 0, err
	}
	mean, gmax, bad, err := c.combineRow(stats)
	if err != nil {
		return 0, err
	}
	if bad {
		return 0, baselines.ErrDiverged
	}
	if t%10 == 0 || t < 10 {
		fmt.Fprintf(env.Stdout, "%6d %14.8g %14.6g\n", t, mean, gmax)
	}
	return gmax, nil
}

// hostStats evaluates f and ∇f of the test functions at x (rowStats).
func (c *applyCmd) hostStats(stats, x []float64) error {
	test, vals, grad := c.test, c.vals, c.grad
	if err := test.Eval(vals, grad, x, nil); err != nil {
		return err
	}
	hw := test.ImageLen()
	copy(stats, vals)
	for k := range vals {
		var s float64
		for _, g := range grad[k*hw : (k+1)*hw] {
			s += g * g
		}
		stats[test.N+k] = s
	}
	return nil
}

// statsOf is the rowStats of the iterator's current iterates: those it
// computed itself (learned.Evaluated, on a device: Σ_k f_k stands in the
// first function's value and the others' are zero, which gives rowOf's
// mean Σ_k f_k/n), or hostStats at its X.
func (c *applyCmd) statsOf(it baselines.Iterator) rowStats {
	ev, ok := it.(learned.Evaluated)
	if !ok {
		return func(stats, _ []float64) error { return c.hostStats(stats, it.X()) }
	}
	return func(stats, _ []float64) error {
		sum, err := ev.Evaluated(stats[c.test.N:])
		stats[0] = sum
		return err
	}
}

// rowOf walks the functions in order as one process does: mean f, max
// ‖∇fk‖, and whether a value left the finite numbers (or an iteration
// failed) before the end.
func rowOf(parts [][]float64, n int) (mean, gmax float64, bad bool) {
	for _, p := range parts {
		if p[0] != 0 {
			return 0, 0, true
		}
		m := (len(p) - 1) / 2
		vals, sq := p[1:1+m], p[1+m:]
		for k, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, 0, true
			}
			mean += v / float64(n)
			gmax = max(gmax, sq[k])
		}
	}
	return mean, sqrt(gmax), false
}

// sayDiverged reports a divergence: a result, not a failure.
func (c *applyCmd) sayDiverged(env *Env, t int) {
	fmt.Fprintf(env.Stdout, "%s diverged at iteration %d (a value, iterate or gradient left the finite numbers)", c.run.Name(), t)
	if len(c.guard.rules) == 0 {
		fmt.Fprint(env.Stdout, "; --safeguard keeps it monotone")
	}
	fmt.Fprintln(env.Stdout)
}

// sayGuard prints how often a safeguard replaced the learned step.
func (c *applyCmd) sayGuard(env *Env, it baselines.Iterator, steps int) error {
	if len(c.guard.rules) == 0 {
		return nil
	}
	rejected, acc, err := c.combineGuard(it)
	if err != nil {
		return err
	}
	if _, ok := it.(interface{ Rejected() int }); ok {
		fmt.Fprintf(env.Stdout, "the safeguard (%s) replaced %d of %d learned steps by gradient steps\n", c.guard.rules[0], rejected, steps*c.total())
	}
	if _, ok := it.(interface{ Acceptance() []float64 }); ok {
		if len(acc) > 0 {
			cv := &eval.Curve{Iter: make([]int, len(acc)+1), Accepted: append([]float64{math.NaN()}, acc...)}
			for i := range cv.Iter {
				cv.Iter[i] = i
			}
			fmt.Fprintf(env.Stdout, "learned steps accepted %s\n", report.AcceptanceAt(cv))
		}
	}
	return nil
}

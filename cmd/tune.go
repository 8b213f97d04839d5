package cmd

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/problem"
)

func init() {
	register(&Command{Name: "tune lbfgs", Summary: "choose L-BFGS's memory M on the training functions by the mean optimality after --iters iterations; prints the eval method lbfgs:m=M", Run: runTuneLBFGS})
	register(&Command{Name: "tune pgd", Summary: "choose preconditioned GD's δ by Nelder–Mead on the training functions (the paper reports δ ≈ 0.032 for Problem 1)", Run: runTunePGD})
}

func runTunePGD(env *Env, args []string) error {
	var pf problemFlags
	fs := newFlags(env, "tune pgd", "tune pgd --problem deblur [--blur-boundary zero] --data DIR|synthetic [--n-train 25] [--iters 100]")
	pf.add(fs, 25, -1)
	iters := fs.Int("iters", 100, "PGD iterations after which the mean training objective is minimised over δ")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *iters < 1 {
		return usagef("--iters must be at least 1 (got %d)", *iters)
	}
	if pf.NTrain < 1 {
		return usagef("--n-train must be at least 1")
	}
	prob, train, _, err := pf.build()
	if err != nil {
		return err
	}
	start := time.Now()
	delta, err := baselines.TuneDelta(train, *iters)
	if err != nil {
		return asUsage(fmt.Errorf("problem %s: %w", prob.Name, err))
	}
	f, err := baselines.MeanAfter(baselines.PreconditionedGD{Delta: delta}, train, *iters)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "problem %s (%s), %d training functions: δ = %.4g minimises the mean objective after %d PGD iterations (%.8g); %.1f s\n",
		prob.Name, orNone(prob.Conventions.String()), train.N, delta, *iters, f, time.Since(start).Seconds())
	fmt.Fprintln(env.Stdout, tunedOn(env, &pf, train))
	return nil
}

// tunedOn says what a tuning ran on: data, seed, size, the functions'
// setting, and l2o's revision.
func tunedOn(env *Env, pf *problemFlags, train *problem.Objective) string {
	inv := env.invocation()
	return fmt.Sprintf("tuned on: --data %s --seed %d, %d functions of %d×%d (%s); %s, l2o revision %s",
		cmp.Or(pf.Data, "synthetic"), pf.Seed, train.N, train.H, train.W, settingString(train.Setting()), inv.Command, cmp.Or(inv.Build.Revision, "not recorded"))
}

// maxTuneMemory bounds the memories tune lbfgs accepts: L-BFGS keeps 2M
// image-sized vectors per function.
const maxTuneMemory = 1000

func runTuneLBFGS(env *Env, args []string) error {
	var pf problemFlags
	fs := newFlags(env, "tune lbfgs", "tune lbfgs --problem deblur [--blur-boundary zero] --data DIR|synthetic [--n-train 25] [--iters 100] [--memories 3,5,10,20,40]")
	pf.add(fs, 25, -1)
	iters := fs.Int("iters", 100, "L-BFGS iterations after which the mean training optimality is compared between memories")
	memories := fs.IntSlice("memories", baselines.LBFGSMemories, "memories M to try (a tie goes to the smaller)")
	fstarIters := fs.Int("fstar-iters", 2000, "iterations of --fstar-method estimating f* of the training functions; 0 ranks by the mean objective instead of the mean optimality")
	fstarMethod := fs.String("fstar-method", "nag", "method whose lowest values estimate f*: nag, or lbfgs (far fewer iterations for the CT problems)")
	cache := fs.String("cache", defaultCacheDir(), cacheHelp)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *iters < 1 {
		return usagef("--iters must be at least 1 (got %d)", *iters)
	}
	if pf.NTrain < 1 {
		return usagef("--n-train must be at least 1")
	}
	if len(*memories) == 0 {
		return usagef("--memories is empty: give at least one memory (e.g. 3,5,10,20,40)")
	}
	var mems []int
	for _, m := range *memories {
		if m < 1 || m > maxTuneMemory {
			return usagef("--memories: memory %d out of range: use 1 to %d", m, maxTuneMemory)
		}
		if !slices.Contains(mems, m) {
			mems = append(mems, m)
		}
	}
	if *fstarIters < 0 {
		return usagef("--fstar-iters must be ≥ 0 (0: rank by the mean objective), got %d", *fstarIters)
	}
	if *fstarMethod != "nag" && *fstarMethod != "lbfgs" {
		return usagef("--fstar-method must be nag or lbfgs, got %q", *fstarMethod)
	}
	prob, train, _, err := pf.build()
	if err != nil {
		return err
	}
	start := time.Now()
	var fstar []float64
	criterion := "mean objective"
	if *fstarIters > 0 {
		if fstar, err = optimumProgress(env, newMeter(env.Stderr), train, *fstarMethod, *fstarIters, *cache); err != nil {
			return err
		}
		criterion = "mean optimality"
	}
	best, scores, err := baselines.TuneLBFGSMemory(train, fstar, *iters, mems)
	if err != nil {
		return fmt.Errorf("problem %s: %w", prob.Name, err)
	}
	conv := orNone(prob.Conventions.String())
	if fstar != nil {
		fmt.Fprintf(env.Stdout, "problem %s (%s), %d training functions, f* from %d %s iterations; %s after %d L-BFGS iterations:\n",
			prob.Name, conv, train.N, *fstarIters, *fstarMethod, criterion, *iters)
	} else {
		fmt.Fprintf(env.Stdout, "problem %s (%s), %d training functions; %s after %d L-BFGS iterations:\n", prob.Name, conv, train.N, criterion, *iters)
	}
	var bestScore float64
	for _, s := range scores {
		mark := ""
		if s.Memory == best {
			mark, bestScore = "  ← lowest", s.Score
		}
		fmt.Fprintf(env.Stdout, "  m = %-4d %s%s\n", s.Memory, formatScore(s.Score), mark)
	}
	method := "lbfgs:m=" + strconv.Itoa(best)
	fmt.Fprintf(env.Stdout, "problem %s (%s), %d training functions: m = %d minimises the %s after %d L-BFGS iterations (%s); eval method %s (l2o eval --methods %s); %.1f s\n",
		prob.Name, conv, train.N, best, criterion, *iters, formatScore(bestScore), method, method, time.Since(start).Seconds())
	fmt.Fprintln(env.Stdout, tunedOn(env, &pf, train))
	return nil
}

// formatScore formats a tuning score, "failed" for +Inf (a run that failed).
func formatScore(v float64) string {
	if math.IsInf(v, 1) {
		return "failed"
	}
	return strings.TrimSpace(strconv.FormatFloat(v, 'g', 6, 64))
}

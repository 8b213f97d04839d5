package cmd

import (
	"fmt"
	"time"

	"github.com/greedyl2o/greedyl2o/baselines"
)

func init() {
	register(&Command{Name: "tune pgd", Summary: "choose preconditioned GD's δ by Nelder–Mead on the training functions (the paper reports δ ≈ 0.032 for Problem 1)", Run: runTunePGD})
}

func runTunePGD(env *Env, args []string) error {
	var pf problemFlags
	fs := newFlags(env, "tune pgd", "tune pgd --problem deblur [--blur-boundary zero] --data DIR|synthetic [--n-train 25] [--iters 100]")
	pf.add(fs, 25, 0)
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
	return nil
}

package cmd

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/problem"
)

func init() {
	register(&Command{Name: "problem info", Summary: "describe a problem: sizes, ‖A‖, L, α, ε, noise", Run: runProblemInfo})
	register(&Command{Name: "problem list", Summary: "list the built-in problems", Run: runProblemList})
}

func runProblemList(env *Env, args []string) error {
	fs := newFlags(env, "problem list", "problem list")
	if err := parse(fs, args); err != nil {
		return err
	}
	for _, n := range problem.Names() {
		fmt.Fprintf(env.Stdout, "%-12s %s\n", n, problem.Summary(n))
	}
	return nil
}

func runProblemInfo(env *Env, args []string) error {
	var pf problemFlags
	fs := newFlags(env, "problem info", "problem info --problem NAME [--data DIR|synthetic]")
	pf.add(fs, 4, -1)
	if err := parse(fs, args); err != nil {
		return err
	}
	prob, train, _, err := pf.build()
	if err != nil {
		return err
	}
	nrm, err := problem.OperatorNorm(prob.A, prob.H, prob.W, 2000, 1e-12, 3)
	if err != nil {
		return err
	}
	w := env.Stdout
	fmt.Fprintf(w, "problem      %s\n", prob.Name)
	fmt.Fprintf(w, "image        %d×%d\n", prob.H, prob.W)
	fmt.Fprintf(w, "data         %v per image\n", prob.A.DataShape(prob.H, prob.W))
	fmt.Fprintf(w, "operator     %s\n", prob.A)
	fmt.Fprintf(w, "‖A‖          %.10g (Lanczos)\n", nrm)
	fmt.Fprintf(w, "regularizer  %s\n", prob.Reg)
	fmt.Fprintf(w, "α            %g\n", prob.Alpha)
	fmt.Fprintf(w, "noise σ      %g\n", prob.Noise)
	fmt.Fprintf(w, "L            %.10g\n", prob.L())
	fmt.Fprintf(w, "x0           %v\n", prob.Start)
	if len(prob.Conventions) > 0 {
		fmt.Fprintf(w, "conventions  %s\n", prob.Conventions)
	}
	for _, d := range prob.Describe {
		fmt.Fprintf(w, "             %s\n", d)
	}
	if train != nil {
		f, err := train.Mean(train.X0)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "training set %d functions from %s (hash %s), mean f(x0) = %.6g\n", train.N, pf.Data, dataHash(train), f)
	}
	return nil
}

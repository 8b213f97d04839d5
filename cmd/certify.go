package cmd

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/greedy"
)

func init() {
	register(&Command{Name: "certify", Summary: "convergence certificates of a trained greedy optimizer", Run: runCertify})
}

func runCertify(env *Env, args []string) error {
	fs := newFlags(env, "certify", "certify --params DIR [--L 1.32] [--all]")
	dir := fs.String("params", "", "greedy checkpoint directory")
	l := fs.Float64("L", 0, "smoothness constant of the unseen functions (0: the training L)")
	all := fs.Bool("all", false, "print every step, not only the last and the first certified")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		return usagef("--params is required")
	}
	if *l < 0 {
		return usagef("--L must be positive")
	}
	learned, man, err := greedy.Load(*dir)
	if err != nil {
		return asUsage(err)
	}
	if *l == 0 {
		*l = man.L
	}
	fmt.Fprintf(env.Stdout, "%s, %d steps, τ = %.6g, certificate for L = %.6g\n", man.Method, learned.Steps, man.Tau, *l)
	fmt.Fprintf(env.Stdout, "%5s %12s %12s %12s %12s\n", "t", "ε1=‖G−τI‖", "ε2=‖H‖", "P(ε1,ε2)", "L_max")
	first := -1
	for t := 0; t < learned.Steps; t++ {
		theta, phi, err := learned.Params(t)
		if err != nil {
			return err
		}
		c, err := greedy.CertifyParams(learned.Method, theta, phi, man.Tau, *l, man.H, man.W)
		if err != nil {
			return err
		}
		if c.P < 0 && first < 0 {
			first = t
		}
		if *all || t == learned.Steps-1 || t == first {
			fmt.Fprintf(env.Stdout, "%5d %12.5g %12.5g %12.5g %12.5g\n", t, c.Eps1, c.Eps2, c.P, c.LMax)
		}
	}
	if first < 0 {
		fmt.Fprintln(env.Stdout, "no step is certified: P ≥ 0 for every t (train with λ, μ > 0 to keep G near τI)")
	} else {
		fmt.Fprintf(env.Stdout, "first certified step: T = %d (repeating its parameters converges on every %.4g-smooth function)\n", first, *l)
	}
	return nil
}

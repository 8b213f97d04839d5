package cmd

import (
	"fmt"
	"slices"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
)

func init() {
	register(&Command{Name: "certify", Summary: "convergence certificates of a trained greedy optimizer", Run: runCertify})
}

func runCertify(env *Env, args []string) error {
	fs := newFlags(env, "certify", "certify --params DIR [--L 1.32] [--all] [--steps 0,50,101]")
	dir := fs.String("params", "", "greedy checkpoint directory")
	l := fs.Float64("L", 0, "smoothness constant of the unseen functions (0: the training L)")
	all := fs.Bool("all", false, "print every step, not only the last and the first certified")
	steps := fs.IntSlice("steps", nil, "certify only these steps t (default: every step; a PF step of 40×40 images takes seconds): printed each, the first certified among them")
	sigma := fs.Float64("blur-sigma", 0, "for operator-aware parametrizations (npolyD): the blur width whose operator G is built from (0: the checkpoint's own operator)")
	angles := fs.Int("angles", 0, "for operator-aware parametrizations on CT: the number of projection angles whose ray transform G is built from (0: the checkpoint's own operator)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		return usagef("--params is required")
	}
	if *l < 0 {
		return usagef("--L must be positive")
	}
	if *sigma < 0 || *angles < 0 {
		return usagef("--blur-sigma and --angles must be positive, or 0 for the checkpoint's own operator (got %g and %d)", *sigma, *angles)
	}
	opt, man, err := learned.Load(*dir)
	if err != nil {
		return asUsage(err)
	}
	if held, pid := checkpoint.Held(*dir); held {
		fmt.Fprintf(env.Stderr, "note: %s is being trained (pid %d holds its lock): certifying its first T = %d steps, as its manifest (sha256 %.16s…) listed them when read\n", *dir, pid, len(man.Steps), man.SHA256)
	}
	ts, err := certifySteps(*steps, opt.Steps)
	if err != nil {
		return err
	}
	if !man.Verified() {
		fmt.Fprintf(env.Stderr, "note: %s predates checksums (written by an older l2o): its parameter files are loaded unverified\n", *dir)
	}
	if *l == 0 {
		*l = man.L
	}
	if !operatorAware(opt.Method) && (*sigma > 0 || *angles > 0) {
		return usagef("--blur-sigma and --angles choose the operator of parametrizations built from it (npolyD); %s is not: drop them", man.Method)
	}
	if operatorAware(opt.Method) {
		a, err := certifyOperator(man, *sigma, *angles)
		if err != nil {
			return err
		}
		opt.Method = opt.Method.ForOperator(a)
		fmt.Fprintf(env.Stdout, "%s is built from the problem's operator: certified with %s\n", man.Method, a)
	}
	return printCertificates(env, opt, man, ts, *l, *all || len(*steps) > 0, len(*steps) > 0)
}

// printCertificates prints the certificates of steps ts of the checkpoint
// (every one of them when each, else the last and the first certified) and
// the first certified step of each kind, for smoothness constant l; among
// says that ts are the steps asked for.
func printCertificates(env *Env, opt *learned.Optimizer, man *checkpoint.Manifest, ts []int, l float64, each, among bool) error {
	fmt.Fprintf(env.Stdout, "%s, %d steps, τ = %.6g, certificate for L = %.6g\n", man.Method, opt.Steps, man.Tau, l)
	// Which of the paper's thresholds applies depends on L only.
	_, hName := learned.PaperCertificate{Tau: man.Tau, L: l}.H()
	fmt.Fprintf(env.Stdout, "paper: P(ε1,ε2) < 0 with 1 − ε2(ε1+ε2+τ) > 0 certifies; %s is the paper's bound on L; lyapunov: P = min_c λmax(M(c)) < 0 certifies\n", hName)
	fmt.Fprintf(env.Stdout, "%5s %12s %12s %13s %12s %13s %12s\n", "t", "ε1=‖G−τI‖", "ε2=‖H‖", "paper P", hName, "lyapunov P", "L_max")
	kinds := []learned.CertificateKind{learned.CertificatePaper, learned.CertificateLyapunov}
	first := map[learned.CertificateKind]int{}
	for _, k := range kinds {
		first[k] = -1
	}
	for _, t := range ts {
		theta, phi, err := opt.Params(t)
		if err != nil {
			return err
		}
		c, err := learned.CertifyParamsBoth(opt.Method, theta, phi, man.Tau, l, man.H, man.W)
		if err != nil {
			return err
		}
		newly := false
		for _, k := range kinds {
			if c.Certified(k) && first[k] < 0 {
				first[k], newly = t, true
			}
		}
		if each || t == opt.Steps-1 || newly {
			h, _ := c.Paper.H()
			fmt.Fprintf(env.Stdout, "%5d %12.5g %12.5g %12.5g%s %12.5g %12.5g%s %12.5g\n", t, c.Lyapunov.Eps1, c.Lyapunov.Eps2,
				c.Paper.P, certMark(c.Paper.Certified), h, c.Lyapunov.P, certMark(c.Certified(learned.CertificateLyapunov)), c.Lyapunov.LMax)
		}
	}
	fmt.Fprintln(env.Stdout, "(* certified)")
	which := ""
	if among {
		which = fmt.Sprintf(" of steps %v", ts)
	}
	for _, k := range kinds {
		if first[k] < 0 {
			fmt.Fprintf(env.Stdout, "%s: no step%s is certified (train with λ, μ > 0 to keep G near τI)\n", k, which)
		} else {
			fmt.Fprintf(env.Stdout, "%s: first certified step%s: T = %d (repeating its parameters converges on every %.4g-smooth function)\n", k, which, first[k], l)
		}
	}
	return nil
}

// certifySteps returns the steps to certify: every step of a checkpoint of n
// when want is empty, else want sorted, each checked to be a step.
func certifySteps(want []int, n int) ([]int, error) {
	if len(want) == 0 {
		ts := make([]int, n)
		for t := range ts {
			ts[t] = t
		}
		return ts, nil
	}
	ts := slices.Clone(want)
	slices.Sort(ts)
	ts = slices.Compact(ts)
	for _, t := range ts {
		if t < 0 || t >= n {
			return nil, usagef("--steps %d: the checkpoint holds steps 0 to %d", t, n-1)
		}
	}
	return ts, nil
}

// operatorAware reports whether a term of m is built from the problem's
// operator (models.OperatorAware: npolyD).
func operatorAware(m models.Method) bool {
	_, g := m.G.(models.OperatorAware)
	_, h := m.H.(models.OperatorAware)
	return g || h
}

// certifyOperator rebuilds the forward operator an operator-aware
// checkpoint is certified with: its problem at its size and conventions,
// with the blur width sigma or the number of angles if given. Without them
// it must be the operator the checkpoint was trained with (a family of
// operators needs one).
func certifyOperator(man *checkpoint.Manifest, sigma float64, angles int) (problem.Operator, error) {
	opt := problem.Options{H: man.H, W: man.W, BlurBoundary: man.Conventions[problem.ConventionBlurBoundary], BlurSigma: sigma}
	if angles > 0 {
		opt.Angles = []int{angles}
	}
	p, err := problem.Lookup(man.Problem, opt)
	if err != nil {
		return nil, usagef("certify: rebuilding the operator of %s: %v", man.Problem, err)
	}
	if sigma == 0 && angles == 0 && man.Operator != "" && p.A.String() != man.Operator {
		return nil, usagef("certify: %s was trained with the operator %s, and its norms depend on it; give --blur-sigma S (a blur of width S) or --angles K (a scan of K angles) to certify it with that member", man.Method, man.Operator)
	}
	return p.A, nil
}

// certMark marks a certified step in certify's table.
func certMark(ok bool) string {
	if ok {
		return "*"
	}
	return " "
}

package cmd

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/greedyl2o/greedyl2o/greedy"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/spf13/pflag"
)

// solverFlags tune the greedy inner solvers; solver turns them into one.
// Every command that trains greedily (train greedy, bench greedy) goes
// through here, so a flag means the same everywhere.
type solverFlags struct {
	LBFGSTol  float64
	MaxEvals  int
	Precond   bool
	NAGIters  int
	NAGRounds int
	NAGStep   string
	// InnerStart is where each step's inner solve starts: "reference"
	// (θ̃, φ̃), the paper's, or "previous" (the last step's parameters;
	// greedy.Solver.WarmStart).
	InnerStart string
}

func (s *solverFlags) add(fs *pflag.FlagSet) {
	fs.Float64Var(&s.LBFGSTol, "lbfgs-tol", 1e-6, "L-BFGS inner solver: relative gradient tolerance")
	fs.IntVar(&s.MaxEvals, "lbfgs-max-evals", 1000, "L-BFGS inner solver: evaluations per step")
	fs.BoolVar(&s.Precond, "precond", true, "precondition the L-BFGS inner solver (Fourier/diagonal curvature of the parametrization)")
	fs.IntVar(&s.NAGIters, "nag-iters", 0, "NAG inner solver: iterations per block and round (0: the paper's budget — G alone 5000, 500 for PS; G and H 1000 a block, 100 for a scalar block)")
	fs.IntVar(&s.NAGRounds, "nag-rounds", 0, "NAG inner solver: rounds of alternating θ and φ blocks (0: the paper's 10)")
	fs.StringVar(&s.NAGStep, "nag-step", "exact", "NAG inner solver's step 1/L_g: exact (power iteration on (1/N)ΣBkᵀBk), paper (the paper's bound (1/N)Σ L‖Bk‖²) or closed (exact, with a PC block's curvature in closed form, max over ω of (1/N)Σ|ĝk(ω)|²: no power iteration)")
	fs.StringVar(&s.InnerStart, "inner-start", "reference", "where each step's inner solve starts: reference (θ̃, φ̃: G = τI, H = 0, the paper's) or previous (the last step's parameters; the BGD check still compares with the reference)")
}

// warmStart reports whether --inner-start asks for the previous step's parameters.
func (s *solverFlags) warmStart() bool { return s.InnerStart == "previous" }

func (s *solverFlags) validate() error {
	if s.LBFGSTol <= 0 || s.LBFGSTol >= 1 || s.MaxEvals < 1 {
		return usagef("--lbfgs-tol must be in (0, 1) and --lbfgs-max-evals ≥ 1 (got %g and %d)", s.LBFGSTol, s.MaxEvals)
	}
	if s.NAGIters < 0 || s.NAGRounds < 0 {
		return usagef("--nag-iters and --nag-rounds must be ≥ 0 (got %d and %d)", s.NAGIters, s.NAGRounds)
	}
	if _, err := greedy.ParseStepRule(s.NAGStep); err != nil {
		return usagef("--nag-step: %v", err)
	}
	if s.InnerStart != "reference" && s.InnerStart != "previous" {
		return usagef("--inner-start must be reference or previous (got %q)", s.InnerStart)
	}
	return nil
}

// Auto's NAG budget: iterations per block and rounds (500 evaluations a step
// with momentum, 250 without). One round of 250 a block replaced 20 a block
// × 10 rounds (400 evaluations): on Problem 1 (M-PC, 100 held-out images,
// docs/reproduction.md) 1.44e-3 against 2.35e-3 mean optimality at
// iteration 10 and 7.0e-7 against 1.3e-5 at 100, trained in 121 s on two
// cores (fewer, longer block solves generalise better).
const autoNAGIters, autoNAGRounds = 250, 1

// solver returns the named inner solver (auto, lbfgs, nag or closed) with
// these settings for the method m. "auto", the default, is L-BFGS solved to
// its tolerance when every parameter block of m is a scalar (PS, M-PS), and
// NAG with a fixed budget of autoNAGIters iterations a block and
// autoNAGRounds rounds otherwise. Measured on Problem 1 (docs/reproduction.md):
// a scalar step is the same whether solved by L-BFGS or NAG, L-BFGS 15× faster;
// a convolution step solved to convergence fits the training trajectories
// (M-PC: 3.1e-3 mean optimality at iteration 10 on 100 held-out images)
// while NAG's fixed budget regularises it (1.44e-3 at 500 evaluations a step
// in one round, 2.4e-3 at 400 in ten rounds, 1.3e-3 at 2,000 in ten).
func (s *solverFlags) solver(name string, m models.Method) (greedy.InnerSolver, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	iters, rounds := s.NAGIters, s.NAGRounds
	if name == "auto" {
		if allScalar(m) {
			name = "lbfgs"
		} else {
			name = "nag"
			if iters == 0 {
				iters = autoNAGIters
			}
			if rounds == 0 {
				rounds = autoNAGRounds
			}
		}
	}
	inner, err := greedy.ParseInner(name)
	if err != nil {
		return nil, asUsage(err)
	}
	switch inner.(type) {
	case greedy.LBFGS:
		return greedy.LBFGS{RelTol: s.LBFGSTol, MaxEvaluations: s.MaxEvals}, nil
	case greedy.NAG:
		step, _ := greedy.ParseStepRule(s.NAGStep)
		return greedy.NAG{Iters: iters, Rounds: rounds, Step: step}, nil
	}
	return inner, nil
}

// allScalar reports whether every parametrization of m has one parameter.
func allScalar(m models.Method) bool {
	if m.G == nil || m.G.ParamShape(8, 8).TotalSize() != 1 {
		return false
	}
	return m.H == nil || m.H.ParamShape(8, 8).TotalSize() == 1
}

// protocols are named presets of flag values. A preset sets each flag that
// the command has and the user did not give; the value may depend on the
// problem (Problem 2 stops at 10¹² instead of 10⁷).
var protocols = map[string]struct {
	summary string
	values  func(problem string) map[string]string
}{
	"paper": {
		summary: "the paper's training and evaluation protocol: λt = μt = 0, weighed against the sum of the N step losses where set (--loss-reduction sum: it gives the paper's certified T); NAG inner solver from (θ̃, φ̃) with the paper's budgets and its step bound; " +
			"N = 25; stop when every ‖∇fk‖² < ‖∇fk(x⁰)‖²/10⁷ (10¹² for CT); f* from 2,000 NAG iterations; 100 test functions",
		values: func(problem string) map[string]string {
			tol := "1e7"
			if strings.HasPrefix(problem, "ct") {
				tol = "1e12"
			}
			return map[string]string{
				"lambda": "0", "mu": "0", "loss-reduction": "sum",
				"inner": "nag", "nag-step": "paper", "nag-iters": "0", "nag-rounds": "0",
				"n-train": "25", "tol-rel": tol, "tol-abs": "0", "max-steps": "1000",
				"n-test": "100", "fstar-method": "nag", "fstar-iters": "2000", "nag-steps": "0",
			}
		},
	},
}

func protocolNames() []string {
	var out []string
	for n := range protocols {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// addLossReduction registers --loss-reduction (train greedy, bench greedy).
func addLossReduction(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "loss-reduction", "mean", "how the step loss combines the training functions against the penalties: mean ((1/N) Σk fk, as the paper writes it) or sum (Σk fk: the penalties weigh 1/N as much; the paper's certified T = 287 for λ = 1e-4, μ = 5e-2 matches it; --protocol paper sets it); zero and relative weights train the same under both")
}

// addProtocol registers --protocol.
func addProtocol(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "protocol", "", "preset of flag values; each flag given explicitly overrides it: "+
		strings.Join(protocolNames(), ", ")+" ("+protocols["paper"].summary+")")
}

// applyProtocol sets the preset's values on every flag of fs that exists
// and was not given, and returns what it set as "name=value" pairs (sorted).
// protocolLabel is the protocol a run records: its name, and the preset's
// flags the command line gave other values (applied after applyProtocol,
// which leaves them as given).
func protocolLabel(fs *pflag.FlagSet, name, problem string, preset []string) string {
	p, ok := protocols[name]
	if name == "" || !ok {
		return name
	}
	var own []string
	for flag, v := range p.values(problem) {
		if f := fs.Lookup(flag); f != nil && !slices.Contains(preset, flag+"="+v) && !sameFlagValue(f.Value.String(), v) {
			own = append(own, "--"+flag+" "+f.Value.String())
		}
	}
	if len(own) == 0 {
		return name
	}
	sort.Strings(own)
	return name + " (but " + strings.Join(own, ", ") + ")"
}

func applyProtocol(fs *pflag.FlagSet, name, problem string) ([]string, error) {
	if name == "" {
		return nil, nil
	}
	p, ok := protocols[name]
	if !ok {
		return nil, usagef("--protocol %q: choose one of %s", name, strings.Join(protocolNames(), ", "))
	}
	var set []string
	for flag, v := range p.values(problem) {
		f := fs.Lookup(flag)
		if f == nil || f.Changed {
			continue
		}
		if err := fs.Set(flag, v); err != nil {
			return nil, fmt.Errorf("--protocol %s: setting --%s %s: %w", name, flag, v, err)
		}
		set = append(set, flag+"="+v)
	}
	sort.Strings(set)
	return set, nil
}

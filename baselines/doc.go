// Package baselines implements the classical first-order methods that learned
// optimizers are compared against, batched over the N functions of a
// problem.Objective: every function keeps its own state (step sizes,
// line-search state, memory) while all of them share one batched
// Objective.Eval per evaluation round.
//
// A Method (GradientDescent, HeavyBall, NAG, LBFGS, PreconditionedGD, and
// the stronger classical baselines SilverGD, RestartNAG and
// BarzilaiBorwein, each with its reference in its documentation) is a plain
// struct of settings whose zero value gives documented defaults;
// Method.Start returns an Iterator whose Next advances every function by one
// iteration. ParseMethod builds a method from its name. Optimum estimates
// the minimal values f*_k (cached on disk) that evaluation measures
// optimality against, TuneDelta chooses the δ of PreconditionedGD and
// TuneLBFGSMemory the memory of LBFGS. docs/baselines.md compares them on
// Problem 1.
//
// LBFGS is built on gonum/optimize's exported step interfaces: every
// function has its own optimize.LBFGS as its optimize.NextDirectioner (the
// two-loop recursion and its memory) and its own optimize.MoreThuente as its
// optimize.Linesearcher (strong Wolfe conditions with c1 = 10⁻⁴, c2 = 0.9).
// It does not call optimize.Minimize, which drives one function and asks for
// one evaluation at a time: the N functions' line searches need different
// numbers of trials at different steps, and one Objective.Eval computes f and
// ∇f for all N images at once (one batched operator application, one pass
// of the parallel kernels), so the iterator drives the reverse-communication
// interfaces in lockstep. In every round each function still searching
// places its trial point, all of them are evaluated by one batched Eval, and
// each Linesearcher is given φ and φ' at its own point; an iteration costs as
// many Evals as its most demanding line search, not their sum.
//
// TuneDelta's search over log δ is a one-dimensional Nelder–Mead written here
// rather than optimize.NelderMead with optimize.Minimize. Its rule is to stop
// when the simplex is narrower than 2 % in δ, but a Minimize Converger sees
// only the best point, never the simplex, so the rule cannot be stated there.
// Every evaluation is a full run of PreconditionedGD on the training
// functions, and in one dimension gonum's shrink step asks again for the
// inside-contraction point it has just evaluated. Stopping on the values
// instead (FunctionConverge), on a small deblurring problem and with repeated
// points cached, stopped at the starting point with Iterations 2 and needed
// 19 to 26 runs with Iterations 3 to 5, against 18 here (δ within 1 %).
package baselines

// Package baselines implements the classical first-order methods that learned
// optimizers are compared against, batched over the N functions of a
// problem.Objective: every function keeps its own state (step sizes,
// line-search state, memory) while all of them share one batched
// Objective.Eval per evaluation round.
//
// A Method (GradientDescent, HeavyBall, NAG, LBFGS, PreconditionedGD) is a
// plain struct of settings whose zero value gives documented defaults;
// Method.Start returns an Iterator whose Next advances every function by one
// iteration. ParseMethod builds a method from its name. Optimum estimates
// the minimal values f*_k (cached on disk) that evaluation measures
// optimality against, and TuneDelta chooses the δ of PreconditionedGD.
//
// The line search of LBFGS and the search of TuneDelta are written here rather
// than taken from gonum/optimize: that package imports gonum/stat/distmv,
// which needs golang.org/x/tools, a module this repository's go.sum does not
// list, so it cannot be built here. LBFGS uses the bracketing and zoom line
// search of Nocedal and Wright (Algorithms 3.5 and 3.6) with safeguarded cubic
// interpolation, written as a state machine so that the searches of all
// functions can share batched evaluations; accepted steps satisfy the strong
// Wolfe conditions with c1 = 10⁻⁴, c2 = 0.9. TuneDelta runs a one-dimensional
// Nelder–Mead search on log δ.
package baselines

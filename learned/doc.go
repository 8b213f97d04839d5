// Package learned is Algorithm 2 of the paper: the learned optimizer that
// runs the parameters a trainer produced, x^{t+1} = x^t − G_θt ∇f(x^t) +
// H_φt (x^t − x^{t−1}) with θt = θT, φt = φT beyond the last trained step
// (Optimizer, Load), on the CPU or a device; its safeguards (the decrease
// rule and the BGD rule, which fall back to a gradient step of size τ); and
// the convergence certificates of the parameters: the paper's P(ε1, ε2) and
// h1/h2, and this project's Lyapunov bound (CertifyParamsBoth).
//
// The optimizer is a baselines.Method, so package eval runs it beside the
// classical methods. Checkpoints are read through package checkpoint; both
// greedy and unrolled training write them.
package learned

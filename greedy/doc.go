// Package greedy implements greedy learning to optimize: Algorithm 1 trains
// the operators of the update
//
//	x⁺ = x − G_θt ∇f(x) + H_φt (x − x⁻)
//
// one iteration at a time, choosing (θt, φt) to minimise the mean objective
// after the step, g(θ, φ) = (1/N) Σk fk(xk⁺) + λt/2‖θ − θ̃‖² + μt/2‖φ − φ̃‖², over
// N training functions; Algorithm 2 (Learned) applies the trained sequence to
// new functions, keeping the last parameters for every later iteration.
//
// The step loss g is a gorgonia graph built once from the parametrizations'
// forward expressions; its gradient in (θ, φ) comes from a single
// gorgonia.Grad, so a new parametrization needs no hand-written adjoint.
// ∇fk(xk^t) and the momentum direction xk^t − xk^{t−1} are fixed data within a
// step. When the parametrizations allow it, g is evaluated without a graph:
// by bound operators θ ↦ G_θ g (PS, PP, PC-k, PC, PF), in affine form for PS
// and M-PS (A and the regularizer's analysis operator applied once per step),
// and for PF in the coordinates of the span of the gk (exact, see
// param.Reducer). Every such path is tested against the graph. Three inner
// solvers minimise g: L-BFGS (the default), the paper's
// Nesterov method with constant step 1/L_g over alternating blocks, and the
// closed form for least-squares objectives.
//
// Memory does not grow with t: per training function only xk^t and xk^{t−1}
// are kept; each step's parameters go to the checkpoint directory and are
// dropped from memory. Checkpoints are written atomically after every step,
// and a killed run resumes bitwise-identically from its last completed step.
package greedy

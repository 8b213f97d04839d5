// Package greedy implements greedy learning to optimize: Algorithm 1 trains
// the operators of the update
//
//	x⁺ = x − G_θt ∇f(x) + H_φt (x − x⁻)
//
// one iteration at a time, choosing (θt, φt) to minimise the mean objective
// after the step, g(θ, φ) = (1/N) Σk fk(xk⁺) + λt/2‖θ − θ̃‖² + μt/2‖φ − φ̃‖², over
// N training functions; Algorithm 2 (learned.Optimizer) applies the trained sequence to
// new functions, keeping the last parameters for every later iteration.
//
// The step loss g and its gradient in (θ, φ) are package steploss's: it
// picks, once per run, the fastest evaluator the method's parametrizations
// allow (affine, reduced, bound, or a gorgonia graph of a parametrization's
// forward expression, so that a new parametrization needs no hand-written
// adjoint), all tested against the graph. ∇fk(xk^t) and the momentum
// direction xk^t − xk^{t−1} are fixed data within a step. Three inner
// solvers minimise g (Subproblem.Loss): L-BFGS (the default), the paper's
// Nesterov method with constant step 1/L_g over alternating blocks, and the
// closed form for least-squares objectives.
//
// Config.Target (package execution; one value resolved from l2o's --device
// and --precision) says where the step losses compute
// (steploss.NewStepLossFor). The CPU in float32 trains any method with the
// step loss, the iterates and ∇f in float32 (on the objectives
// problem.NewObjectiveT evaluates in float32: Problem 1's deblurring and
// CT), the parameters and inner solvers in float64: PS and PC terms compute
// in float32, other families apply their float64 terms to float32 operands
// (ExampleRegister_fastTerm trains one family both ways). A device (CUDA)
// runs the step loss on its array operations (steploss.CheckDevice): the
// step's data stay on the device, and the training iterates, ∇f(x^t) and
// the stop test stay on the host.
//
// Memory does not grow with t: per training function only xk^t and xk^{t−1}
// are kept; each step's parameters go to the checkpoint directory and are
// dropped from memory. Checkpoints are written atomically after every step,
// and a killed run resumes bitwise-identically from its last completed step.
//
// # The BGD safeguard and why it converges
//
// learned.Optimizer.Safeguard with SafeguardRule = SafeguardBGD ("l2o eval
// --safeguard bgd") accepts a function's learned step x_L from x only if
// f(x_L) ≤ f(x_g), x_g = x − τ∇f(x), and otherwise takes x_g and resets the
// momentum. Let f be L-smooth and bounded below, and τ ≤ 1/L (the iterator
// uses τ = min(Safeguard, 1/L)). Proof that ∇f(x^t) → 0 whatever θ was
// learned:
//
//	the descent lemma gives f(x_g) ≤ f(x) − τ(1 − Lτ/2)‖∇f(x)‖² ≤ f(x) − (τ/2)‖∇f(x)‖², and the rule takes
//	f(x^{t+1}) ≤ f(x_g); so f(x^{t+1}) ≤ f(x^t) − (τ/2)‖∇f(x^t)‖², and summing, Σt ‖∇f(x^t)‖² ≤ 2(f(x⁰) − inf f)/τ < ∞.
//
// Hence ‖∇f(x^t)‖ → 0 and min_{t<T} ‖∇f(x^t)‖ ≤ √(2(f(x⁰) − inf f)/(τT)),
// the guarantee of gradient descent, for any learned parameters: the
// learned step is used only when it does at least as well as gradient
// descent would from the same point. The check costs one evaluation of f
// (not ∇f) per iteration. In floating point the computed f(x_g) can exceed
// f(x) once (τ/2)‖∇f(x)‖² is below the rounding error of f (on STL-10 at
// ‖∇f‖ ≈ 3e-8); the function then keeps x, which still has f(x⁺) ≤ f(x_g),
// and x_L is accepted only if f(x_L) ≤ f(x) as well, so f never rises. The
// default rule, SafeguardDecrease (accept when f(x_L) ≤ f(x)), is monotone
// but has no such guarantee: a learned step that decreases f by ever less
// is always accepted.
package greedy

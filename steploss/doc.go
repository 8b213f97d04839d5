// Package steploss is the step-loss engine of greedy learning to optimize:
// the loss that Algorithm 1 (package greedy) minimises over the parameters
// (θ, φ) of one step,
//
//	g(θ, φ) = (1/N) Σk fk(xk⁺) + λ/2‖θ − θ̃‖² + μ/2‖φ − φ̃‖²,   x⁺ = x − G_θ ∇f(x) + H_φ (x − x⁻),
//
// its gradient in (θ, φ), its gradient in one block with the other held
// (EvalBlock, for block methods), and the next iterates x⁺. StepLoss is the
// facade: SetStep loads a step's data (x, ∇f(x), x − x⁻, λ, μ), which stay
// fixed while an inner solver evaluates the loss many times.
//
// # Evaluators
//
// The data part (1/N) Σk fk(xk⁺) and its gradient are computed by one
// evaluator, chosen once when a StepLoss is built, from what the method's
// parametrizations can do (the interfaces they implement, never their
// concrete types) and what the objective offers. From the first that
// applies:
//
//   - device (NewStepLossOn): the step's arrays stay on a device (package
//     gpu's Ops: gpu.CPU() in float64, gpu.Host32() and the CUDA device in
//     float32 with float64 sums) and an evaluation
//     brings back only the loss and the gradient, for PS, PP, PC-k and PC
//     terms (package ondevice's kinds) on objectives with a device form
//     (CheckDevice); with a term that has no device kind (user
//     parametrizations) the bound evaluator below runs the terms on the
//     host with the objective on the device (device-graph);
//   - float32 (NewStepLossIn with Float32): x⁺, f, ∇f and the spectral
//     terms in float32 with float64 sums on objectives with a float32
//     evaluation (CheckPrecision), PS and PC terms in float32 and every other
//     family by its float64 bound operator (its Binder or its graph) on
//     operands rounded to float32; one generic code path whose
//     float64 instance the tests check against the float64 evaluators. In a
//     GOEXPERIMENT=simd build on an AVX2 CPU its spectral products run in
//     vector registers (vector_amd64.go), bitwise as the scalar loops;
//   - affine: every term has one parameter and binds (models.Binder), so x⁺
//     is affine in (θ, φ), and the regularizer implements problem.Analysis
//     (or there is none): the operator and the analysis are applied to x,
//     G_1 g and H_1 p once per step, and an evaluation is pointwise work
//     (PS, M-PS): a capability of the terms that the bound evaluator below
//     uses (its affine form);
//   - reduced: bound terms whose parametrization also implements
//     models.Reducer are solved in the coordinates z of the step's subspace,
//     θ = θ̃ + E z, exactly (PF); Dim, Reference and Params then speak of
//     these working coordinates (NewStepLossFull keeps the full ones);
//   - bound: everything else. Each term is bound once a step, θ ↦ G_θ g:
//     by the family's own operator (models.Binder: PP, PC-k, PC — spectral
//     terms by one FFT per image —, and PS, M-PS on a regularizer without
//     problem.Analysis) or, for a family without one (user types), by its
//     forward expression (Apply) in a small gorgonia graph whose
//     vector–Jacobian product is the adjoint (models.GraphBinder; the
//     evaluator's kind is then "graph"). The objective runs its direct
//     batched kernels. A new parametrization needs nothing but Apply, and
//     block evaluation (frozen terms) is the same for every term.
//
// Block evaluation is eval with the frozen terms' gradients left out (one
// contract for every evaluator; see stepEvaluator.eval).
//
// Every fast evaluator is tested against the graph terms, and those
// against the whole loss as one gorgonia graph differentiated at once
// (kept for the tests): they agree to rounding. Every family's Binder is
// tested against its GraphBinder in package models. In float64 on the CPU the
// evaluator chosen for a method is fixed, so trained parameters are
// reproducible bit for bit.
//
// Memory does not grow with the number of steps: an evaluator keeps one
// step's buffers (HeldBytes) and reuses them.
package steploss

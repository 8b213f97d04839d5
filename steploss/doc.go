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
// # The engine
//
// The data part (1/N) Σk fk(xk⁺) and its gradient are computed by one
// engine on the CPU, generic in the element type: float64 (the default) and
// float32 (NewStepLossIn with Float32, on objectives with a float32
// evaluation: CheckPrecision; on an AVX2 CPU its spectral products run in
// the assembly kernels of package kernels/vec, vector_amd64.go, bitwise as
// the scalar loops). Every family enters through one term interface, bound
// once a step, θ ↦ G_θ g: the family's own operator (models.Binder) or, for
// a family without one (user types), its forward expression (Apply) in a
// small gorgonia graph whose vector–Jacobian product is the adjoint
// (models.GraphBinder). A new parametrization needs nothing but Apply. The
// terms' capabilities, found by interface when the loss is built, choose how:
//
//   - spectral (PC): the spectra of g and p kept, one FFT per image shared
//     by the spectral terms, in the precision of the engine;
//   - affine: every term has one parameter and binds, so x⁺ is affine in
//     (θ, φ), and the regularizer implements problem.Analysis (or there is
//     none): the operator and the analysis are applied to x, G_1 g and H_1 p
//     once per step, and an evaluation is pointwise work (PS, M-PS);
//   - reduced: a term whose parametrization implements models.Reducer is
//     solved in the coordinates z of the step's subspace, θ = θ̃ + E z,
//     exactly (PF); Dim, Reference and Params then speak of these working
//     coordinates (NewStepLossFull keeps the full ones);
//   - bound: anything else, by its bound operator (PP, PC-k, user types; in
//     float32 on operands rounded to float32).
//
// Block evaluation (EvalBlock) is eval with the frozen terms' gradients left
// out (one contract for every evaluator; see stepEvaluator.eval); the engine
// holds a frozen term's contribution while its parameters stay the same.
//
// On a device (NewStepLossOn) the step's arrays stay on the device (package
// gpu's Ops: gpu.CPU() in float64, gpu.Host32() and the CUDA device in
// float32 with float64 sums) and an evaluation brings back only the loss and
// the gradient, for PS, PP, PC-k, PC and PF terms (package ondevice's kinds)
// on objectives with a device form (CheckDevice); with a term that has no
// device kind (user parametrizations) the float64 engine runs the terms on
// the host against the device's objective.
//
// Every term is tested against its graph (models/bound_graph_test.go), the
// engine against the whole loss as one gorgonia graph differentiated at once
// (kept for the tests), float32 against float64, and the float64 results
// against golden checkpoints. In float64 on the CPU the path chosen for a
// method is fixed, so trained parameters are reproducible bit for bit (for
// a given GOMAXPROCS: see package kernels).
//
// Memory does not grow with the number of steps: an evaluator keeps one
// step's buffers (HeldBytes) and reuses them.
package steploss

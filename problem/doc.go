// Package problem describes the inverse problems greedyl2o learns to solve:
// forward operators, regularizers, the objectives they make and the registry
// of named problems.
//
// An Objective is a batch of N functions f_k(x) = ½‖A x − y_k‖² + α S(x) that
// share a forward operator A and a regularizer S and differ in the data y_k.
// Every objective can be evaluated two ways:
//
//   - directly, by batched kernels (Objective.Eval): f_k and ∇f_k for all k at
//     once, which baselines and evaluation use;
//   - as a gorgonia graph (Objective.GraphValue, Objective.GraphGrad), with ∇f
//     written as forward operations Aᵀ(Ax − y) + α∇S(x), so that training can
//     differentiate through it with one gorgonia.Grad.
//
// A Problem bundles an operator, a regularizer, a noise level, a seed and a
// rule for the starting point, and turns ground-truth images into an
// Objective (Problem.Instantiate). The paper's problems are registered by
// name (Lookup, Names): deblur (Huber-TV deblurring), deblur-wcrr, ct and
// ct-small. The conventions the paper leaves unstated (the blur's boundary)
// are parameters (Options.BlurBoundary) recorded in Conventions.
//
// Speed kernels sit next to the operator they speed up and are tested
// against the definitions:
//
//   - a Regularizer may implement Analysis, S(x) = Σ ψ(Kx) with a linear K
//     (Huber-TV, WCRR), so that the greedy step loss of scalar
//     parametrizations applies K once per step;
//   - a Blur with a rank-one kernel (the Gaussian of Problem 1) is applied
//     separably (separable.go), and Objective.Eval for a blur with Huber-TV
//     or without a regularizer processes the batch image by image with fused
//     kernels (fused.go).
//
// Precision: FusedObjective[F] and NewObjectiveT[F] evaluate the deblurring
// (separable blur) and CT objectives in float32 or float64, and
// Objective.InPrecision(Float32) gives an Objective whose Eval computes in
// float32 (recorded in Setting). On an AVX2 CPU (outside a purego build)
// the float32 blur passes, residual and Huber-TV rows run in vector registers
// (vector_amd64.go; VectorKernels reports it), with gradients bitwise equal to
// the scalar loops.
package problem

// Package graph is the glue between greedyl2o's kernels and gorgonia: it turns
// linear maps, bilinear maps and pointwise potentials into differentiable
// gorgonia operations, and runs built graphs repeatedly without rebuilding them.
//
// Each operation belongs to a family that is closed under differentiation:
//
//   - a linear map A and its adjoint Aᵀ (the derivative of one is the other);
//   - a bilinear map B(a, b) with its two adjoints, B₁ᵀ(c, b) in a and
//     B₂ᵀ(a, c) in b (the derivatives of each member are members again), which
//     covers convolutions where both kernel and image are graph nodes and every
//     parametrization G_θ v of a learned optimizer;
//   - a potential Σ φ(z) with its derivative φ'(z) and its Hessian-vector
//     product φ”(z)u.
//
// So gorgonia's symbolic differentiation can be applied once to a graph that
// contains ∇f written as forward operations (for example Aᵀ(Ax − y) + α Dᵀφ'(Dx)),
// and second-order quantities come out right. Never call gorgonia.Grad twice
// over one graph: gorgonia silently returns wrong values then.
//
// VJP runs a graph's forward expression and its vector–Jacobian products as
// two machines, with the outputs' gradients fed in as input nodes, so that
// they can be computed outside the graph in between: the greedy step loss
// differentiates only the parametrizations' forward expressions this way,
// and evaluates the objective by direct kernels.
//
// The numerical work is done by implementations of LinearMap, BilinearMap and
// Potential: plain Go kernels on the CPU today, device kernels later, without
// changing the packages that build graphs from them.
package graph

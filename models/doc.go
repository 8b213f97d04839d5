// Package models holds the parametrizations of a learned optimizer's linear
// operators: x⁺ = x − G_θ ∇f(x) + H_φ (x − x⁻) with G_θ and H_φ from the
// families PS (scalar), PP (pointwise), PC-k (k×k convolution), PC
// (image-sized circular convolution, by FFT) and PF (full matrix), and one
// beyond the paper: npolyD, G_θ = Σ_{j<D} θ_j (AᵀA)^j, a polynomial in the
// problem's normal operator that takes the operator of the functions it is
// applied to (OperatorAware, Method.ForOperator), so that it carries over
// to another blur or scan geometry by construction.
//
// A Parametrization is written only as a forward graph expression (Apply);
// gradients with respect to θ come from gorgonia, so a new family needs no
// hand-derived adjoint. Method pairs a G family with an optional H family
// ("m-pc" learns both, "pc:ps" names them apart).
//
// Every parametrization binds through its graph (GraphBinder: Apply in a
// small gorgonia graph, the adjoint by its vector–Jacobian product), the
// term the greedy step loss uses for families without their own and the
// oracle the others are tested against. Fast paths are optional
// capabilities, tested against the graph:
//
//   - Binder: for a fixed batch v, the linear map θ ↦ G_θ v with its adjoint
//     (a Bound), which the greedy step loss uses instead of a graph when only
//     θ changes. PS, PP and PC-k bind in image space; PC binds the spectra of
//     v (the step-loss engine computes PC spectrally itself, several terms
//     sharing their FFTs);
//   - Reducer: the step loss depends on θ only through G_θ vk, so its
//     minimiser lies in a subspace of small dimension (a Reduction). PF
//     reduces its (HW)² entries to N·HW;
//   - Preconditioner: a diagonal scaling of θ for the inner solvers;
//   - Normer: ‖G_θ‖ in closed form (PowerNorm estimates it for any family).
package models

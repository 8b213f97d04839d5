// Package models describes the inverse problems greedyl2o learns to solve and
// the learned optimizers it trains.
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
// Objective (Problem.Instantiate). Problem 1 of the paper, Huber-TV deblurring,
// is built in as Deblur.
//
// A Parametrization is a family of linear operators G_θ written only as a
// forward graph expression (PS, PP, PC-k, PC, PF); gradients with respect to θ
// come from gorgonia.
//
// Fast paths sit next to these definitions and are tested against them:
//
//   - a Parametrization may implement Binder: for a fixed batch v it returns
//     the linear map θ ↦ G_θ v with its adjoint (a Bound), which the greedy
//     step loss uses instead of a graph when only θ changes. PS, PP and PC-k
//     bind in image space; PC binds the spectra of v (a SpectralBound), so
//     that several terms share their FFTs;
//   - a Parametrization may implement Reducer: the step loss depends on θ
//     only through G_θ vk, so its minimiser lies in a subspace of small
//     dimension, returned with isometric coordinates (a Reduction). PF
//     reduces its (HW)² entries to N·HW;
//   - a Regularizer may implement Analysis, S(x) = Σ ψ(Kx) with a linear K
//     (Huber-TV, WCRR), so that the step loss of scalar parametrizations
//     applies K once per step;
//   - a Blur with a rank-one kernel (the Gaussian of Problem 1) is applied
//     separably, and Objective.Eval for a blur with Huber-TV or without a
//     regularizer processes the batch image by image with fused kernels.
package models

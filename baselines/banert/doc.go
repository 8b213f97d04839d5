// Package banert is the learned-optimizer baseline of Banert et al.
// ("Data-driven nonsmooth optimization", 2020, and its code): a small
// convolutional network h = net([x^t, ∇f(x^t), Δ_{t−1}]) proposes a direction
// that is added to the gradient under a safeguard,
//
//	x^{t+1} = x^t − (1/L)(∇f(x^t) + Δ_t),   Δ_t = α·h_t·‖∇f(x^t)‖/√(1 + ‖h_t‖²),
//
// with α = 0.9 and Δ_{−1} = 0, norms over the whole image of each function.
// So ‖Δ_t‖ < α‖∇f(x^t)‖ at every iteration, whatever the network outputs.
//
// The network (one set of weights shared by all iterations; its layout in
// package arch) is
//
//	instance norm (learned per-channel scale and offset) of the stacked input
//	→ conv 3×3 (in → 32, zero "same" padding, bias) → instance norm → leaky ReLU(0.2)
//	→ conv 3×3 (32 → 32, bias) → instance norm → leaky ReLU(0.2)
//	→ conv 3×3 (32 → 1, bias),
//
// with 3 input channels [x, ∇f, Δ] (10,567 parameters) or 4 input channels
// [x, ∇f_data, ∇f_reg, Δ] (10,857 parameters), as the authors' code stacks them.
//
// Training unrolls T iterations in one gorgonia graph, with ∇f written as
// forward operations, and minimises the objective at the final iterate with
// Adam (Train, BuildTrainingGraph). The multi-channel convolutions are
// graph.BilinearMap implementations on the mconv kernels; each hidden layer's
// bias, instance norm, affine map and leaky ReLU is one custom operation
// (keeping only its output; its backward recomputes the rest from its input),
// and the first instance norm and the safeguard are custom operations too,
// all with hand-written backward operations (first derivatives only, which
// is all unrolling needs: the network is never inside ∇f).
//
// On a device, or on the CPU in float32 (Config.Target, `l2o train banert
// --device`), the same loss and gradient come from the device's network
// operations by a hand-written reverse pass (ondevice.BanertLoss, reached
// through the target's array operations): it keeps x^t, ∇f(x^t) and Δ_t
// per iteration (three images, not the graph's every activation),
// recomputes the network at each iteration on the way back, and
// differentiates through ∇f with Hessian-vector products (the 4-input
// network's two gradient parts through their own Hessians), on objectives
// with a device form (CheckTarget).
//
// A trained network runs as a baselines.Method (Method) for any number of
// iterations, batched over all functions of an objective, with the direct
// gradient path Objective.Eval and a plain-Go forward pass of the network;
// with a Device in Method.Target its iterations run there
// (ondevice.BanertIteration).
package banert

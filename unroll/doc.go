// Package unroll trains a learned optimizer by unrolling, the baseline that
// greedy learning to optimize is compared against.
//
// For a fixed horizon T the parameters (θ0, φ0), …, (θ_{T−1}, φ_{T−1}) of the
// update
//
//	x^{t+1} = x^t − G_θt ∇f(x^t) + H_φt (x^t − x^{t−1}),   x^{−1} = x^0,
//
// all start at the reference (θ̃, φ̃) (G = τI, H = 0) and are learned jointly by
// minimising the unrolled loss (1/B) Σk Σ_{t=1..T} ωt fk(xk^t) over
// mini-batches of B training functions with Adam. The whole trajectory is one
// gorgonia graph, with ∇f written as forward operations
// (problem.Objective.GraphGrad), and one gorgonia.Grad gives the exact
// (second-order) gradient with respect to every (θt, φt). The graph is built
// once for batch size B and re-run for every mini-batch.
//
// The memory the graph holds grows linearly with T: every iterate, gradient
// and intermediate of the trajectory is kept for the backward pass. Loss
// accounts those bytes on the CPU device of package gpu (gpu.Track), so
// gpu.CPU().Stats().Peak reports them; package bench compares them with the
// constant memory of greedy training.
//
// NewLossFor on a device, or on the CPU in float32 (Config.Target),
// evaluates the same loss and gradient without a graph: a hand-written
// reverse pass on array operations (package ondevice; CUDA, or the CPU's
// float32 arrays; gpu.CPU() in float64 in tests) that keeps only the
// trajectory and its gradients, 2(T+1) batches, and the T steps' parameter
// gradients (read back in one copy), every buffer on the device's allocator, so that bench memory compares it with greedy training
// by one meter. It supports PS, PP, PC-k and PC terms on deblurring.
//
// Checkpoints are written after every epoch. The learned parameters are
// stored in the layout of package greedy (manifest.json with one step per t,
// params/theta_%05d.npy, params/phi_%05d.npy), so greedy.Load and `l2o apply`
// run an unrolled optimizer unchanged (keeping (θ_{T−1}, φ_{T−1}) beyond T);
// the manifest's inner-solver field records that the run was unrolled. The
// Adam state and the training history live in unroll.json and state/, which
// --resume reads.
package unroll

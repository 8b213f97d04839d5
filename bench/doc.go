// Package bench measures how the memory of learned-optimizer training scales
// with the number of iterations T: greedy training (one step-loss graph,
// whatever T), unrolled training (package unroll: one graph holding the whole
// trajectory) and the Banert baseline (package banert: an unrolled graph with a
// network in the loop).
//
// For each trainer and T, Measure builds the training computation, runs it,
// and reports the bytes of tensors its graph holds after a run
// (graph.HeldBytes: the values and gradients a tape machine keeps), the peak
// of the CPU device's counters of package gpu (the held bytes are recorded
// there with gpu.Track, the counter a CUDA device reports for its own
// allocations), the process's peak resident set size (VmHWM) and the training
// time. Peak RSS is a process-wide high-water mark, so each configuration
// should run in a fresh process: `l2o bench memory` re-executes itself once per
// (trainer, T) and collects the rows. Sweep orders the runs and stops a trainer
// when its memory, extrapolated linearly in T, would exceed a budget; Fit gives
// the least-squares slope in bytes per unrolled iteration.
package bench

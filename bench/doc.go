// Package bench measures how the memory of learned-optimizer training scales
// with the number of iterations T: greedy training (one step-loss graph,
// whatever T), unrolled training (package unroll: one graph holding the whole
// trajectory) and the Banert baseline (package banert: an unrolled graph with a
// network in the loop).
//
// For each trainer and T, Measure builds the training computation, runs it,
// and reports
//   - the bytes of tensors its graph holds after a run (graph.HeldBytes: the
//     values and gradients a tape machine keeps; for greedy training, the
//     step loss's HeldBytes, which on its graph-free fast path is the tally of
//     its buffers, computed for one step);
//   - the peak of the CPU device's counters of package gpu (the held bytes are
//     recorded there with gpu.Track, the counter a CUDA device reports for its
//     own allocations);
//   - the process's peak resident set size (VmHWM);
//   - the live Go heap after a garbage collection at the end of every training
//     step (greedy) or epoch (unrolled, Banert), above that before training: a
//     measurement by the runtime rather than a tally, so it sees what the
//     trainer keeps whatever the meters count;
//   - the training time (without the meter's collections).
//
// Peak RSS is a process-wide high-water mark, so each configuration
// should run in a fresh process: `l2o bench memory` re-executes itself once per
// (trainer, T) and collects the rows. Sweep orders the runs and stops a trainer
// when its memory, extrapolated linearly in T, would exceed a budget; Fit gives
// the least-squares slope in bytes per unrolled iteration.
package bench

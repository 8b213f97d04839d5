// Package execution holds where and in what arithmetic a run computes: a
// Target, resolved once from a command line's --device and --precision
// (Resolve) and passed to the factories that build what computes (the greedy
// step loss, the unrolled loss, the learned iterator, Banert's training).
//
// A Target is the CPU in float64 (the zero value), the CPU in float32, or a
// device with array operations (package gpu's Ops: CUDA), which computes in
// its own precision. The CPU has one path per precision: the names "host"
// and "host32" of --device are aliases of "cpu" and "cpu32".
package execution

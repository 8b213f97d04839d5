//go:build unix

package greedy

import "syscall"

// processCPUSeconds is the user+system CPU time of the process so far, for
// benchmarks on a shared machine (wall time suffers from other load, CPU
// time much less).
func processCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

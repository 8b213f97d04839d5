//go:build unix

package problem

import (
	"syscall"
	"testing"
)

// cpuTime returns the CPU time (user + system, all threads) this process
// has used, in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// reportCPU reports the CPU time per operation since start (a cpuTime
// value) as cpu-ns/op: unlike ns/op it hardly grows when other processes
// share the cores.
func reportCPU(b *testing.B, start int64) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

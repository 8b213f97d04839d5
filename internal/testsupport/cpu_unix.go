//go:build unix

package testsupport

import "syscall"

// CPUTime returns the CPU time (user + system, all threads) this process
// has used, in nanoseconds.
func CPUTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

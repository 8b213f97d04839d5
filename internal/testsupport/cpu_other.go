//go:build !unix

package testsupport

// CPUTime returns 0 where getrusage is not available.
func CPUTime() int64 { return 0 }

//go:build !unix

package greedy

// processCPUSeconds is not measured on this platform.
func processCPUSeconds() float64 { return 0 }

//go:build purego || !amd64

package kernels

// Without assembly the butterflies run the scalar loops.

func radix3Vec[F Float](y, x []Complex[F], s, m int, tw []Complex[F], sign F) bool { return false }
func radix4Vec[F Float](y, x []Complex[F], s, m int, tw []Complex[F], sign F) bool { return false }
func radix8Vec[F Float](y, x []Complex[F], s, m int, tw []Complex[F], sign F) bool { return false }

// vectorFFT is false: exec runs the scalar butterflies.
var vectorFFT = false

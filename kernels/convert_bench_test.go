package kernels

import (
	"fmt"
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testsupport"
)

// BenchmarkConvertLarge converts a stack of 25 images of 96² (230,400
// values: one of the host↔device copies of a greedy step on the CUDA
// device), 2²⁰ values and PF's parameters at 40×40 (1,600², the longest
// vectors) from float64 to float32 (narrow) and back (widen), with the AVX2
// kernels (vector) or the plain loop (loop), split over GOMAXPROCS
// goroutines (split) or on the calling goroutine (serial). cpu-ns/op is the
// process's CPU time per conversion, all threads.
func BenchmarkConvertLarge(b *testing.B) {
	for _, n := range []int{25 * 96 * 96, 1 << 20, 1600 * 1600} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchConvert(b, n) })
	}
}

func benchConvert(b *testing.B, n int) {
	x64, x32 := make([]float64, n), make([]float32, n)
	for i := range x64 {
		x64[i] = float64(i%977) * 1.000001
		x32[i] = float32(i%977) * 1.0001
	}
	d32, d64 := make([]float32, n), make([]float64, n)
	for _, dir := range []string{"narrow", "widen"} {
		for _, kernel := range []string{"vector", "loop"} {
			for _, split := range []string{"split", "serial"} {
				b.Run(dir+"/"+kernel+"/"+split, func(b *testing.B) {
					if kernel == "vector" && narrow == nil {
						b.Skip("no vector kernels")
					}
					if kernel == "loop" {
						n, w := narrow, widen
						narrow, widen = nil, nil
						defer func() { narrow, widen = n, w }()
					}
					convert := func() {
						switch {
						case dir == "narrow" && split == "split":
							convertSplit(d32, x64)
						case dir == "narrow":
							Convert(d32, x64)
						case split == "split":
							convertSplit(d64, x32)
						default:
							Convert(d64, x32)
						}
					}
					b.SetBytes(int64(12 * n))
					cpu := testsupport.CPUSeconds()
					for b.Loop() {
						convert()
					}
					b.ReportMetric((testsupport.CPUSeconds()-cpu)*1e9/float64(b.N), "cpu-ns/op")
				})
			}
		}
	}
}

// convertSplit is Convert split over GOMAXPROCS goroutines.
func convertSplit[D, S Float](dst []D, src []S) {
	ParallelFor(len(dst), func(lo, hi int) { Convert(dst[lo:hi], src[lo:hi]) })
}

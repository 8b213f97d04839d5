package kernels

import (
	"math"
	"runtime"
	"testing"
)

// TestLargeHelpersCoverEveryElement checks the LargeLen helpers against the
// serial loops, bitwise, at lengths below, at and above LargeLen (one not a
// multiple of the goroutines) and on 1, 3 and 8 goroutines: every element
// written once, none outside.
func TestLargeHelpersCoverEveryElement(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 3, 8} {
		runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 7, LargeLen - 1, LargeLen, 3*LargeLen + 5} {
			src := make([]float64, n)
			for i := range src {
				src[i] = math.Sin(float64(i)) * 1e3
			}
			// One sentinel past the end catches a write outside dst.
			dst := make([]float64, n+1)
			dst[n] = -1
			CopyLarge(dst[:n], src)
			for i := range src {
				if dst[i] != src[i] {
					t.Fatalf("procs %d, n %d: CopyLarge element %d = %v, want %v", procs, n, i, dst[i], src[i])
				}
			}
			f32 := make([]float32, n+1)
			f32[n] = -1
			ConvertLarge(f32[:n], src)
			for i, v := range src {
				if f32[i] != float32(v) {
					t.Fatalf("procs %d, n %d: ConvertLarge element %d = %v, want %v", procs, n, i, f32[i], float32(v))
				}
			}
			ax := make([]float64, n+1)
			ax[n] = -1
			ScaleLarge(ax[:n], -1.5, src)
			AxpyLarge(ax[:n], 0.25, src)
			for i, v := range src {
				if want := -1.5*v + 0.25*v; ax[i] != want {
					t.Fatalf("procs %d, n %d: ScaleLarge then AxpyLarge element %d = %v, want %v", procs, n, i, ax[i], want)
				}
			}
			if ax[n] != -1 {
				t.Fatalf("procs %d, n %d: ScaleLarge or AxpyLarge wrote past the end", procs, n)
			}
			ClearLarge(dst[:n])
			for i := 0; i < n; i++ {
				if dst[i] != 0 {
					t.Fatalf("procs %d, n %d: ClearLarge left element %d = %v", procs, n, i, dst[i])
				}
			}
			if dst[n] != -1 || f32[n] != -1 {
				t.Fatalf("procs %d, n %d: a helper wrote past the end", procs, n)
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("CopyLarge of slices of different lengths did not panic")
		}
	}()
	CopyLarge(make([]float64, 3), make([]float64, 4))
}

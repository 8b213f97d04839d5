package testsupport

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"testing"
)

// ReportCPU reports the CPU time per operation since start (a CPUTime
// value) as cpu-ns/op: unlike ns/op it hardly grows when other processes
// share the cores.
func ReportCPU(b *testing.B, start int64) {
	b.ReportMetric(float64(CPUTime()-start)/float64(b.N), "cpu-ns/op")
}

// GoldenArch is the architecture every golden hash was recorded on. Go
// fuses multiply-adds into one rounding on arm64, ppc64le, s390x and
// riscv64 (not on amd64), so float64 results are bitwise only within one
// architecture.
const GoldenArch = "amd64"

// SkipUnlessGoldenArch skips a golden test on another architecture than
// GoldenArch, saying why.
func SkipUnlessGoldenArch(t testing.TB) {
	t.Helper()
	if runtime.GOARCH != GoldenArch && os.Getenv("GOLDEN_PRINT") == "" {
		t.Skipf("the golden hashes are of %s's float64 arithmetic; this is %s, where Go fuses multiply-adds (record its own with GOLDEN_PRINT=1)", GoldenArch, runtime.GOARCH)
	}
}

// CheckGolden compares the hashes got with the golden ones: every output
// must have a golden hash and match it. With GOLDEN_PRINT set in the
// environment it prints got as Go map entries instead (to record new
// goldens) and checks nothing.
func CheckGolden(t testing.TB, got, golden map[string]string) {
	t.Helper()
	SkipUnlessGoldenArch(t)
	if os.Getenv("GOLDEN_PRINT") != "" {
		keys := make([]string, 0, len(got))
		for k := range got {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Printf("\t%q: %q,\n", k, got[k])
		}
		return
	}
	if len(got) != len(golden) {
		t.Errorf("%d outputs, %d golden hashes", len(got), len(golden))
	}
	for k, v := range got {
		if want, ok := golden[k]; !ok {
			t.Errorf("%s: no golden hash (got %s)", k, v)
		} else if v != want {
			t.Errorf("%s: float64 output changed: hash %s, golden %s", k, v, want)
		}
	}
}

// CPUSeconds is CPUTime in seconds.
func CPUSeconds() float64 { return float64(CPUTime()) / 1e9 }

// MaxAbs is the largest magnitude in v (0 for none).
func MaxAbs(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// RelDiff is the largest |got − want| relative to the largest magnitude of
// want (or 1e-300).
func RelDiff(got, want []float64) float64 {
	scale := math.Max(MaxAbs(want), 1e-300)
	var d float64
	for i := range got {
		d = math.Max(d, math.Abs(got[i]-want[i]))
	}
	return d / scale
}

// NormDiff is ‖a − b‖/‖b‖.
func NormDiff(a, b []float64) float64 {
	var d, n float64
	for i := range a {
		d += (a[i] - b[i]) * (a[i] - b[i])
		n += b[i] * b[i]
	}
	return math.Sqrt(d / n)
}

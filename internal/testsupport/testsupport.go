package testsupport

import (
	"fmt"
	"os"
	"sort"
	"testing"
)

// ReportCPU reports the CPU time per operation since start (a CPUTime
// value) as cpu-ns/op: unlike ns/op it hardly grows when other processes
// share the cores.
func ReportCPU(b *testing.B, start int64) {
	b.ReportMetric(float64(CPUTime()-start)/float64(b.N), "cpu-ns/op")
}

// CheckGolden compares the hashes got with the golden ones: every output
// must have a golden hash and match it. With GOLDEN_PRINT set in the
// environment it prints got as Go map entries instead (to record new
// goldens) and checks nothing.
func CheckGolden(t testing.TB, got, golden map[string]string) {
	t.Helper()
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

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeRun writes the results of a gpu-check run in dir, with the cuda
// greedy losses scaled by scale (1: agreement).
func writeRun(t *testing.T, dir string, scale float64, failTest bool) {
	t.Helper()
	put := func(name string, v any) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var raw []byte
		switch v := v.(type) {
		case string:
			raw = []byte(v)
		default:
			var err error
			if raw, err = json.Marshal(v); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("env.txt", "date: 2026-11-25T00:00:00Z\nGPU: NVIDIA H100 80GB HBM3, 9.0, 81559 MiB, 550.54\n")
	status := "test-cuda 0\ntest-launch 0\nmemory-cuda 0\nbench-steploss 0\n"
	for _, run := range []string{"greedy", "ct", "unroll", "banert"} {
		status += run + "-cuda 0\n" + run + "-cpu 0\n"
	}
	put("status.txt", status)
	cudaLog := "=== RUN   TestA\n--- PASS: TestA (0.01s)\n--- SKIP: TestB (0.00s)\nPASS\n"
	if failTest {
		cudaLog = "--- PASS: TestA (0.01s)\n--- FAIL: TestC (0.00s)\nFAIL\n"
	}
	put("test-cuda.txt", cudaLog)
	put("test-launch.txt", "--- PASS: TestX (0.00s)\nPASS\nok  \tgithub.com/greedyl2o/greedyl2o/gpu/launch\t1.0s\n")
	steps := func(s float64, secs float64) map[string]any {
		return map[string]any{"steps": []map[string]any{
			{"t": 0, "loss": 0.5 * s, "seconds": secs, "evaluations": 100},
			{"t": 1, "loss": 0.25 * s, "seconds": secs, "evaluations": 100},
		}}
	}
	put("greedy-cuda/manifest.json", steps(scale, 0.01))
	put("greedy-cpu/manifest.json", steps(1, 0.5))
	put("ct-cuda/manifest.json", steps(1, 0.01))
	put("ct-cpu/manifest.json", steps(1, 0.2))
	epochs := func(s float64) map[string]any {
		return map[string]any{"epochs": []map[string]any{{"epoch": 0, "mean_loss": 0.8, "seconds_per_step": s}, {"epoch": 1, "mean_loss": 0.7, "seconds_per_step": s}}}
	}
	put("unroll-cuda/unroll.json", epochs(0.002))
	put("unroll-cpu/unroll.json", epochs(0.1))
	hist := func(s float64) map[string]any {
		return map[string]any{"history": []map[string]any{{"epoch": 1, "mean_loss": 0.08, "step_seconds": s}}}
	}
	put("banert-cuda/manifest.json", hist(0.01))
	put("banert-cpu/manifest.json", hist(1))
	put("bench-steploss.txt", "goos: linux\nBenchmarkStepLossMPS-16    \t     200\t   1250000 ns/op\t 1.2 cpu-ms/op\n"+
		"BenchmarkStepLossMPC-16    \t     200\t   3000000 ns/op\n"+
		"BenchmarkStepLossCUDA/m-ps-16 \t     200\t    250000 ns/op\n"+
		"BenchmarkStepLossCUDA/m-pc-16 \t     200\t    600000 ns/op\nPASS\n")
	put("memory-cuda/memory.json", map[string]any{"rows": []map[string]any{
		{"trainer": "greedy", "T": 1, "device_peak_bytes": 1e7},
		{"trainer": "greedy", "T": 10, "device_peak_bytes": 1e7},
		{"trainer": "unrolled", "T": 1, "device_peak_bytes": 2e7},
	}})
}

func TestSummarizeAgreement(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, 1, false)
	r, err := summarize(dir)
	if err != nil {
		t.Fatal(err)
	}
	md := r.markdown()
	if r.failed() {
		t.Errorf("an agreeing run fails:\n%s", md)
	}
	for _, want := range []string{"NVIDIA H100", "1 passed, 0 failed, 1 skipped", "50× faster", "greedy M-PC step", "unrolled M-PC", "Banert", "T=10: 10 MB", "M-PS step loss + gradient, N = 25, 96² (s an evaluation) | 0.25 ms | 1.25 ms | 5× faster", "M-PC step loss + gradient, N = 25, 96² (s an evaluation) | 0.6 ms | 3 ms | 5× faster"} {
		if !strings.Contains(md, want) {
			t.Errorf("the table lacks %q:\n%s", want, md)
		}
	}
}

func TestSummarizeCatchesDisagreementAndFailures(t *testing.T) {
	for _, c := range []struct {
		name   string
		scale  float64
		fail   bool
		status string // appended to status.txt
		want   string
	}{
		{"greedy losses 1% apart", 1.01, false, "", "greedy: greedy M-PC step: loss"},
		{"a failed CUDA test", 1, true, "", "test-cuda:"},
		{"a failed training", 1, false, "banert-cuda 1\n", "banert-cuda:"},
		{"a failed build", 1, false, "build-cuda 2\n", "build-cuda"},
		{"a failed step-loss benchmark", 1, false, "bench-steploss 1\n", "bench-steploss:"},
	} {
		dir := t.TempDir()
		writeRun(t, dir, c.scale, c.fail)
		if c.status != "" {
			f, err := os.OpenFile(filepath.Join(dir, "status.txt"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(c.status)
			f.Close()
		}
		r, err := summarize(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !r.failed() {
			t.Errorf("%s: passes:\n%s", c.name, r.markdown())
			continue
		}
		found := false
		for _, w := range r.rows {
			if w.verdict == "FAIL" && strings.HasPrefix(w.check, c.want) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no failing row starting %q:\n%s", c.name, c.want, r.markdown())
		}
	}
	if _, err := summarize(t.TempDir()); err == nil {
		t.Error("an empty directory summarizes")
	}
}

// TestSummarizeProfileIsNotACheck: the kernel profile (ncu) is a measurement:
// its failure (no permission for the GPU's counters, say) is shown with its
// exit status but does not fail the check.
func TestSummarizeProfileIsNotACheck(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, 1, false)
	f, err := os.OpenFile(filepath.Join(dir, "status.txt"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("profile-kernels 1\n")
	f.Close()
	r, err := summarize(dir)
	if err != nil {
		t.Fatal(err)
	}
	md := r.markdown()
	if r.failed() {
		t.Errorf("a failed profile fails the check:\n%s", md)
	}
	if !strings.Contains(md, "profile-kernels: profile (see profile-kernels.txt) |  |  | exit 1 |") {
		t.Errorf("the table does not show the profile's exit status:\n%s", md)
	}
}

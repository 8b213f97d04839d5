package deploy

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
)

// TestRanksOnEmulatedGPU runs mpi-cuda-emu.sh: bin/l2o-mpi-cuda (tags mpi
// and l2ocuda) trains greedy M-PC with --device cuda under mpirun -np 1 and
// 2 on the CPU emulation of the CUDA driver (scripts/cuda-emu, one device).
// Each rank opens the device of its local rank modulo the device count
// (here device 0 for both) and says so. Under -np 1 every .npy and the
// steps' records equal the single-process --device cuda run's byte for
// byte (the same device arithmetic). Under -np 2 the functions' data and
// observations hashes equal it byte for byte (built a block a rank on the
// host), and every .npy agrees to float32 rounding: each rank sums its
// block on the device and the blocks' sums are added on the host, in
// another order than the device's sum over all the functions.
func TestRanksOnEmulatedGPU(t *testing.T) {
	mpiAvailable(t)
	for _, tool := range []string{"go", "g++", "nm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s: the CPU emulation of the CUDA driver is built with it (.ci/cuda.sh installs what it needs)", tool)
		}
	}
	for _, h := range []string{"/usr/include/cuda.h", "/usr/include/cufft.h"} {
		if _, err := os.Stat(h); err != nil {
			t.Skipf("no %s: the l2ocuda build needs Debian's nvidia-cuda-dev (.ci/cuda.sh installs it)", h)
		}
	}
	out := t.TempDir()
	env := map[string]string{"OUT": out}
	for k, v := range asRoot {
		env[k] = v
	}
	run(t, env, "bash", "mpi-cuda-emu.sh")
	one := checkpointFiles(t, filepath.Join(out, "one"))
	device := regexp.MustCompile(`note: rank (\d) of 2 \(local rank (\d)\) runs on device (cuda:\d+)`)
	log, err := os.ReadFile(filepath.Join(out, "np2.log"))
	if err != nil {
		t.Fatal(err)
	}
	ranks := device.FindAllStringSubmatch(string(log), -1)
	if len(ranks) != 2 {
		t.Errorf("mpirun -np 2: %d ranks said which device they run on:\n%s", len(ranks), log)
	}
	for _, m := range ranks {
		if m[1] != m[2] || m[3] != "cuda:0" {
			t.Errorf("rank %s (local rank %s) ran on %s, want cuda:0 (its local rank modulo the one emulated device)", m[1], m[2], m[3])
		}
	}
	for _, np := range []string{"1", "2"} {
		dir := filepath.Join(out, "np"+np)
		got := checkpointFiles(t, dir)
		if len(got) != len(one) {
			t.Errorf("-np %s wrote %d files, the single process %d", np, len(got), len(one))
		}
		if a, b := manifestText(t, filepath.Join(out, "one")), manifestText(t, dir); a != b {
			t.Errorf("-np %s: the manifest records\n%s\nthe single process's\n%s", np, b, a)
		}
		for name, want := range one {
			if np == "1" || name == "steps" {
				if np == "1" && !bytes.Equal(got[name], want) {
					t.Errorf("-np 1: %s differs from the single process's", name)
				}
				continue
			}
			if d := relDiff(t, got[name], want, name); d > 1e-5 {
				t.Errorf("-np 2: %s differs from the single process's by %.3g of its largest value", name, d)
			} else {
				t.Logf("-np 2: %s within %.3g of its largest value", name, d)
			}
		}
	}
}

// relDiff is the largest difference between two .npy files' values over
// the largest magnitude of want's.
func relDiff(t *testing.T, got, want []byte, name string) float64 {
	t.Helper()
	a, err := checkpoint.DecodeNPY(got, name, -1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := checkpoint.DecodeNPY(want, name, -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) {
		t.Fatalf("%s: %d values, want %d", name, len(a), len(b))
	}
	var d, m float64
	for i := range a {
		d, m = math.Max(d, math.Abs(a[i]-b[i])), math.Max(m, math.Abs(b[i]))
	}
	if m == 0 {
		m = 1
	}
	return d / m
}

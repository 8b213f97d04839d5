package cmd

import (
	"bytes"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
)

// trainSteps trains M-PC for steps greedy steps through the command line
// with the given --device (and extra flags) into dir and returns every
// step's θ‖φ and the manifest.
func trainSteps(t *testing.T, dir string, steps int, extra ...string) ([][]float64, *checkpoint.Manifest) {
	t.Helper()
	args := append([]string{"train", "greedy", "--size", "16", "--n-train", "3", "--param", "m-pc", "--max-steps", strconv.Itoa(steps),
		"--tol-rel", "0", "--inner", "lbfgs", "--lambda", "1e-3", "--mu", "1e-3", "--out", dir}, extra...)
	var o, errb bytes.Buffer
	if code := Main(args, &o, &errb); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errb.String())
	}
	man, err := checkpoint.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	var params [][]float64
	for s := range man.Steps {
		theta, phi, err := checkpoint.LoadParams(dir, man, s)
		if err != nil {
			t.Fatal(err)
		}
		params = append(params, append(append([]float64(nil), theta...), phi...))
	}
	return params, man
}

// sameBits reports the first step and index where a and b differ in any
// bit (-1, -1 when none).
func sameBits(a, b [][]float64) (step, i int) {
	if len(a) != len(b) {
		return len(a), -1
	}
	for s := range a {
		if len(a[s]) != len(b[s]) {
			return s, -1
		}
		for i := range a[s] {
			if math.Float64bits(a[s][i]) != math.Float64bits(b[s][i]) {
				return s, i
			}
		}
	}
	return -1, -1
}

// TestHostIsTheCPU: --device host trains bitwise the M-PC parameters of
// --device cpu, and host32 those of cpu32 (and of --precision float32),
// with the same record in the manifest (device, precision); a run trained
// on host resumes under cpu, bitwise that of an uninterrupted cpu run.
func TestHostIsTheCPU(t *testing.T) {
	dir := t.TempDir()
	run := func(name string, steps int, extra ...string) ([][]float64, *checkpoint.Manifest) {
		return trainSteps(t, filepath.Join(dir, name), steps, extra...)
	}
	cpu, _ := run("cpu", 2, "--device", "cpu")
	for _, c := range []struct {
		name, device, precision string
		want                    [][]float64
		wantPrec                string
	}{
		{"host", "host", "", cpu, ""},
		{"cpu32", "cpu32", "", nil, "float32"},
		{"host32", "host32", "", nil, "float32"},
		{"precision32", "cpu", "float32", nil, "float32"},
	} {
		extra := []string{"--device", c.device}
		if c.precision != "" {
			extra = append(extra, "--precision", c.precision)
		}
		got, m := run(c.name, 2, extra...)
		if c.want == nil {
			c.want = cpu
			if c.wantPrec == "float32" {
				c.want, _ = run(c.name+"-ref", 2, "--device", "cpu32")
			}
		}
		if s, i := sameBits(got, c.want); s >= 0 {
			t.Errorf("--device %s: step %d parameter %d differs from the CPU's in %s", c.device, s, i, or(c.wantPrec, "float64"))
		}
		if m.Device != "" || string(m.Precision) != c.wantPrec {
			t.Errorf("--device %s: manifest device %q precision %q, want none and %q", c.device, m.Device, m.Precision, c.wantPrec)
		}
	}
	if s, i := sameBits(cpu, func() [][]float64 { p, _ := run("cpu32-vs-64", 2, "--device", "cpu32"); return p }()); s < 0 && i < 0 {
		t.Errorf("float32 and float64 trained bitwise the same parameters: the precision was not applied")
	}
	// Host then CPU: one step under host, resumed to two under cpu.
	split := filepath.Join(dir, "split")
	trainSteps(t, split, 1, "--device", "host")
	resumed, mr := trainSteps(t, split, 2, "--device", "cpu", "--resume")
	if s, i := sameBits(resumed, cpu); s >= 0 {
		t.Errorf("trained on host and resumed on cpu: step %d parameter %d differs from the uninterrupted run", s, i)
	}
	for i, st := range mr.Steps {
		if st.Device != "" {
			t.Errorf("step %d records target %q: host and cpu are one path, nothing to record", i, st.Device)
		}
	}
}

// TestTargetFlagsRefused: contradicting --device and --precision exit 2
// naming the flag at fault, before any data is built (nothing built, and
// the data folder, which does not exist, not read).
func TestTargetFlagsRefused(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-data")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "greedy", "--device", "cpu32", "--precision", "float64"}, "--precision float64: --device cpu32 computes in float32"},
		{[]string{"train", "greedy", "--device", "host32", "--precision", "float64"}, "--precision float64: --device host32 computes in float32"},
		{[]string{"eval", "--methods", "gd", "--device", "cuda", "--precision", "float32"}, "--precision float32 with --device cuda"},
		{[]string{"train", "greedy", "--precision", "float16"}, "--precision float16"},
		{[]string{"train", "greedy", "--device", "tpu"}, "--device tpu"},
		{[]string{"tune", "pgd", "--device", "host32"}, "--device host32 (float32 on the CPU)"},
		{[]string{"tune", "pgd", "--device", "test-ops"}, "this command runs on the CPU"},
	} {
		args := append(append([]string(nil), c.args...), "--data", missing)
		var o, errb bytes.Buffer
		built := dataBuilds.Load()
		code := Main(args, &o, &errb)
		if n := dataBuilds.Load() - built; n != 0 {
			t.Errorf("%v: refused after building the problem and its data (%d)", c.args, n)
		}
		if code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, want 2 naming %q: %s", c.args, code, c.want, errb.String())
		}
		if strings.Contains(errb.String(), "no-such-data") {
			t.Errorf("%v: the data was read before the flags were checked: %s", c.args, errb.String())
		}
	}
}

func or(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

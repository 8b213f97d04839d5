package cmd

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/eval"
)

// TestEvalFloat32OnTrainingFunctions trains M-PC in float32 and runs it with
// eval --set train --precision float32 on its training functions: the mean
// objective after t iterations matches the training record after step t−1 to
// 1e-5 (training forms x⁺ in float32, eval in float64 from float32
// gradients), the curves record the precision, and bad precisions exit
// with 2.
func TestEvalFloat32OnTrainingFunctions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	var out, errb bytes.Buffer
	if code := Main([]string{"train", "greedy", "--param", "m-pc", "--size", "12", "--n-train", "3", "--max-steps", "4",
		"--precision", "float32", "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb.String())
	}
	evalDir := filepath.Join(t.TempDir(), "eval")
	errb.Reset()
	if code := Main([]string{"eval", "--params", dir, "--set", "train", "--n-test", "3", "--methods", "nag", "--iters", "4",
		"--precision", "float32", "--fstar-iters", "50", "--cache", t.TempDir(), "--out", evalDir}, &out, &errb); code != 0 {
		t.Fatalf("eval --precision float32: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "trained in float32") {
		t.Errorf("no note on the training precision: %s", errb.String())
	}
	out.Reset()
	if code := Main([]string{"runs", "show", evalDir}, &out, &errb); code != 0 || !strings.Contains(out.String(), "trained in float32") {
		t.Errorf("the curves' provenance does not record the training precision: exit %d:\n%s", code, out.String())
	}
	m, err := checkpoint.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	curves := float32Curves(t, evalDir)
	c := curves[0]
	for step := range m.Steps {
		var mean float64
		for _, v := range c.F[step+1] {
			mean += v / float64(len(c.F[step+1]))
		}
		d := math.Abs(mean-m.Steps[step].MeanF) / m.Steps[step].MeanF
		t.Logf("iteration %d: eval %.12g, training %.12g (%.2g)", step+1, mean, m.Steps[step].MeanF, d)
		if d > 1e-5 {
			t.Errorf("iteration %d: mean f %.12g in float32 eval, training recorded %.12g", step+1, mean, m.Steps[step].MeanF)
		}
	}
	out.Reset()
	errb.Reset()
	if code := Main([]string{"apply", "--params", dir, "--n-test", "2", "--iters", "3", "--precision", "float32"}, &out, &errb); code != 0 ||
		!strings.Contains(out.String(), "float32 evaluations") {
		t.Errorf("apply --precision float32: exit %d, output %q (%s)", code, out.String(), errb.String())
	}
	for _, bad := range [][]string{
		{"--precision", "half"},
		{"--precision", "float32", "--shift", "noise=0.02"},
	} {
		errb.Reset()
		args := append([]string{"eval", "--methods", "gd", "--n-test", "2", "--iters", "2", "--fstar-iters", "10", "--cache", t.TempDir(),
			"--out", filepath.Join(t.TempDir(), "x")}, bad...)
		if code := Main(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), "precision") {
			t.Errorf("%v: exit %d, want 2 naming the precision (%s)", bad, code, errb.String())
		}
	}
}

// TestBenchGreedyFloat32 runs bench greedy --precision float32 on a small
// problem: it trains and evaluates (the curves record the precision) and
// refuses a problem without a float32 objective with exit 2.
func TestBenchGreedyFloat32(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bench")
	var out, errb bytes.Buffer
	args := []string{"bench", "greedy", "--size", "16", "--n-train", "3", "--n-test", "2", "--params", "m-pc", "--inner", "lbfgs",
		"--max-steps", "2", "--at", "2", "--fstar-iters", "20", "--cache", t.TempDir(), "--precision", "float32", "--out", dir}
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("bench greedy --precision float32: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "float32") {
		t.Errorf("the header does not name float32:\n%s", out.String())
	}
	float32Curves(t, dir)
	errb.Reset()
	if code := Main([]string{"bench", "greedy", "--size", "8", "--n-train", "2", "--params", "m-pc", "--precision", "float32",
		"--problem", "deblur-wcrr", "--wcrr-weights", wcrrWeights(t), "--out", filepath.Join(t.TempDir(), "x")}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--precision") {
		t.Errorf("deblur-wcrr (no float32 objective) in float32: exit %d, want 2 naming --precision (%s)", code, errb.String())
	}
}

// readCurvesJSON reads dir/curves.json, failing t if it cannot.
func readCurvesJSON(t *testing.T, dir string) []*eval.Curve {
	t.Helper()
	curves, _ := readCurvesAndProvenance(t, dir)
	return curves
}

// float32Curves reads dir/curves.json and fails t unless every curve records
// precision=float32 in its setting.
func float32Curves(t *testing.T, dir string) []*eval.Curve {
	t.Helper()
	curves := readCurvesJSON(t, dir)
	for _, c := range curves {
		if c.Setting["precision"] != "float32" {
			t.Errorf("%s: setting precision %q", c.Method, c.Setting["precision"])
		}
	}
	return curves
}

// TestDeviceCPU32TrainsMPC: --device cpu32 is --precision float32 on the
// CPU: M-PC trains, the manifest records float32, and the parameters equal
// those of --precision float32 bitwise and differ from float64's; a contradicting --precision and a
// command without a float32 path exit 2.
func TestDeviceCPU32TrainsMPC(t *testing.T) {
	dir := t.TempDir()
	base := []string{"train", "greedy", "--size", "12", "--n-train", "3", "--param", "m-pc", "--max-steps", "3", "--tol-rel", "0"}
	for _, c := range []struct {
		out  string
		args []string
	}{{"cpu32", []string{"--device", "cpu32"}}, {"f32", []string{"--precision", "float32"}}, {"f64", nil}} {
		var o, e bytes.Buffer
		if code := Main(append(append(append([]string(nil), base...), c.args...), "--out", filepath.Join(dir, c.out)), &o, &e); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, e.String())
		}
	}
	a, err := checkpoint.ReadManifest(filepath.Join(dir, "cpu32"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := checkpoint.ReadManifest(filepath.Join(dir, "f32"))
	f64, _ := checkpoint.ReadManifest(filepath.Join(dir, "f64"))
	if a.Checksums["params/theta_00002.npy"] == f64.Checksums["params/theta_00002.npy"] {
		t.Error("--device cpu32 trained the float64 run's θ: it did not compute in float32")
	}
	if a.Precision != "float32" || len(a.Steps) != 3 || a.Checksums["params/theta_00002.npy"] != b.Checksums["params/theta_00002.npy"] {
		t.Errorf("--device cpu32: precision %q, %d steps; θ2 %s, with --precision float32 %s", a.Precision, len(a.Steps), a.Checksums["params/theta_00002.npy"], b.Checksums["params/theta_00002.npy"])
	}
	for _, args := range [][]string{
		append(append([]string(nil), base...), "--device", "cpu32", "--precision", "float64", "--out", filepath.Join(dir, "x")),
		{"problem", "info", "--device", "cpu32"},
	} {
		var o, e bytes.Buffer
		if code := Main(args, &o, &e); code != 2 || !strings.Contains(e.String(), "cpu32") {
			t.Errorf("%v: exit %d: %s", args, code, e.String())
		}
	}
}

package cmd

import (
	"bytes"
	"math"
	"path/filepath"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
)

// TestEvalOnTrainingFunctions checks that eval --set train runs the learned
// optimizer on the very functions it was trained on: its mean objective after
// t iterations equals the training run's record after step t−1.
func TestEvalOnTrainingFunctions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	var out, errb bytes.Buffer
	if code := Main([]string{"train", "greedy", "--param", "m-pc", "--size", "12", "--n-train", "3", "--max-steps", "4", "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb.String())
	}
	evalDir := filepath.Join(t.TempDir(), "eval")
	if code := Main([]string{"eval", "--params", dir, "--set", "train", "--n-test", "3", "--methods", "gd", "--iters", "4",
		"--fstar-iters", "50", "--cache", t.TempDir(), "--out", evalDir}, &out, &errb); code != 0 {
		t.Fatalf("eval --set train: exit %d: %s", code, errb.String())
	}
	m, err := checkpoint.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := readCurvesJSON(t, evalDir)[0]
	for step := range m.Steps {
		var mean float64
		for _, v := range c.F[step+1] {
			mean += v / float64(len(c.F[step+1]))
		}
		if d := math.Abs(mean-m.Steps[step].MeanF) / m.Steps[step].MeanF; d > 1e-10 {
			t.Errorf("iteration %d: mean f %.15g on --set train, training recorded %.15g", step+1, mean, m.Steps[step].MeanF)
		}
	}
	if code := Main([]string{"eval", "--params", dir, "--set", "validation", "--out", filepath.Join(t.TempDir(), "e")}, &out, &errb); code != 2 {
		t.Errorf("--set validation: exit %d, want 2", code)
	}
}

package cmd

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
)

// TestPaperProtocolExpands checks that --protocol paper sets the paper's
// budgets, weights, loss reduction (the sum) and tolerance on the flags not given, that each given
// flag overrides it, and that the manifest records the result.
func TestPaperProtocolExpands(t *testing.T) {
	for _, c := range []struct {
		name     string
		args     []string
		settings string
		tolRel   float64
		nTrain   int
		red      string
		protocol string
	}{
		{"deblur, budget overridden", []string{"--param", "m-pc", "--size", "12", "--n-train", "2", "--nag-iters", "3"},
			"nag(iters=3+3,rounds=10,step=paper)", 1e7, 2, "sum", "paper (but --max-steps 1, --n-train 2, --nag-iters 3)"},
		{"ct-small, paper budget", []string{"--problem", "ct-small", "--param", "ps", "--size", "12"},
			"nag(iters=500,rounds=1,step=paper)", 1e12, 25, "sum", "paper (but --max-steps 1)"},
		{"step rule and reduction overridden", []string{"--param", "m-ps", "--size", "12", "--n-train", "3", "--nag-step", "exact", "--nag-rounds", "2", "--loss-reduction", "mean"},
			"nag(iters=100+100,rounds=2,step=exact)", 1e7, 3, "", "paper (but --loss-reduction mean, --max-steps 1, --n-train 3, --nag-rounds 2, --nag-step exact)"},
	} {
		dir := filepath.Join(t.TempDir(), "run")
		var out, errb bytes.Buffer
		args := append([]string{"train", "greedy", "--protocol", "paper", "--max-steps", "1", "--out", dir}, c.args...)
		if code := Main(args, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, errb.String())
		}
		if !strings.Contains(out.String(), "protocol paper:") || !strings.Contains(out.String(), "lambda=0") {
			t.Errorf("%s: the preset is not printed:\n%s", c.name, out.String())
		}
		m, err := checkpoint.ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		if m.InnerSettings != c.settings || m.Protocol != c.protocol || m.Lambda != "0" || m.Mu != "0" || m.TolRel != c.tolRel || m.NTrain != c.nTrain || m.MaxSteps != 1 || m.LossReduction != c.red {
			t.Errorf("%s: manifest inner %q protocol %q λ %s μ %s tol %g n %d max %d reduction %q; want %q %q 0 0 %g %d 1 %q",
				c.name, m.InnerSettings, m.Protocol, m.Lambda, m.Mu, m.TolRel, m.NTrain, m.MaxSteps, m.LossReduction, c.settings, c.protocol, c.tolRel, c.nTrain, c.red)
		}
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"train", "greedy", "--protocol", "fast", "--out", filepath.Join(t.TempDir(), "x")}, &out, &errb); code != 2 {
		t.Errorf("unknown protocol: exit %d, want 2", code)
	}
	if code := Main([]string{"train", "greedy", "--nag-step", "huge", "--inner", "nag", "--out", filepath.Join(t.TempDir(), "y")}, &out, &errb); code != 2 {
		t.Errorf("unknown NAG step rule: exit %d, want 2", code)
	}
}

// TestAutoInnerSolver checks the default inner solver: L-BFGS for scalar
// parametrizations, NAG with 250 iterations a block and 1 round otherwise,
// the NAG flags overriding its budget.
func TestAutoInnerSolver(t *testing.T) {
	for _, c := range []struct {
		args     []string
		settings string
	}{
		{[]string{"--param", "m-ps"}, "lbfgs(rel_tol=1e-06,max_evals=1000,memory=10,precond=true)"},
		{[]string{"--param", "m-pc"}, "nag(iters=250+250,rounds=1,step=exact)"},
		{[]string{"--param", "pc"}, "nag(iters=250,rounds=1,step=exact)"},
		{[]string{"--param", "m-pp", "--nag-iters", "7"}, "nag(iters=7+7,rounds=1,step=exact)"},
	} {
		dir := filepath.Join(t.TempDir(), "run")
		var out, errb bytes.Buffer
		args := append([]string{"train", "greedy", "--size", "10", "--n-train", "2", "--max-steps", "1", "--out", dir}, c.args...)
		if code := Main(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errb.String())
		}
		m, err := checkpoint.ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		if m.InnerSettings != c.settings {
			t.Errorf("%v: inner %q, want %q", c.args, m.InnerSettings, c.settings)
		}
	}
}

// TestBenchGreedyProtocolSums checks that bench greedy's --protocol paper
// weighs explicit penalties against the sum as train greedy's does: its
// checkpoint records the sum and its steps λt/N.
func TestBenchGreedyProtocolSums(t *testing.T) {
	out := filepath.Join(t.TempDir(), "bench")
	var stdout, stderr bytes.Buffer
	args := []string{"bench", "greedy", "--protocol", "paper", "--size", "12", "--n-train", "4", "--n-test", "2", "--params", "m-ps", "--inner", "lbfgs",
		"--lambda", "1e-2", "--max-steps", "2", "--at", "3", "--fstar-iters", "50", "--cache", t.TempDir(), "--out", out}
	if code := Main(args, &stdout, &stderr); code != 0 {
		t.Fatalf("bench greedy --protocol paper: exit %d: %s", code, stderr.String())
	}
	m, err := checkpoint.ReadManifest(filepath.Join(out, "m-ps-lbfgs"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Steps) == 0 {
		t.Fatal("bench greedy trained no step")
	}
	if m.LossReduction != "sum" || m.Steps[0].Lambda != 1e-2/4 {
		t.Errorf("bench greedy --protocol paper --lambda 1e-2 on 4 functions: reduction %q, λ0 %g; want sum and 2.5e-3",
			m.LossReduction, m.Steps[0].Lambda)
	}
}

// TestEvalProtocolTakesTheCheckpointsSplit: the paper preset's --n-train 25
// is not the user's, so eval of a checkpoint trained on 2 functions follows
// the checkpoint's split instead of refusing a --n-train nobody gave.
func TestEvalProtocolTakesTheCheckpointsSplit(t *testing.T) {
	dir := t.TempDir()
	ck := filepath.Join(dir, "run")
	var out, errb bytes.Buffer
	for _, args := range [][]string{
		{"train", "greedy", "--param", "ps", "--size", "8", "--n-train", "2", "--max-steps", "1", "--out", ck},
		{"eval", "--protocol", "paper", "--params", ck, "--methods", "gd", "--n-test", "2", "--iters", "3", "--fstar-iters", "5", "--cache", dir, "--out", filepath.Join(dir, "eval")},
	} {
		if code := Main(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
	}
	if code := Main([]string{"eval", "--protocol", "paper", "--params", ck, "--n-train", "3", "--methods", "gd", "--n-test", "2", "--out", filepath.Join(dir, "eval2")}, &out, &errb); code != 2 {
		t.Errorf("eval with a --n-train the user gave against the checkpoint's: exit %d, want 2", code)
	}
}

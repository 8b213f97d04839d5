package cmd

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/baselines"
)

// TestTuneLBFGS runs l2o tune lbfgs on 3 small synthetic training functions
// and checks that the memory it prints is one of the candidates, is the one
// baselines.TuneLBFGSMemory chooses on the same functions with the same f*,
// and that every printed score is TuneLBFGSMemory's; the same without f*
// (--fstar-iters 0, ranked by the mean objective).
func TestTuneLBFGS(t *testing.T) {
	cache := t.TempDir()
	pf := problemFlags{Problem: "deblur", Data: "synthetic", Size: 16, NTrain: 3, Seed: 1}
	_, train, _, err := pf.build()
	if err != nil {
		t.Fatal(err)
	}
	// The best memory (on these functions the largest) is neither first nor
	// last in the order tried.
	mems := []int{8, 30, 2, 4}
	for _, fstarIters := range []int{300, 0} {
		var out, errb bytes.Buffer
		args := []string{"tune", "lbfgs", "--data", "synthetic", "--size", "16", "--n-train", "3", "--iters", "25",
			"--memories", "8,30,2,4", "--fstar-iters", strconv.Itoa(fstarIters), "--cache", cache}
		if code := Main(args, &out, &errb); code != 0 {
			t.Fatalf("%v exited %d: %s", args, code, errb.String())
		}
		if !strings.Contains(out.String(), "tuned on: --data synthetic --seed 1, 3 functions of 16×16") {
			t.Errorf("the tuning does not say what it ran on:\n%s", out.String())
		}
		var fstar []float64
		if fstarIters > 0 {
			if fstar, err = baselines.Optimum(train, fstarIters, cache); err != nil {
				t.Fatal(err)
			}
		}
		want, scores, err := baselines.TuneLBFGSMemory(train, fstar, 25, mems)
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`m = (\d+) minimises the mean (optimality|objective) after 25 L-BFGS iterations .*eval method lbfgs:m=(\d+) `).FindStringSubmatch(out.String())
		if m == nil {
			t.Fatalf("no chosen memory printed:\n%s", out.String())
		}
		got, _ := strconv.Atoi(m[1])
		if !slices.Contains(mems, got) || m[3] != m[1] {
			t.Errorf("printed memory %s (method lbfgs:m=%s), not one of the candidates %v", m[1], m[3], mems)
		}
		if got != want {
			t.Errorf("fstar-iters %d: printed m = %d, TuneLBFGSMemory chooses %d (scores %v)", fstarIters, got, want, scores)
		}
		if crit := map[bool]string{true: "optimality", false: "objective"}[fstarIters > 0]; m[2] != crit {
			t.Errorf("fstar-iters %d: ranked by the mean %s, want %s", fstarIters, m[2], crit)
		}
		for _, s := range scores {
			line := regexp.MustCompile(`(?m)^  m = ` + strconv.Itoa(s.Memory) + ` +(\S+)`).FindStringSubmatch(out.String())
			if line == nil || line[1] != formatScore(s.Score) {
				t.Errorf("score of m = %d printed as %q, TuneLBFGSMemory's is %s", s.Memory, line, formatScore(s.Score))
			}
		}
		if !strings.Contains(out.String(), "problem deblur (blur_boundary=zero), 3 training functions") {
			t.Errorf("the problem and its conventions are not printed:\n%s", out.String())
		}
	}
	// The chosen method runs in eval.
	if _, err := baselines.ParseMethod("lbfgs:m=30"); err != nil {
		t.Error(err)
	}
}

func TestTuneLBFGSRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--iters", "0"},
		{"--n-train", "0"},
		{"--memories", "0"},
		{"--memories", "3,-1"},
		{"--memories", "100000"},
		{"--memories", ""},
		{"--fstar-iters", "-1"},
		{"--fstar-method", "gd"},
		{"--problem", "nonexistent"},
		{"extra"},
	} {
		var out, errb bytes.Buffer
		full := append([]string{"tune", "lbfgs", "--size", "16", "--n-train", "2"}, args...)
		if args[0] == "--n-train" {
			full = append([]string{"tune", "lbfgs", "--size", "16"}, args...)
		}
		if code := Main(full, &out, &errb); code != 2 {
			t.Errorf("%v exited %d, want 2: %s", full, code, errb.String())
		} else if !strings.Contains(errb.String(), "tune lbfgs") && args[0] != "--problem" {
			t.Errorf("%v: message does not name the command: %s", full, errb.String())
		}
	}
}

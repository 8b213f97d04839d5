package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/eval"
)

// TestBenchGreedySafeguardRules: bench greedy --safeguard takes eval's rules;
// each rule listed adds a safeguarded copy of every learned optimizer to the
// curves, named as eval names it, with its acceptance rates, and a row to the
// printed table; a bare --safeguard is the decrease rule; an unknown rule is a
// usage error.
func TestBenchGreedySafeguardRules(t *testing.T) {
	base := []string{"bench", "greedy", "--size", "16", "--n-train", "3", "--n-test", "2", "--params", "m-ps", "--inner", "lbfgs",
		"--max-steps", "3", "--at", "5", "--iters", "8", "--fstar-iters", "100", "--cache", t.TempDir()}
	for _, tc := range []struct {
		flags []string
		names []string // curves of the learned optimizer
		rows  []string // rows of its safeguarded copies
	}{
		{[]string{"--safeguard", "bgd"}, []string{"greedy m-ps/lbfgs", "greedy m-ps/lbfgs (safeguarded bgd)"}, []string{"+bgd"}},
		{[]string{"--safeguard", "decrease,bgd"}, []string{"greedy m-ps/lbfgs", "greedy m-ps/lbfgs (safeguarded)", "greedy m-ps/lbfgs (safeguarded bgd)"}, []string{"+guard", "+bgd"}},
		{[]string{"--safeguard"}, []string{"greedy m-ps/lbfgs", "greedy m-ps/lbfgs (safeguarded)"}, []string{"+guard"}},
		{nil, []string{"greedy m-ps/lbfgs"}, nil},
	} {
		out := filepath.Join(t.TempDir(), "bench")
		args := append(append(append([]string{}, base...), "--out", out), tc.flags...)
		var stdout, stderr bytes.Buffer
		if code := Main(args, &stdout, &stderr); code != 0 {
			t.Fatalf("%v exited %d: %s", tc.flags, code, stderr.String())
		}
		f, err := os.Open(filepath.Join(out, "curves.json"))
		if err != nil {
			t.Fatal(err)
		}
		curves, err := eval.ReadJSON(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range curves {
			if strings.HasPrefix(c.Method, "greedy m-ps/") {
				got = append(got, c.Method)
				if guarded := strings.Contains(c.Method, "safeguarded"); guarded != (len(c.Accepted) == len(c.Iter)) {
					t.Errorf("%v: %s has %d acceptance rates for %d iterations", tc.flags, c.Method, len(c.Accepted), len(c.Iter))
				}
			}
		}
		if strings.Join(got, "|") != strings.Join(tc.names, "|") {
			t.Errorf("%v: learned curves %q, want %q", tc.flags, got, tc.names)
		}
		for _, r := range tc.rows {
			if !strings.Contains(stdout.String(), "\n       "+r+" ") {
				t.Errorf("%v: no %s row:\n%s", tc.flags, r, stdout.String())
			}
		}
	}
	var stdout, stderr bytes.Buffer
	args := append(append([]string{}, base...), "--out", filepath.Join(t.TempDir(), "bench"), "--safeguard", "sometimes")
	if code := Main(args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "safeguard rule") {
		t.Errorf("--safeguard sometimes exited %d, want 2 naming the rules: %s", code, stderr.String())
	}
}

package cmd

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/baselines/banert"
	"github.com/greedyl2o/greedyl2o/checkpoint"
)

// TestResumeTakesItsSettings trains with settings other than the defaults,
// resumes with --out and --resume alone (and a larger step cap): the run
// continues bitwise as an uninterrupted one; a flag contradicting the
// checkpoint is refused with exit 2 before anything is printed.
func TestResumeTakesItsSettings(t *testing.T) {
	dir := t.TempDir()
	first := []string{"train", "greedy", "--size", "12", "--n-train", "3", "--param", "m-ps", "--lambda", "1e-3", "--tol-rel", "0", "--seed", "7"}
	run := func(want int, args ...string) (string, string) {
		t.Helper()
		var o, e bytes.Buffer
		if code := Main(args, &o, &e); code != want {
			t.Fatalf("%v: exit %d, want %d: %s", args, code, want, e.String())
		}
		return o.String(), e.String()
	}
	resumed, whole := filepath.Join(dir, "resumed"), filepath.Join(dir, "whole")
	run(0, append(first, "--max-steps", "2", "--out", resumed)...)
	run(0, "train", "greedy", "--out", resumed, "--resume", "--max-steps", "4")
	run(0, append(first, "--max-steps", "4", "--out", whole)...)
	a, err := checkpoint.ReadManifest(resumed)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := checkpoint.ReadManifest(whole)
	if len(a.Steps) != 4 || a.Steps[3].Loss != b.Steps[3].Loss || a.Seed != 7 || a.H != 12 {
		t.Fatalf("resumed run: %d steps, loss %v (uninterrupted %v), seed %d, size %d", len(a.Steps), a.Steps[len(a.Steps)-1].Loss, b.Steps[3].Loss, a.Seed, a.H)
	}
	if len(a.Provenance.Resumed) != 1 || !strings.Contains(a.Provenance.Resumed[0].Command, "--resume") {
		t.Errorf("the manifest does not record the resume: %+v", a.Provenance.Resumed)
	}
	out, msg := run(2, "train", "greedy", "--out", resumed, "--resume", "--max-steps", "6", "--size", "16")
	if out != "" || !strings.Contains(msg, "--size 16") || !strings.Contains(msg, "--size 12") {
		t.Errorf("a contradicting --size: stdout %q, message %q", out, msg)
	}
	// A flag the run left at its default may not change on resume either.
	out, msg = run(2, "train", "greedy", "--out", resumed, "--resume", "--max-steps", "6", "--noise", "0.05")
	if out != "" || !strings.Contains(msg, "--noise 0.05") || !strings.Contains(msg, "default") {
		t.Errorf("a --noise the run did not give: stdout %q, message %q", out, msg)
	}

	// A run that gave a flag twice (the last value counts, as reproduce.sh's
	// budget flags and then --lambda) resumes with the same command line.
	twice := filepath.Join(dir, "twice")
	repeated := []string{"train", "greedy", "--size", "12", "--n-train", "3", "--param", "m-ps", "--lambda", "0", "--tol-rel", "0", "--lambda", "1e-3", "--seed", "7"}
	run(0, append(repeated, "--max-steps", "2", "--out", twice)...)
	run(0, append(repeated, "--max-steps", "4", "--out", twice, "--resume")...)
	c, err := checkpoint.ReadManifest(twice)
	if err != nil || len(c.Steps) != 4 || c.Steps[3].Loss != b.Steps[3].Loss {
		t.Fatalf("a run with --lambda given twice, resumed with its own command line: %v, %d steps", err, len(c.Steps))
	}
	if out, msg := run(2, append(repeated, "--max-steps", "6", "--out", twice, "--resume", "--lambda", "0")...); out != "" || !strings.Contains(msg, "--lambda 1e-3") {
		t.Errorf("a contradicting last --lambda: stdout %q, message %q", out, msg)
	}

	bdir := filepath.Join(dir, "banert")
	run(0, "train", "banert", "--size", "8", "--n-train", "2", "--T", "2", "--epochs", "1", "--seed", "3", "--out", bdir)
	run(0, "train", "banert", "--out", bdir, "--resume", "--epochs", "2")
	m, err := banert.ReadManifest(bdir)
	if err != nil || len(m.History) != 2 || m.Seed != 3 {
		t.Errorf("banert resumed with --out and --resume alone: %v, %d epochs", err, len(m.History))
	}
	if out, msg := run(2, "train", "banert", "--out", bdir, "--resume", "--epochs", "3", "--alpha", "1e-3"); out != "" || !strings.Contains(msg, "--alpha 1e-3") {
		t.Errorf("banert resumed at another --alpha: stdout %q, message %q", out, msg)
	}
}

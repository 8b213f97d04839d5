package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/unroll"
)

func TestTrainUnrollResumeAndApply(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(args, &out, &errb)
		return code, out.String(), errb.String()
	}
	base := []string{"train", "unroll", "--size", "12", "--n-train", "4", "--T", "3", "--batch", "2", "--lr", "1e-3", "--out", dir}
	if code, _, stderr := run(append(base, "--epochs", "1")...); code != 0 {
		t.Fatalf("train unroll: exit %d: %s", code, stderr)
	}
	if code, _, _ := run(append(base, "--epochs", "1")...); code != 2 {
		t.Errorf("training into an existing checkpoint without --resume: exit %d, want 2", code)
	}
	if code, _, stderr := run(append(base, "--epochs", "2", "--resume")...); code != 0 {
		t.Fatalf("train unroll --resume: exit %d: %s", code, stderr)
	}
	st, err := unroll.ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Epochs) != 2 || st.AdamStep != 4 {
		t.Errorf("after resume: %d epochs, %d Adam steps; want 2 and 4", len(st.Epochs), st.AdamStep)
	}
	code, stdout, stderr := run("apply", "--params", dir, "--size", "12", "--n-test", "2", "--iters", "4")
	if code != 0 {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "unrolled m-pc") {
		t.Errorf("apply does not name the unrolled optimizer:\n%s", stdout)
	}
	evalDir := filepath.Join(t.TempDir(), "eval")
	code, _, stderr = run("eval", "--params", dir, "--safeguard", "--methods", "gd", "--size", "12", "--n-test", "2", "--iters", "4", "--fstar-iters", "50", "--fstar-method", "lbfgs", "--cache", "", "--out", evalDir)
	if code != 0 {
		t.Fatalf("eval --safeguard: exit %d: %s", code, stderr)
	}
	curves, err := os.ReadFile(filepath.Join(evalDir, "curves.csv"))
	if err != nil || !strings.Contains(string(curves), "unrolled m-pc (safeguarded)") {
		t.Errorf("eval --safeguard did not evaluate the safeguarded optimizer (%v)", err)
	}
	if code, _, _ := run("eval", "--params", dir, "--fstar-method", "gd", "--size", "12", "--n-test", "2", "--out", evalDir); code != 2 {
		t.Errorf("--fstar-method gd: exit %d, want 2", code)
	}
	for _, bad := range [][]string{
		{"--T", "0"}, {"--batch", "9"}, {"--weights", "1,2"}, {"--lr", "-1"}, {"--param", "nope"},
	} {
		args := append([]string{"train", "unroll", "--size", "12", "--n-train", "4", "--T", "3", "--out", filepath.Join(t.TempDir(), "x")}, bad...)
		if code, _, _ := run(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

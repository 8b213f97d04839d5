package cmd

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

func TestTrainBanertThenApply(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "banert")
	var out, errb bytes.Buffer
	args := []string{"train", "banert", "--size", "8", "--n-train", "2", "--T", "2", "--epochs", "2", "--out", dir}
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("train banert: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "10567 parameters") {
		t.Errorf("train output does not report the parameter count:\n%s", out.String())
	}
	if code := Main(append(args, "--resume", "--epochs", "3"), &out, &errb); code != 0 {
		t.Fatalf("train banert --resume: exit %d: %s", code, errb.String())
	}
	out.Reset()
	if code := Main([]string{"apply", "--params", dir, "--n-test", "2", "--iters", "5"}, &out, &errb); code != 0 {
		t.Fatalf("apply: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "banert-T2") {
		t.Errorf("apply output does not name the method:\n%s", out.String())
	}
	if code := Main([]string{"train", "banert", "--size", "8", "--banert-inputs", "5", "--out", dir + "x"}, &out, &errb); code != 2 {
		t.Errorf("--banert-inputs 5: exit %d, want 2", code)
	}
}

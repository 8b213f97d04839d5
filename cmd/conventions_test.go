package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
)

// TestBoundaryRecordedAndEnforced trains under a reflecting blur and checks
// that the manifest and the curve files record it, that apply and eval adopt
// it when no boundary is given, and that an explicit other boundary or
// problem is refused with exit 2 naming the convention.
func TestBoundaryRecordedAndEnforced(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	var out, errb bytes.Buffer
	args := []string{"train", "greedy", "--param", "ps", "--size", "16", "--n-train", "2", "--max-steps", "2",
		"--blur-boundary", "reflect", "--out", dir}
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("train greedy: exit %d: %s", code, errb.String())
	}
	m, err := checkpoint.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Conventions["blur_boundary"]; got != "reflect" {
		t.Fatalf("manifest records blur_boundary %q, want reflect", got)
	}

	out.Reset()
	errb.Reset()
	if code := Main([]string{"apply", "--params", dir, "--n-test", "2", "--iters", "3"}, &out, &errb); code != 0 {
		t.Fatalf("apply without --blur-boundary: exit %d: %s", code, errb.String())
	}
	evalDir := filepath.Join(t.TempDir(), "eval")
	if code := Main([]string{"eval", "--params", dir, "--methods", "gd", "--n-test", "2", "--iters", "3",
		"--fstar-iters", "20", "--cache", t.TempDir(), "--out", evalDir}, &out, &errb); code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(filepath.Join(evalDir, "curves.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Curves []struct {
			Method  string            `json:"method"`
			Setting map[string]string `json:"setting"`
		} `json:"curves"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	for _, c := range file.Curves {
		if c.Setting["blur_boundary"] != "reflect" || c.Setting["problem"] != "deblur" {
			t.Errorf("curve %s: setting %v, want problem deblur with blur_boundary reflect", c.Method, c.Setting)
		}
	}
	csv, err := os.ReadFile(filepath.Join(evalDir, "curves.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(csv), "blur_boundary=reflect") {
		t.Errorf("curves.csv does not record the boundary:\n%.300s", csv)
	}

	for name, bad := range map[string][]string{
		"apply, other boundary": {"apply", "--params", dir, "--blur-boundary", "zero", "--n-test", "2", "--iters", "2"},
		"eval, other boundary": {"eval", "--params", dir, "--blur-boundary", "circular", "--methods", "gd", "--n-test", "2",
			"--iters", "2", "--cache", t.TempDir(), "--out", filepath.Join(t.TempDir(), "e")},
		"apply, other problem": {"apply", "--params", dir, "--problem", "ct-small", "--n-test", "2", "--iters", "2"},
		"resume, other boundary": {"train", "greedy", "--param", "ps", "--size", "16", "--n-train", "2", "--max-steps", "3",
			"--blur-boundary", "zero", "--out", dir, "--resume"},
	} {
		errb.Reset()
		code := Main(bad, &out, &errb)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2 (%s)", name, code, errb.String())
		}
		if want := "reflect"; name != "apply, other problem" && !strings.Contains(errb.String(), want) {
			t.Errorf("%s: message does not name the trained boundary: %s", name, errb.String())
		}
	}
}

// TestEvalTakesTheTrainingFunctions trains at another α and noise level and
// checks that eval, given neither, runs on functions like the training
// functions (the curves' setting records α and the noise), saying so, and
// that an explicit other noise level runs as given with a note naming the
// training's.
func TestEvalTakesTheTrainingFunctions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	var out, errb bytes.Buffer
	if code := Main([]string{"train", "greedy", "--param", "ps", "--size", "8", "--n-train", "2", "--max-steps", "1",
		"--alpha", "1e-3", "--noise", "0.05", "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("train greedy: exit %d: %s", code, errb.String())
	}
	evalRun := func(extra ...string) (map[string]string, string) {
		t.Helper()
		evalDir := filepath.Join(t.TempDir(), "eval")
		errb.Reset()
		args := append([]string{"eval", "--params", dir, "--methods", "gd", "--n-test", "2", "--iters", "3",
			"--fstar-iters", "20", "--cache", t.TempDir(), "--out", evalDir}, extra...)
		if code := Main(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		curves, _ := readCurvesFile(t, evalDir)
		return curves[0].Setting, errb.String()
	}
	setting, notes := evalRun()
	if setting["alpha"] != "0.001" || setting["noise"] != "0.05" || !strings.Contains(notes, "--noise 0.05, as") {
		t.Errorf("eval without --alpha, --noise: setting %v, notes %q; want α 0.001 and noise 0.05 as trained", setting, notes)
	}
	setting, notes = evalRun("--noise", "0.01")
	if setting["noise"] != "0.01" || !strings.Contains(notes, "trained with --noise 0.05") {
		t.Errorf("eval with --noise 0.01: setting %v, notes %q; want noise 0.01 and a note naming the training's 0.05", setting, notes)
	}
}

// TestDemoCheckpointsSayWhereTheyCameFrom: the demo's checkpoints record
// its command and data, and eval runs them at the demo's noise level (set
// by the demo, not by a flag: taken from the manifest).
func TestDemoCheckpointsSayWhereTheyCameFrom(t *testing.T) {
	dir := t.TempDir()
	demo := filepath.Join(dir, "demo")
	var out, errb bytes.Buffer
	if code := Main([]string{"demo", "--quick", "--size", "21", "--n-train", "2", "--n-test", "2", "--max-steps", "2", "--iters", "5", "--out", demo}, &out, &errb); code != 0 {
		t.Fatalf("demo: exit %d: %s", code, errb.String())
	}
	ck := filepath.Join(demo, "checkpoints", "m-ps")
	out.Reset()
	if code := Main([]string{"runs", "show", ck}, &out, &errb); code != 0 || !strings.Contains(out.String(), "command: l2o demo") {
		t.Errorf("runs show of a demo checkpoint: exit %d:\n%s", code, out.String())
	}
	errb.Reset()
	evalDir := filepath.Join(dir, "eval")
	if code := Main([]string{"eval", "--params", ck, "--methods", "gd", "--n-test", "2", "--iters", "3", "--fstar-iters", "20",
		"--cache", dir, "--out", evalDir}, &out, &errb); code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errb.String())
	}
	curves, _ := readCurvesFile(t, evalDir)
	if curves[0].Setting["noise"] != "0.005" {
		t.Errorf("eval of a demo checkpoint ran at noise %q, want the demo's 0.005: %s", curves[0].Setting["noise"], errb.String())
	}
}

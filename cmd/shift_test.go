package cmd

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/eval"
)

// TestEvalShiftAndBreakEven runs eval --shift on a size-free (ps) and a
// size-bound (m-pc) optimizer: the blur-width shift changes the operator,
// the size shift runs ps at 16×16 and leaves m-pc out saying why, the
// phantom images run both; the break-even file pairs every learned method
// with every baseline and carries the training time recorded in the
// manifest.
func TestEvalShiftAndBreakEven(t *testing.T) {
	root := t.TempDir()
	var out, errb bytes.Buffer
	train := func(name, method string, steps string) string {
		dir := filepath.Join(root, name)
		if code := Main([]string{"train", "greedy", "--param", method, "--size", "12", "--n-train", "3", "--max-steps", steps, "--out", dir}, &out, &errb); code != 0 {
			t.Fatalf("train %s: exit %d: %s", method, code, errb.String())
		}
		return dir
	}
	ps, mpc := train("ps", "ps", "4"), train("mpc", "m-pc", "3")
	evalDir := filepath.Join(root, "eval")
	out.Reset()
	args := []string{"eval", "--params", ps + "," + mpc, "--methods", "gd,nag", "--n-test", "2", "--iters", "4", "--fstar-iters", "40",
		"--cache", filepath.Join(root, "cache"), "--out", evalDir, "--shift", "sigma=2,size=16,images=phantoms", "--shift-at", "1,4"}
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("eval --shift: exit %d: %s", code, errb.String())
	}
	table, err := os.ReadFile(filepath.Join(evalDir, "shift.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| sigma=2 | greedy ps |", "| size=16 | greedy ps |", "| images=phantoms | greedy m-pc |", "| size=16 | not run: learned optimizer greedy m-pc: pc's parameters are bound to the 12×12"} {
		if !strings.Contains(string(table), want) {
			t.Errorf("shift.md lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(string(table), "| size=16 | greedy m-pc |") {
		t.Error("m-pc, bound to 12×12, was run at 16×16")
	}
	read := func(label string) []*eval.Curve { return readCurvesJSON(t, filepath.Join(evalDir, "shift", label)) }
	for _, c := range read("sigma_2") {
		if !strings.Contains(c.Setting["operator"], "gauss5-2,") || c.Setting["shift"] != "sigma=2" {
			t.Errorf("sigma=2 curve %s: setting %v", c.Method, c.Setting)
		}
	}
	for _, c := range read("size_16") {
		if c.Setting["size"] != "16x16" {
			t.Errorf("size=16 curve %s measured on %s", c.Method, c.Setting["size"])
		}
	}
	// Break-even: 2 learned × 2 baselines, training times from the manifests.
	var be []struct {
		Learned      string  `json:"learned"`
		Baseline     string  `json:"baseline"`
		TrainSeconds float64 `json:"train_seconds"`
	}
	b, err := os.ReadFile(filepath.Join(evalDir, "breakeven.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &be); err != nil {
		t.Fatal(err)
	}
	if len(be) != 4 {
		t.Fatalf("breakeven.json has %d rows, want 4 (2 learned × 2 baselines)", len(be))
	}
	man, err := checkpoint.ReadManifest(ps)
	if err != nil {
		t.Fatal(err)
	}
	var secs float64
	for _, st := range man.Steps {
		secs += st.Seconds
	}
	if be[0].Learned != "greedy ps" || be[0].Baseline != "gd" || math.Abs(be[0].TrainSeconds-secs) > 1e-12 || secs <= 0 {
		t.Errorf("first break-even row %+v, want greedy ps against gd with %g training seconds", be[0], secs)
	}
	if !strings.Contains(out.String(), "break-even at mean optimality 1e-04") {
		t.Errorf("eval printed no break-even table:\n%s", out.String())
	}
	for _, bad := range [][]string{{"--shift", "sigma=-1"}, {"--shift", "blur=2"}, {"--shift", "size=16", "--set", "train"}, {"--break-even-at", "2"}} {
		a := append([]string{"eval", "--params", ps, "--n-test", "2", "--iters", "2", "--out", filepath.Join(root, "bad")}, bad...)
		errb.Reset()
		if code := Main(a, &out, &errb); code != 2 || !strings.Contains(errb.String(), bad[0]) {
			t.Errorf("eval %v: exit %d, stderr %q; want exit 2 naming %s", bad, code, errb.String(), bad[0])
		}
	}
}

// TestEvalShiftAlpha applies M-PC trained at α to functions with α scaled:
// alpha=1 gives the unshifted curves to 1e-12; alpha=10 recomputes L (for
// Huber-TV deblurring with ‖A‖ = 1, L = 1 + 8α/ε: 4.2 at 10α = 2e-3) and
// reports it against 2·L_train = 2.64 with the certificate at that L.
func TestEvalShiftAlpha(t *testing.T) {
	root := t.TempDir()
	ckpt, evalDir := filepath.Join(root, "mpc"), filepath.Join(root, "eval")
	for _, args := range [][]string{
		{"train", "greedy", "--param", "m-pc", "--size", "12", "--n-train", "3", "--max-steps", "3", "--out", ckpt},
		{"eval", "--params", ckpt, "--methods", "gd", "--n-test", "2", "--iters", "6", "--fstar-iters", "40", "--cache", root,
			"--out", evalDir, "--shift", "alpha=1,alpha=10", "--shift-at", "1,6"},
	} {
		var o, e bytes.Buffer
		if code := Main(args, &o, &e); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, e.String())
		}
	}
	base, _ := readCurvesFile(t, evalDir)
	one, _ := readCurvesFile(t, filepath.Join(evalDir, "shift", "alpha_1"))
	for i := range base[0].Mean {
		if d := math.Abs(one[0].Mean[i] - base[0].Mean[i]); d > 1e-12*math.Max(1, math.Abs(base[0].Mean[i])) {
			t.Errorf("alpha=1, iteration %d: mean optimality %.17g, unshifted %.17g", i, one[0].Mean[i], base[0].Mean[i])
		}
	}
	table, err := os.ReadFile(filepath.Join(evalDir, "shift.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| alpha=10 | greedy m-pc: L = 4.2, above 2·L_train = 2.64; certificate of step 2 at this L: paper P = ",
		"| alpha=1 | greedy m-pc: L = 1.32, below 2·L_train = 2.64"} {
		if !strings.Contains(string(table), want) {
			t.Errorf("shift.md lacks %q:\n%s", want, table)
		}
	}
}

// TestEvalShiftCertifiesNormalPoly: the shift notes certify an npoly
// checkpoint's last step with the shifted functions' operator (its G is
// built from it), and ε1 = ‖G_θ − τI‖ differs between two blur widths.
func TestEvalShiftCertifiesNormalPoly(t *testing.T) {
	root := t.TempDir()
	ckpt, evalDir := filepath.Join(root, "npoly"), filepath.Join(root, "eval")
	for _, args := range [][]string{
		{"train", "greedy", "--param", "m-npoly3", "--size", "12", "--n-train", "3", "--max-steps", "3", "--out", ckpt},
		{"eval", "--params", ckpt, "--methods", "gd", "--n-test", "2", "--iters", "4", "--fstar-iters", "40", "--cache", root,
			"--out", evalDir, "--shift", "sigma=1,sigma=2", "--shift-at", "1,4"},
	} {
		var o, e bytes.Buffer
		if code := Main(args, &o, &e); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, e.String())
		}
	}
	table, err := os.ReadFile(filepath.Join(evalDir, "shift.md"))
	if err != nil {
		t.Fatal(err)
	}
	notes := map[string]string{}
	for _, line := range strings.Split(string(table), "\n") {
		for _, label := range []string{"sigma=1", "sigma=2"} {
			if strings.HasPrefix(line, "| "+label+" | greedy m-npoly3: ") {
				notes[label] = line
			}
		}
	}
	for _, label := range []string{"sigma=1", "sigma=2"} {
		if !strings.Contains(notes[label], "certificate of step 2 at this L: paper P = ") {
			t.Errorf("%s: no certificate for m-npoly3: %q", label, notes[label])
		}
	}
	if notes["sigma=1"] == notes["sigma=2"] {
		t.Errorf("the certificates at σ = 1 and σ = 2 are the same: %q", notes["sigma=1"])
	}
}

// TestShiftImagesAreHeldOut: a checkpoint trained on the synthetic images of
// seed 1,000,004 and evaluated on a folder at --seed 1 would meet its own
// training images under --shift images=synthetic (drawn from seed 1 +
// 1,000,003): refused, naming the image.
func TestShiftImagesAreHeldOut(t *testing.T) {
	dir := t.TempDir()
	ck := filepath.Join(dir, "run")
	flat := writeFlatFolder(t, 6, 16)
	var out, errb bytes.Buffer
	if code := Main([]string{"train", "greedy", "--param", "m-ps", "--size", "16", "--n-train", "2", "--seed", "1000004", "--max-steps", "1", "--out", ck}, &out, &errb); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb.String())
	}
	errb.Reset()
	args := []string{"eval", "--params", ck, "--data", flat, "--seed", "1", "--size", "16", "--n-test", "2", "--iters", "3", "--fstar-iters", "5",
		"--cache", dir, "--methods", "gd", "--shift", "images=synthetic", "--shift-at", "3", "--out", filepath.Join(dir, "eval")}
	if code := Main(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), "equals an image the checkpoints were trained on") {
		t.Errorf("--shift images=synthetic onto the training images: exit %d: %s", code, errb.String())
	}
}

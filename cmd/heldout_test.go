package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/provenance"
)

// writeFlatFolder writes n distinct size×size PGM images into a new folder.
func writeFlatFolder(t *testing.T, n, size int) string {
	t.Helper()
	dir := t.TempDir()
	for k, im := range data.Synthetic(n, size, size, 5) {
		var buf bytes.Buffer
		if err := data.WritePGM(&buf, im, 16); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "img"+strconv.Itoa(1000+k)+".pgm"), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// writeSTL10File writes n distinct images in the STL-10 binary layout.
func writeSTL10File(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "train_X.bin")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := data.WriteSTL10(f, data.Synthetic(n, 96, 96, 6)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// readCurvesAndProvenance reads dir/curves.json, failing t if it cannot.
func readCurvesAndProvenance(t *testing.T, dir string) ([]*eval.Curve, *provenance.Record) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "curves.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	curves, prov, err := eval.ReadJSONWith(f)
	if err != nil {
		t.Fatal(err)
	}
	return curves, prov
}

// readCurvesFile is readCurvesAndProvenance that also fails t when the
// file records no provenance.
func readCurvesFile(t *testing.T, dir string) ([]*eval.Curve, *provenance.Record) {
	t.Helper()
	curves, prov := readCurvesAndProvenance(t, dir)
	if prov == nil {
		t.Fatalf("%s/curves.json records no provenance", dir)
	}
	return curves, prov
}

// TestHeldOutIsHeldOut is issue 27's bar on a 45-image flat folder and on an
// STL-10 file: train on 25, evaluate with default flags: the test images
// (curves.json) and the training images (manifest) are disjoint by content,
// curves.json names the l2o revision and the data's fingerprint, --set train
// re-creates the training functions, and a second eval into the same --out
// exits 2.
func TestHeldOutIsHeldOut(t *testing.T) {
	if testing.Short() {
		t.Skip("trains on 96×96 images")
	}
	_, gitErr := exec.LookPath("git")
	for _, c := range []struct {
		name, data string
		size       int
	}{{"flat folder", writeFlatFolder(t, 45, 12), 12}, {"STL-10 file", writeSTL10File(t, 45), 96}} {
		ckpt := filepath.Join(t.TempDir(), "ps")
		size := strconv.Itoa(c.size)
		run := func(want int, args ...string) string {
			t.Helper()
			var o, e bytes.Buffer
			if code := Main(args, &o, &e); code != want {
				t.Fatalf("%s: %v: exit %d, want %d: %s", c.name, args, code, want, e.String())
			}
			return e.String()
		}
		run(0, "train", "greedy", "--data", c.data, "--size", size, "--n-train", "25", "--param", "ps", "--max-steps", "1", "--out", ckpt)
		man, err := checkpoint.ReadManifest(ckpt)
		if err != nil {
			t.Fatal(err)
		}
		if man.Provenance == nil || man.Provenance.Data == nil || len(man.Provenance.Data.Train) != 25 {
			t.Fatalf("%s: the manifest does not record the 25 training images: %+v", c.name, man.Provenance)
		}
		trained := man.Provenance.Data.Train
		out := filepath.Join(t.TempDir(), "eval")
		evalArgs := []string{"eval", "--params", ckpt, "--methods", "gd", "--n-test", "10", "--iters", "2", "--fstar-iters", "5", "--cache", t.TempDir(), "--out", out}
		run(0, evalArgs...)
		_, prov := readCurvesFile(t, out)
		if prov.Test == nil || len(prov.Test.Images) != 10 {
			t.Fatalf("%s: curves.json does not list the 10 test images: %+v", c.name, prov.Test)
		}
		if o := data.Overlap(trained, prov.Test.Images); len(o) > 0 {
			t.Errorf("%s: %d of 10 test images are training images (%s, …)", c.name, len(o), o[0].Name)
		}
		if prov.Test.Fingerprint != data.Fingerprint(prov.Test.Images) || len(prov.Checkpoints) != 1 || prov.Checkpoints[0].ManifestSHA256 == "" {
			t.Errorf("%s: curves.json's fingerprint or checkpoint record is wrong: %+v %+v", c.name, prov.Test.Fingerprint, prov.Checkpoints)
		}
		if gitErr == nil && prov.Build.Revision == "" {
			t.Errorf("%s: curves.json names no l2o revision: %+v", c.name, prov.Build)
		}
		if msg := run(2, evalArgs...); !strings.Contains(msg, "already holds results") {
			t.Errorf("%s: a second eval into %s: %s", c.name, out, msg)
		}
		trainOut := filepath.Join(t.TempDir(), "train-set")
		run(0, "eval", "--params", ckpt, "--set", "train", "--methods", "gd", "--iters", "2", "--fstar-iters", "5", "--cache", t.TempDir(), "--out", trainOut)
		_, tp := readCurvesFile(t, trainOut)
		if tp.Test == nil || !data.SameRefs(tp.Test.Images, trained) || tp.Test.Set != "train" {
			t.Errorf("%s: --set train evaluated on other images than the training record", c.name)
		}
		if msg := run(2, "eval", "--params", ckpt, "--n-train", "1", "--methods", "gd", "--out", t.TempDir()); !strings.Contains(msg, "--n-train 1") {
			t.Errorf("%s: eval --n-train 1 against a checkpoint trained on 25: %s", c.name, msg)
		}
	}
}

// TestEvalOnOtherDataIsSaid evaluates a checkpoint trained on one folder
// on a copy of it: the training images are kept out by content, and the
// change of data is said and recorded.
func TestEvalOnOtherDataIsSaid(t *testing.T) {
	src := writeFlatFolder(t, 20, 8)
	ckpt := filepath.Join(t.TempDir(), "ps")
	var o, e bytes.Buffer
	if code := Main([]string{"train", "greedy", "--data", src, "--size", "8", "--n-train", "10", "--param", "ps", "--max-steps", "1", "--out", ckpt}, &o, &e); code != 0 {
		t.Fatalf("train: exit %d: %s", code, e.String())
	}
	copyDir := t.TempDir()
	entries, _ := os.ReadDir(src)
	for _, en := range entries {
		b, _ := os.ReadFile(filepath.Join(src, en.Name()))
		os.WriteFile(filepath.Join(copyDir, "copy-"+en.Name()), b, 0o644)
	}
	out := filepath.Join(t.TempDir(), "eval")
	e.Reset()
	if code := Main([]string{"eval", "--params", ckpt, "--data", copyDir, "--n-test", "10", "--methods", "gd", "--iters", "2", "--fstar-iters", "5", "--cache", t.TempDir(), "--out", out}, &o, &e); code != 0 {
		t.Fatalf("eval: exit %d: %s", code, e.String())
	}
	if !strings.Contains(e.String(), "was trained on "+src) {
		t.Errorf("eval on other data does not say so: %s", e.String())
	}
	_, prov := readCurvesFile(t, out)
	man, _ := checkpoint.ReadManifest(ckpt)
	if o := data.Overlap(man.Provenance.Data.Train, prov.Test.Images); len(o) > 0 {
		t.Errorf("a copy of a training image (%s) is in the test set", o[0].Name)
	}
	if !strings.Contains(prov.Test.Note, "trained on") {
		t.Errorf("curves.json does not record the change of data: %q", prov.Test.Note)
	}
	b, _ := json.Marshal(prov)
	if !strings.Contains(string(b), `"skipped_as_training":`) {
		t.Errorf("the skipped copies are not recorded: %s", b)
	}
}

// TestRunsShow checks that `l2o runs show` names the command and data of a
// checkpoint and, for an eval, the checkpoint by its manifest's SHA-256.
func TestRunsShow(t *testing.T) {
	dir := t.TempDir()
	ckpt, out := filepath.Join(dir, "ps"), filepath.Join(dir, "eval")
	for _, args := range [][]string{
		{"train", "greedy", "--size", "8", "--n-train", "3", "--param", "ps", "--max-steps", "1", "--out", ckpt},
		{"eval", "--params", ckpt, "--size", "8", "--methods", "gd", "--n-test", "2", "--iters", "2", "--fstar-iters", "5", "--cache", dir, "--out", out},
	} {
		var o, e bytes.Buffer
		if code := Main(args, &o, &e); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, e.String())
		}
	}
	var o, e bytes.Buffer
	if code := Main([]string{"runs", "show", ckpt, out}, &o, &e); code != 0 {
		t.Fatalf("runs show: exit %d: %s", code, e.String())
	}
	sum, err := provenance.FileSHA256(filepath.Join(ckpt, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"greedy checkpoint: ps, 1 steps", "command: l2o train greedy --size 8", "3 training images",
		"command: l2o eval --params", "tested:  test set of synthetic", "manifest sha256 " + sum[:16]} {
		if !strings.Contains(o.String(), want) {
			t.Errorf("runs show does not say %q:\n%s", want, o.String())
		}
	}
	if !strings.Contains(o.String(), "matching the SHA-256") {
		t.Errorf("runs show does not say the files were verified:\n%s", o.String())
	}
	if code := Main([]string{"runs", "show", dir}, &o, &e); code != 2 {
		t.Errorf("runs show on a folder with neither: exit %d", code)
	}
	// A changed parameter file: runs show names it and fails.
	p := checkpoint.ParamPath(ckpt, "theta", 0)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] ^= 1
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	e.Reset()
	if code := Main([]string{"runs", "show", ckpt}, &o, &e); code != 2 || !strings.Contains(e.String(), p) {
		t.Errorf("runs show on a changed parameter file: exit %d: %s", code, e.String())
	}
	// A manifest whose image size does not fit its parameters (θ of PC is
	// one value a pixel), and results written into a checkpoint, --force
	// or not.
	pc := filepath.Join(dir, "pc")
	if code := Main([]string{"train", "greedy", "--size", "8", "--n-train", "2", "--param", "pc", "--max-steps", "1", "--out", pc}, &o, &e); code != 0 {
		t.Fatalf("train pc: exit %d: %s", code, e.String())
	}
	// Written sealed, as a manifest of that size would be (an edit is
	// refused before its sizes are read).
	pm, err := checkpoint.ReadManifest(pc)
	if err != nil {
		t.Fatal(err)
	}
	pm.H = 16
	if err := checkpoint.WriteManifest(pc, pm); err != nil {
		t.Fatal(err)
	}
	e.Reset()
	if code := Main([]string{"runs", "show", pc}, &o, &e); code != 2 || !strings.Contains(e.String(), "does not match its parameters") {
		t.Errorf("runs show on a manifest of another image size: exit %d: %s", code, e.String())
	}
	e.Reset()
	if code := Main([]string{"eval", "--methods", "gd", "--size", "8", "--n-test", "1", "--out", ckpt, "--force"}, &o, &e); code != 2 || !strings.Contains(e.String(), "holds a checkpoint") {
		t.Errorf("eval --force into a checkpoint: exit %d: %s", code, e.String())
	}
}

// TestResultsNotOverwritten checks that report, demo and bench memory refuse
// an --out holding results (exit 2, naming what is there) and replace them
// with --force, leaving none of the old files behind.
func TestResultsNotOverwritten(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the quick demo")
	}
	dir := t.TempDir()
	demoOut := filepath.Join(dir, "demo")
	run := func(want int, args ...string) string {
		t.Helper()
		var o, e bytes.Buffer
		if code := Main(args, &o, &e); code != want {
			t.Fatalf("%v: exit %d, want %d: %s", args, code, want, e.String())
		}
		return e.String()
	}
	run(0, "demo", "--quick", "--out", demoOut)
	_, prov := readCurvesFile(t, demoOut)
	if prov.Data == nil || prov.Test == nil || data.Overlap(prov.Data.Train, prov.Test.Images) != nil || len(prov.Test.Images) != 3 {
		t.Errorf("the demo's curves.json does not record disjoint training and test images: %+v", prov)
	}
	if b, _ := os.ReadFile(filepath.Join(demoOut, "index.html")); !strings.Contains(string(b), "command: l2o demo --quick") {
		t.Error("the demo's index.html does not say the command that made it")
	}
	if msg := run(2, "demo", "--quick", "--out", demoOut); !strings.Contains(msg, "already holds results") || !strings.Contains(msg, "curves.json") {
		t.Errorf("a second demo into %s: %s", demoOut, msg)
	}
	stale := filepath.Join(demoOut, "stale-figure.svg")
	os.WriteFile(stale, []byte("<svg/>"), 0o644)
	if msg := run(2, "report", "--curves", filepath.Join(demoOut, "curves.json"), "--out", demoOut); !strings.Contains(msg, "--force") {
		t.Errorf("report --out over the demo's report: %s", msg)
	}
	run(0, "report", "--curves", filepath.Join(demoOut, "curves.json"), "--out", filepath.Join(dir, "report"))
	os.Rename(filepath.Join(demoOut, "curves.json"), filepath.Join(dir, "demo-curves.json"))
	run(0, "report", "--curves", filepath.Join(dir, "demo-curves.json"), "--out", demoOut, "--force")
	if _, err := os.Stat(stale); err == nil {
		t.Error("report --force left a figure of the earlier results behind")
	}
	benchOut := filepath.Join(dir, "bench")
	os.MkdirAll(benchOut, 0o755)
	os.WriteFile(filepath.Join(benchOut, "memory.json"), []byte("{}"), 0o644)
	if msg := run(2, "bench", "memory", "--in-process", "--size", "12", "--n-train", "2", "--T", "1", "--trainers", "greedy", "--out", benchOut); !strings.Contains(msg, "memory.json") {
		t.Errorf("bench memory into a folder with results: %s", msg)
	}
}

// TestFlagsThatDoNotApplyAreRefused: flags that did nothing are gone and a
// flag of another problem is refused, each with exit 2 naming it.
func TestFlagsThatDoNotApplyAreRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"problem", "info", "--problem", "deblur", "--wcrr-weights", "w.json"}, "--wcrr-weights"},
		{[]string{"train", "greedy", "--n-test", "5", "--out", t.TempDir()}, "n-test"},
		{[]string{"apply", "--params", t.TempDir(), "--n-train", "5"}, "n-train"},
	} {
		var o, e bytes.Buffer
		if code := Main(c.args, &o, &e); code != 2 || !strings.Contains(e.String(), c.want) {
			t.Errorf("%v: exit %d: %s", c.args, code, e.String())
		}
	}
}

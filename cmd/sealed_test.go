package cmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
)

// TestEditedManifestRefused edits one digit of τ in a greedy and in a
// Banert manifest: every reader (apply, eval, certify, report, runs show,
// resume) refuses it with exit 2 naming the file. Before the edit eval
// records each checkpoint's T and the SHA-256 of its manifest as read.
func TestEditedManifestRefused(t *testing.T) {
	dir := trainSmall(t, filepath.Join(t.TempDir(), "run"))
	manifest := filepath.Join(dir, "manifest.json")
	orig, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	evalOut := filepath.Join(t.TempDir(), "e")
	evalArgs := []string{"eval", "--params", dir, "--methods", "gd", "--n-test", "2", "--iters", "3", "--fstar-iters", "10", "--cache", t.TempDir(), "--force", "--out", evalOut}
	var out, errb bytes.Buffer
	if code := Main(evalArgs, &out, &errb); code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errb.String())
	}
	_, prov := readCurvesAndProvenance(t, evalOut)
	if len(prov.Checkpoints) != 1 || prov.Checkpoints[0].T != 3 || prov.Checkpoints[0].ManifestSHA256 != checkpoint.Sum(orig) {
		t.Errorf("curves.json records %+v, want T = 3 and the manifest's SHA-256 %s", prov.Checkpoints, checkpoint.Sum(orig))
	}
	raw, err := os.ReadFile(filepath.Join(evalOut, "curves.json"))
	if err != nil || !bytes.Contains(raw, []byte(`"T":3`)) {
		t.Errorf(`curves.json does not record "T":3 (%v)`, err)
	}

	tau := regexp.MustCompile(`"tau": [0-9.e+-]+`).Find(orig)
	if tau == nil {
		t.Fatalf("no τ in %s", orig)
	}
	digit := bytes.IndexAny(tau[len(`"tau": `)+2:], "123456789") + len(`"tau": `) + 2
	edited := bytes.Replace(orig, tau, append(append(append([]byte(nil), tau[:digit]...), "0123456789"[(tau[digit]-'0'+1)%10]), tau[digit+1:]...), 1)
	if err := os.WriteFile(manifest, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"apply":     {"apply", "--params", dir, "--n-test", "2", "--iters", "3"},
		"eval":      evalArgs,
		"certify":   {"certify", "--params", dir},
		"report":    {"report", "--curves", filepath.Join(evalOut, "curves.json"), "--params", dir, "--out", t.TempDir()},
		"runs show": {"runs", "show", dir},
		"resume":    {"train", "greedy", "--param", "m-ps", "--size", "8", "--n-train", "2", "--max-steps", "5", "--out", dir, "--resume"},
	} {
		errb.Reset()
		if code := Main(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), manifest) || !strings.Contains(errb.String(), "edited") {
			t.Errorf("%s of a manifest with %s for %s: exit %d, want 2 naming the file:\n%s", name, tau, edited[bytes.Index(edited, []byte(`"tau"`)):][:20], code, errb.String())
		}
	}

	banert := filepath.Join(t.TempDir(), "banert")
	if code := Main([]string{"train", "banert", "--size", "8", "--n-train", "2", "--T", "2", "--epochs", "1", "--out", banert}, &out, &errb); code != 0 {
		t.Fatalf("train banert: exit %d: %s", code, errb.String())
	}
	bm := filepath.Join(banert, "manifest.json")
	b, err := os.ReadFile(bm)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(bm, bytes.Replace(b, []byte(`"T": 2`), []byte(`"T": 3`), 1), 0o644)
	for _, args := range [][]string{{"runs", "show", banert}, {"apply", "--params", banert, "--n-test", "1", "--iters", "2"}} {
		errb.Reset()
		if code := Main(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), bm) {
			t.Errorf("%v with T edited: exit %d, want 2 naming %s:\n%s", args, code, bm, errb.String())
		}
	}
}

// TestEvalOfACheckpointInTraining evaluates a checkpoint whose lock a run
// holds (as a training that goes on does): eval says so, naming the
// holder's pid and T, and curves.json records it with T.
func TestEvalOfACheckpointInTraining(t *testing.T) {
	dir := trainSmall(t, filepath.Join(t.TempDir(), "run"))
	lock, err := checkpoint.LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	out := filepath.Join(t.TempDir(), "e")
	var o, e bytes.Buffer
	if code := Main([]string{"eval", "--params", dir, "--methods", "gd", "--n-test", "2", "--iters", "3", "--fstar-iters", "10", "--cache", t.TempDir(), "--out", out}, &o, &e); code != 0 {
		t.Fatalf("eval: exit %d: %s", code, e.String())
	}
	if want := fmt.Sprintf("is being trained (pid %d holds its lock): its first T = 3 steps", os.Getpid()); !strings.Contains(e.String(), want) {
		t.Errorf("eval does not say %q:\n%s", want, e.String())
	}
	_, prov := readCurvesAndProvenance(t, out)
	if c := prov.Checkpoints; len(c) != 1 || !c[0].Training || c[0].T != 3 {
		t.Errorf("curves.json records %+v, want T = 3 and training_when_read", c)
	}
	e.Reset()
	if code := Main([]string{"certify", "--params", dir}, &o, &e); code != 0 || !strings.Contains(e.String(), "certifying its first T = 3 steps") {
		t.Errorf("certify while training: exit %d, want a note saying T:\n%s", code, e.String())
	}
}

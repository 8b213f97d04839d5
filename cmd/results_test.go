package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunsShowChecksResultFiles: runs show reads every result file of an
// eval (curves.csv to its last row, every PNG to its end) and refuses a
// truncated one with exit 2 naming it, as a full disk would leave it.
func TestRunsShowChecksResultFiles(t *testing.T) {
	out := filepath.Join(t.TempDir(), "e")
	var o, e bytes.Buffer
	if code := Main([]string{"eval", "--methods", "gd,nag", "--size", "8", "--n-test", "2", "--iters", "5", "--fstar-iters", "10", "--cache", t.TempDir(), "--recon-at", "final", "--out", out}, &o, &e); code != 0 {
		t.Fatalf("eval: exit %d: %s", code, e.String())
	}
	o.Reset()
	if code := Main([]string{"runs", "show", out}, &o, &e); code != 0 || !strings.Contains(o.String(), "curves.csv complete (12 rows)") || !strings.Contains(o.String(), "PNG images complete") {
		t.Fatalf("runs show: exit %d:\n%s%s", code, o.String(), e.String())
	}
	pngs, _ := filepath.Glob(filepath.Join(out, "recon", "*.png"))
	if len(pngs) == 0 {
		t.Fatal("eval wrote no PNG image")
	}
	for _, p := range []string{filepath.Join(out, "curves.csv"), pngs[0]} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(p, b[:len(b)*2/3], 0o644)
		e.Reset()
		if code := Main([]string{"runs", "show", out}, &o, &e); code != 2 || !strings.Contains(e.String(), p) {
			t.Errorf("runs show with %s truncated: exit %d, want 2 naming it:\n%s", p, code, e.String())
		}
		os.WriteFile(p, b, 0o644)
	}
}

// TestOrphanFilesReportedAndRemoved: files a killed run left in params/
// and state/ (of a step it did not complete, not listed by the manifest)
// are reported by runs show and removed by --resume.
func TestOrphanFilesReportedAndRemoved(t *testing.T) {
	dir := trainSmall(t, filepath.Join(t.TempDir(), "run"))
	b, err := os.ReadFile(filepath.Join(dir, "params", "theta_00002.npy"))
	if err != nil {
		t.Fatal(err)
	}
	left := []string{filepath.Join(dir, "params", "theta_00007.npy"), filepath.Join(dir, "state", "x_00008.npy")}
	for _, p := range left {
		os.WriteFile(p, b, 0o644)
	}
	var o, e bytes.Buffer
	if code := Main([]string{"runs", "show", dir}, &o, &e); code != 0 || !strings.Contains(o.String(), "left behind: 2 files") || !strings.Contains(o.String(), "manifest: sealed") {
		t.Errorf("runs show: exit %d, want the 2 files left behind named:\n%s%s", code, o.String(), e.String())
	}
	if code := Main([]string{"train", "greedy", "--param", "m-ps", "--size", "8", "--n-train", "2", "--max-steps", "4", "--out", dir, "--resume"}, &o, &e); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, e.String())
	}
	for _, p := range left {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there after the resume (%v)", p, err)
		}
	}
	o.Reset()
	if code := Main([]string{"runs", "show", dir}, &o, &e); code != 0 || strings.Contains(o.String(), "left behind") {
		t.Errorf("runs show after the resume: exit %d:\n%s%s", code, o.String(), e.String())
	}
}

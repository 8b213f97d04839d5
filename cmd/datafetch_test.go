package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDataFetchRefusesChangedFile: a mirror whose copy of a pinned STL-10
// source differs is refused with exit 2 naming the file, before anything
// is converted; an unknown data set is exit 2 too.
func TestDataFetchRefusesChangedFile(t *testing.T) {
	mirror, to := t.TempDir(), t.TempDir()
	bad := filepath.Join(mirror, "semihyagli", "STL10-Labeled", "examples", "airplane", "ai0-passenger plane.png")
	if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("\x89PNG not the upstream file"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Main([]string{"data", "fetch", "stl10", "--from", mirror, "--to", to}, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "ai0-passenger plane.png") || !strings.Contains(errb.String(), "SHA-256") {
		t.Errorf("changed mirror file: exit %d, %q; want exit 2 naming the file and its SHA-256", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(to, "stl10")); err == nil {
		t.Error("outputs written despite a refused source")
	}
	errb.Reset()
	if code := Main([]string{"data", "fetch", "imagenet", "--to", to}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "imagenet") {
		t.Errorf("unknown data set: exit %d, %q; want exit 2 naming it", code, errb.String())
	}
}

package cmd

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStartCPUProfile checks that L2O_CPUPROFILE's file holds a profile
// (gzip-compressed protocol buffers, as runtime/pprof writes them) of a run,
// that an existing file is refused with the variable named and left as it
// was, and that an empty path profiles nothing.
func TestStartCPUProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.pprof")
	stop, err := StartCPUProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	if code := Main([]string{"train", "greedy", "--param", "m-ps", "--size", "16", "--n-train", "2", "--seed", "1",
		"--max-steps", "2", "--out", filepath.Join(t.TempDir(), "run")}, &out, &errs); code != 0 {
		t.Fatalf("train exited %d: %s", code, errs.String())
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("the profile is not gzip data: %v", err)
	}
	body, err := io.ReadAll(z)
	if err != nil || len(body) == 0 {
		t.Fatalf("the profile's body: %d bytes, %v", len(body), err)
	}

	before, _ := os.ReadFile(path)
	if _, err := StartCPUProfile(path); err == nil || !strings.Contains(err.Error(), ProfileEnv) || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("an existing file: got %v, want an error naming %s and that the file exists", err, ProfileEnv)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("the refused start changed the existing file")
	}

	stop, err = StartCPUProfile("")
	if err != nil || stop() != nil {
		t.Fatalf("an empty path: %v", err)
	}
}

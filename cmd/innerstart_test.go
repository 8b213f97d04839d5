package cmd

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
)

// TestInnerStartFlag: --inner-start previous reaches the trainer (the
// manifest's inner settings record it) and a misspelt value exits 2.
func TestInnerStartFlag(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "warm")
	var out, errb bytes.Buffer
	if code := Main([]string{"train", "greedy", "--param", "m-pc", "--size", "12", "--n-train", "2", "--max-steps", "2",
		"--inner-start", "previous", "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("train --inner-start previous: exit %d: %s", code, errb.String())
	}
	man, err := checkpoint.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(man.InnerSettings, ",start=previous") {
		t.Errorf("inner settings %q do not record --inner-start previous", man.InnerSettings)
	}
	errb.Reset()
	if code := Main([]string{"train", "greedy", "--size", "12", "--n-train", "2", "--max-steps", "1", "--inner-start", "last",
		"--out", filepath.Join(t.TempDir(), "x")}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--inner-start") {
		t.Errorf("--inner-start last: exit %d, %q; want exit 2 naming the flag", code, errb.String())
	}
}

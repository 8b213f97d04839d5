package checkpoint

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestSealedManifestRefusesAnyEdit writes a manifest and changes each byte
// of it in turn (one digit of τ among them): every edit is refused with
// ErrEdited naming the file, and the file as written reads back.
func TestSealedManifestRefusesAnyEdit(t *testing.T) {
	dir := t.TempDir()
	m := &Manifest{Problem: "deblur", H: 8, W: 8, ThetaLen: 3, Tau: 0.5, L: 1, Method: "m-pc",
		Steps: []StepInfo{{T: 0, Loss: 1}}, Checksums: map[string]string{}}
	if err := WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "manifest.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadManifest(dir)
	if err != nil || !got.Sealed || got.Format != FormatVersion || got.SHA256 != Sum(b) {
		t.Fatalf("reading the manifest as written: %v (sealed %v, format %q)", err, got != nil && got.Sealed, got.Format)
	}
	tau := bytes.Index(b, []byte(`"tau": 0.5`))
	if tau < 0 {
		t.Fatalf("no τ in %s", b)
	}
	edits := map[string][]byte{
		"τ 0.5 → 0.6": append(append(append([]byte(nil), b[:tau]...), `"tau": 0.6`...), b[tau+len(`"tau": 0.5`):]...),
		"m-pc → m-pp": bytes.Replace(b, []byte(`"m-pc"`), []byte(`"m-pp"`), 1),
		"a space":     append([]byte(" "), b...),
	}
	for i := range b {
		c := append([]byte(nil), b...)
		c[i] ^= 1
		edits[fmt.Sprintf("byte %d", i)] = c
	}
	for _, name := range []string{"τ 0.5 → 0.6", "m-pc → m-pp", "a space"} {
		if _, err := ParseManifest(path, edits[name]); !errors.Is(err, ErrEdited) {
			t.Errorf("edit %q: %v, want ErrEdited", name, err)
		}
	}
	for name, e := range edits {
		// An edit that breaks the JSON is refused as corrupt.
		if _, err := ParseManifest(path, e); err == nil || !bytes.Contains([]byte(err.Error()), []byte(path)) {
			t.Fatalf("edit %q accepted or not named as one: %v", name, err)
		}
	}
	// Removing the seal is an edit too; a legacy manifest has none.
	unsealed := sealTail.ReplaceAll(b, []byte("\n}\n"))
	if _, err := ParseManifest(path, unsealed); !errors.Is(err, ErrEdited) {
		t.Errorf("a manifest of format %s without its seal: %v, want ErrEdited", FormatVersion, err)
	}
	legacy := bytes.Replace(unsealed, []byte(FormatVersion), []byte(LegacyFormat), 1)
	if got, err := ParseManifest(path, legacy); err != nil || got.Sealed {
		t.Errorf("a legacy manifest: %v (sealed %v), want it read unsealed", err, got != nil && got.Sealed)
	}
}

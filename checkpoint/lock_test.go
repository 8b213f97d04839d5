package checkpoint

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestLockLeavesNothing: a lock taken on a new directory and released with
// nothing written leaves no directory; on a directory with files it leaves
// them and no lock file. Held says whether a lock is held, and whose.
func TestLockLeavesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	l, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if held, pid := Held(dir); !held || pid != os.Getpid() {
		t.Errorf("Held while locked: %v, pid %d (want %d)", held, pid, os.Getpid())
	}
	if _, err := LockDir(dir); !errors.Is(err, ErrLocked) {
		t.Errorf("a second lock: %v, want ErrLocked", err)
	}
	l.Unlock()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the directory a refused run created is left behind: %v", err)
	}
	if held, _ := Held(dir); held {
		t.Error("Held after Unlock")
	}
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "keep"), []byte("x"), 0o644)
	if l, err = LockDir(dir); err != nil {
		t.Fatal(err)
	}
	l.Unlock()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "keep" {
		t.Errorf("after Unlock the directory holds %v, want only keep", entries)
	}
}

// TestWriteFileAtomicMode: files are written readable by others (0644), as
// os.WriteFile writes them, not with CreateTemp's 0600.
func TestWriteFileAtomicMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.json")
	if err := WriteFileAtomic(path, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
}

// TestWriteAtomicFailureLeavesOld: a write that fails halfway (as on a full
// disk) leaves the file as it was and no temporary file beside it.
func TestWriteAtomicFailureLeavesOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "curves.csv")
	if err := WriteFileAtomic(path, []byte("old\n")); err != nil {
		t.Fatal(err)
	}
	full := errors.New("no space left on device")
	err := WriteAtomic(path, func(w io.Writer) error {
		w.Write(make([]byte, 1<<17)) // past the buffer: on disk
		return full
	})
	if !errors.Is(err, full) {
		t.Fatalf("WriteAtomic: %v, want the writer's error", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Errorf("after the failed write the file holds %d bytes, want the old 4", len(b))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the failed write left %d files, want 1", len(entries))
	}
}

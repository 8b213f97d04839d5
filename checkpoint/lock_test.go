package checkpoint

import (
	"errors"
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

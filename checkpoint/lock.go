package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// LockName is the name of the advisory lock file a run keeps in its output
// directory (LockDir). Unlock removes it (a run killed leaves it behind:
// only the lock on it matters).
const LockName = ".l2o.lock"

// ErrLocked marks an output directory that another run holds (LockDir).
// Test with errors.Is; the error is a *LockedError.
var ErrLocked = errors.New("directory in use by another run")

// LockedError says which process holds a directory.
type LockedError struct {
	Dir string
	// PID is the holder's process id (0 if it could not be read).
	PID int
}

func (e *LockedError) Error() string {
	holder := "another l2o process"
	if e.PID > 0 {
		holder = fmt.Sprintf("another l2o process (pid %d)", e.PID)
	}
	return fmt.Sprintf("%s is in use by %s: wait for it to finish, or choose another output directory", e.Dir, holder)
}

func (e *LockedError) Unwrap() error { return ErrLocked }

// DirLock is an advisory lock held on an output directory for a run's life.
type DirLock struct {
	f    *os.File
	path string
	// dir is the locked directory, created when LockDir made it.
	dir     string
	created bool
}

// LockDir creates dir if needed and takes an exclusive advisory lock
// (flock) on dir/LockName, without waiting: a second run on the same
// directory gets a *LockedError naming the holder's pid. The lock is
// released by Unlock or when the process ends, however it ends. On
// systems without flock LockDir only creates the directory.
func LockDir(dir string) (*DirLock, error) {
	_, statErr := os.Stat(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, LockName)
	for attempt := 0; ; attempt++ {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		if !ok {
			f.Close()
			return nil, &LockedError{Dir: dir, PID: readLockPID(path)}
		}
		// The holder before may have removed the file (Unlock) between
		// its opening here and the lock: hold the file that is there.
		if fi, err := f.Stat(); err == nil {
			if cur, err := os.Stat(path); err != nil || !os.SameFile(fi, cur) {
				unlock(f)
				f.Close()
				if attempt < 100 {
					continue
				}
				return nil, fmt.Errorf("locking %s: the lock file keeps being replaced", path)
			}
		}
		if err := f.Truncate(0); err == nil {
			f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		}
		return &DirLock{f: f, path: path, dir: dir, created: errors.Is(statErr, os.ErrNotExist)}, nil
	}
}

// readLockPID reads the holder's pid from a lock file; the holder writes it
// just after taking the lock, so an empty file is read again for a moment.
func readLockPID(path string) int {
	for i := 0; i < 20; i++ {
		b, err := os.ReadFile(path)
		if err != nil {
			return 0
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			return pid
		}
		time.Sleep(5 * time.Millisecond)
	}
	return 0
}

// Unlock releases the lock and removes the lock file, and the directory
// when LockDir created it and nothing was written into it (a refused
// command leaves nothing behind); nil is a no-op.
func (l *DirLock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	l.f.Truncate(0)
	os.Remove(l.path) // while held: a run that opened it locks the next one
	err := unlock(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	if l.created {
		os.Remove(l.dir) // only if empty
	}
	return err
}

// Held reports whether a run holds the lock of dir (LockDir) now, and its
// pid (0 if it could not be read). A reader of a checkpoint calls it to
// say that the checkpoint was read while its training went on.
func Held(dir string) (held bool, pid int) {
	path := filepath.Join(dir, LockName)
	f, err := os.Open(path)
	if err != nil {
		return false, 0
	}
	defer f.Close()
	if !probeLock(f) {
		return false, 0
	}
	return true, readLockPID(path)
}

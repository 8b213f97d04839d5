//go:build unix

package checkpoint

import (
	"errors"
	"os"
	"syscall"
)

func tryLock(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		}
		return false, err
	}
}

func unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// probeLock reports whether another process holds f's lock, taking and
// releasing a shared lock at once when none does.
func probeLock(f *os.File) bool {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
		switch {
		case err == nil:
			syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			return false
		case errors.Is(err, syscall.EINTR):
			continue
		}
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
}

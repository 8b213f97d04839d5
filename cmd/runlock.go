package cmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/greedyl2o/greedyl2o/greedy"
)

// lockOut takes the run lock of an output directory (greedy.LockDir: an
// advisory lock held until Unlock or the process's end) and checks that the
// directory can be written, before any work is done. A directory another run
// holds, or one that cannot be created or written, is a usage error (exit 2)
// naming the flag, the directory and, for a held one, the holder's pid.
func lockOut(flag, dir string) (*greedy.DirLock, error) {
	if dir == "" {
		return nil, usagef("%s must not be empty", flag)
	}
	l, err := greedy.LockDir(dir)
	if err != nil {
		var le *greedy.LockedError
		if errors.As(err, &le) {
			return nil, usagef("%s %v", flag, err)
		}
		return nil, usagef("%s %s cannot be written: %v", flag, dir, err)
	}
	if err := checkWritable(dir); err != nil {
		l.Unlock()
		return nil, usagef("%s %s cannot be written: %v", flag, dir, err)
	}
	if afterLock != nil {
		afterLock()
	}
	return l, nil
}

// claimCheckpointDir locks a training run's checkpoint directory dir
// (lockOut), removes the temporary files a killed run left, and refuses a
// directory that already holds a checkpoint (any of the files marker) unless
// the run resumes it. The caller unlocks the returned lock.
func claimCheckpointDir(dir string, resume bool, marker ...string) (*greedy.DirLock, error) {
	lock, err := lockOut("--out", dir)
	if err != nil {
		return nil, err
	}
	greedy.RemoveTemps(dir)
	if !resume {
		for _, name := range marker {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				lock.Unlock()
				return nil, usagef("--out %s already holds a checkpoint: pass --resume to continue it, or choose another --out", dir)
			}
		}
	}
	return lock, nil
}

// afterLock, if set, runs once a run holds its lock (tests use it to keep
// two runs overlapping).
var afterLock func()

// checkWritable creates and removes a file in dir.
func checkWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".l2o-write-check-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("removing %s: %w", name, err)
	}
	return nil
}

package cmd

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/unroll"
)

// lockOut takes the run lock of an output directory (greedy.LockDir: an
// advisory lock held until Unlock or the process's end) and checks that the
// directory can be written, before any work is done. A directory another run
// holds, or one that cannot be created or written, is a usage error (exit 2)
// naming the flag, the directory and, for a held one, the holder's pid.
func lockOut(flag, dir string) (*checkpoint.DirLock, error) {
	if dir == "" {
		return nil, usagef("%s must not be empty", flag)
	}
	l, err := checkpoint.LockDir(dir)
	if err != nil {
		var le *checkpoint.LockedError
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
func claimCheckpointDir(dir string, resume bool, marker ...string) (*checkpoint.DirLock, error) {
	if resume && !slices.ContainsFunc(marker, func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	}) {
		return nil, usagef("--resume: --out %s holds no checkpoint to continue (no %s): drop --resume to start one there", dir, strings.Join(marker, " or "))
	}
	lock, err := lockOut("--out", dir)
	if err != nil {
		return nil, err
	}
	checkpoint.RemoveTemps(dir)
	if resume {
		// Files of a step a killed run did not complete: the resume
		// computes that step again.
		paths, _ := orphans(dir)
		for _, p := range paths {
			os.Remove(p)
		}
	}
	if !resume {
		for _, name := range marker {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				lock.Unlock()
				return nil, usagef("--out %s already holds a checkpoint: pass --resume to continue it, or choose another --out", dir)
			}
		}
		// A new run starts in an empty folder: files beside a checkpoint
		// would pass for part of it, and a run that stopped before its
		// first manifest leaves parameter files a new run would mix with.
		if held := heldFiles(dir); len(held) > 0 {
			lock.Unlock()
			return nil, usagef("--out %s already holds files (%s) and no checkpoint: a new training starts in an empty folder; choose another --out, or remove them", dir, listSome(held, 4))
		}
	}
	return lock, nil
}

// heldFiles lists the entries of dir but the lock and write checks.
func heldFiles(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var held []string
	for _, e := range entries {
		if e.Name() != checkpoint.LockName && !strings.HasPrefix(e.Name(), ".l2o-write-check-") {
			held = append(held, e.Name())
		}
	}
	return held
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

// claimResultsDir locks a results directory (lockOut) and refuses one that
// already holds another run's results (any file but the lock) unless force.
// The caller unlocks the returned lock, and calls clearResults before it
// writes, so that nothing of the previous results is left behind.
func claimResultsDir(env *Env, flag, dir string, force bool) (*checkpoint.DirLock, error) {
	if dir == "" {
		return nil, usagef("%s must not be empty", flag)
	}
	lock, err := lockOut(flag, dir)
	if err != nil {
		return nil, err
	}
	if _, err := os.ReadDir(dir); err != nil {
		lock.Unlock()
		return nil, usagef("%s %s cannot be read: %v", flag, dir, err)
	}
	held := heldFiles(dir)
	for _, name := range []string{"manifest.json", "unroll.json"} {
		if slices.Contains(held, name) {
			lock.Unlock()
			return nil, usagef("%s %s holds a checkpoint (%s): results are never written into one, --force or not; choose another %s", flag, dir, name, flag)
		}
	}
	if len(held) == 0 {
		return lock, nil
	}
	if !force {
		lock.Unlock()
		return nil, usagef("%s %s already holds results (%s): choose another %s, or pass --force to replace them", flag, dir, listSome(held, 4), flag)
	}
	fmt.Fprintf(env.Stderr, "note: --force: the results in %s will be replaced\n", dir)
	return lock, nil
}

// clearResults removes the files (names or glob patterns; a trailing "/"
// names a folder) of previous results from dir, once a run has results to
// write in their place.
func clearResults(dir string, names ...string) error {
	for _, n := range names {
		paths, err := filepath.Glob(filepath.Join(dir, strings.TrimSuffix(n, "/")))
		if err != nil {
			return err
		}
		for _, p := range paths {
			if err := os.RemoveAll(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// reportResults are the files a report (report, demo) writes in its folder.
var reportResults = []string{"index.html", "*.svg", "*.png", "curves.csv", "curves.json"}

// listSome joins the first n names and says how many more there are.
func listSome(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// orphans lists the files in the params/ and state/ folders of the
// greedy-layout checkpoint dir that neither its manifest nor unroll.json
// lists (those of a step in progress when a run was killed), and their
// size in bytes. A checkpoint without checksums, or not of the greedy
// layout, has none.
func orphans(dir string) ([]string, int64) {
	man, err := checkpoint.ReadManifest(dir)
	if err != nil || man.Checksums == nil {
		return nil, 0
	}
	listed := maps.Clone(man.Checksums)
	if _, err := os.Stat(filepath.Join(dir, "unroll.json")); err == nil {
		st, err := unroll.ReadState(dir)
		if err != nil {
			return nil, 0
		}
		maps.Copy(listed, st.Checksums)
	}
	var paths []string
	var size int64
	for _, sub := range []string{"params", "state"} {
		entries, _ := os.ReadDir(filepath.Join(dir, sub))
		for _, e := range entries {
			if _, ok := listed[sub+"/"+e.Name()]; ok || !e.Type().IsRegular() {
				continue
			}
			if info, err := e.Info(); err == nil {
				size += info.Size()
			}
			paths = append(paths, filepath.Join(dir, sub, e.Name()))
		}
	}
	return paths, size
}

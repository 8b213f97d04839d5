package cmd

import (
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
)

// ProfileEnv names the environment variable that makes the l2o binary write
// a CPU profile of its whole run (Go's runtime/pprof; read it with
// "go tool pprof -top BINARY FILE"). On a GPU the profile shows the host's
// side: the driver calls, and the waits in the copies back, under
// runtime.cgocall.
const ProfileEnv = "L2O_CPUPROFILE"

// StartCPUProfile starts a CPU profile into the file path and returns the
// function that stops it and closes the file. An empty path profiles nothing
// (stop does nothing). It refuses a path that exists, so that no profile is
// overwritten.
func StartCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("%s=%s: the file exists; remove it or name another", ProfileEnv, path)
		}
		return nil, fmt.Errorf("%s: %w", ProfileEnv, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("%s=%s: %w", ProfileEnv, path, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("%s=%s: %w", ProfileEnv, path, err)
		}
		return nil
	}, nil
}

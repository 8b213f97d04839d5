//go:build !unix

package checkpoint

import "os"

// Without flock the directory is not locked.
func tryLock(*os.File) (bool, error) { return true, nil }

func unlock(*os.File) error { return nil }

func probeLock(*os.File) bool { return false }

// Package cu provides an idiomatic interface to the CUDA Driver API.
package cu // import "gorgonia.org/cu"

// This file implements CUDA driver context management

//#include <cuda.h>
import "C"
import (
	"fmt"
)

const initHtml = "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__INITIALIZE.html"

// initErr is the error cuInit returned at package initialisation (nil on a
// machine with a usable CUDA driver and device).
//
// greedyl2o patch: upstream v0.9.6 prints the error and calls os.Exit(1)
// here, which ends any program that links this package on a machine
// without a GPU, before main runs. The error is kept instead and reported
// by InitError, so that callers can refuse the CUDA device with a message.
var initErr error

func init() {
	// Given that the flags must be 0, the CUDA driver is initialized at the package level
	// http://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__INITIALIZE.html
	if err := result(C.cuInit(C.uint(0))); err != nil {
		initErr = fmt.Errorf("CUDA driver initialisation (cuInit) failed, see %s: %v", initHtml, err)
	}
}

// InitError returns the error of the CUDA driver's initialisation, or nil
// when the driver is usable (greedyl2o patch, see initErr).
func InitError() error { return initErr }

// Version returns the version of the CUDA driver
func Version() int {
	var v C.int
	if err := result(C.cuDriverGetVersion(&v)); err != nil {
		return -1
	}
	return int(v)
}

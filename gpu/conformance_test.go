package gpu_test

import (
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/gpu/gputest"
)

// The host devices pass the conformance suites of package gputest: the CPU
// device to 1e-12, the float32 host device with the CUDA device's
// tolerances (1e-5; 1e-4 at 96×96).

func TestCPUOpsIdentities(t *testing.T) {
	for _, s := range []gpu.Batch{{N: 3, H: 6, W: 7}, {N: 2, H: 8, W: 8}, {N: 1, H: 5, W: 12}} {
		if err := gputest.CheckOps(gpu.CPU(), s, 1e-12); err != nil {
			t.Errorf("batch %+v: %v", s, err)
		}
	}
}

func TestHost32OpsIdentities(t *testing.T) {
	for _, c := range []struct {
		s   gpu.Batch
		tol float64
	}{{gpu.Batch{N: 3, H: 12, W: 13}, 1e-5}, {gpu.Batch{N: 2, H: 16, W: 16}, 1e-5}, {gpu.Batch{N: 2, H: 96, W: 96}, 1e-4}} {
		if err := gputest.CheckOps(gpu.Host32(), c.s, c.tol); err != nil {
			t.Errorf("batch %+v: %v", c.s, err)
		}
	}
}

func TestNetOpsIdentities(t *testing.T) {
	for _, s := range []gputest.NetShape{{N: 1, C: 3, H: 7, W: 9}, {N: 2, C: 2, H: 6, W: 5}} {
		if err := gputest.CheckNetOps(gpu.CPU(), s, 1e-12); err != nil {
			t.Errorf("cpu, %+v:\n%v", s, err)
		}
		if err := gputest.CheckNetOps(gpu.Host32(), s, 1e-5); err != nil {
			t.Errorf("host32, %+v:\n%v", s, err)
		}
	}
}

func TestMatIdentities(t *testing.T) {
	s := gpu.Batch{N: 3, H: 5, W: 4}
	if err := gputest.CheckMat(gpu.CPU(), s, 1e-12); err != nil {
		t.Errorf("cpu: %v", err)
	}
	if err := gputest.CheckMat(gpu.Host32(), s, 1e-5); err != nil {
		t.Errorf("host32: %v", err)
	}
}

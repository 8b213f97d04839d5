package gputest_test

import (
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/gpu/gputest"
)

// brokenAdjoint is the CPU device with a GradAdjoint that forgets the
// second direction: CheckOps must notice.
type brokenAdjoint struct{ *gpu.HostDevice }

func (b brokenAdjoint) GradAdjoint(x, d gpu.Buffer, s gpu.Batch) error {
	dv := d.(*gpu.HostBuffer).Values()
	half := make([]float64, len(dv))
	hw := s.H * s.W
	for n := 0; n < s.N; n++ {
		copy(half[2*n*hw:(2*n+1)*hw], dv[2*n*hw:(2*n+1)*hw])
	}
	hb, err := b.Alloc(len(dv))
	if err != nil {
		return err
	}
	defer b.Free(hb)
	if err := b.CopyIn(hb, half); err != nil {
		return err
	}
	return b.HostDevice.GradAdjoint(x, hb, s)
}

func TestCheckOpsCatchesAWrongAdjoint(t *testing.T) {
	err := gputest.CheckOps(brokenAdjoint{gpu.CPU()}, gpu.Batch{N: 2, H: 6, W: 6}, 1e-12)
	if err == nil || !strings.Contains(err.Error(), "grad adjoint") {
		t.Fatalf("CheckOps with a wrong GradAdjoint returned %v, want a grad adjoint failure", err)
	}
}

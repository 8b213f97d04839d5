package gputest_test

import (
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/gpu/gputest"
	"github.com/greedyl2o/greedyl2o/mconv"
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

// brokenWeights is the CPU device with a weight adjoint that forgets the
// last output channel.
type brokenWeights struct{ *gpu.HostDevice }

func (b brokenWeights) MConvAdjointWeights(gw, gb, x, y gpu.Buffer, s mconv.Shape) error {
	if err := b.HostDevice.MConvAdjointWeights(gw, gb, x, y, s); err != nil {
		return err
	}
	v := gw.(*gpu.HostBuffer).Values()
	clear(v[len(v)-s.Cin*s.K*s.K:])
	return nil
}

func TestCheckNetOpsCatchesAWrongAdjoint(t *testing.T) {
	err := gputest.CheckNetOps(brokenWeights{gpu.CPU()}, mconv.Shape{N: 1, Cin: 2, Cout: 3, H: 5, W: 5, K: 3}, 1e-12)
	if err == nil || !strings.Contains(err.Error(), "weight adjoint") {
		t.Fatalf("CheckNetOps with a wrong weight adjoint returned %v, want a weight adjoint failure", err)
	}
}

package gpu

import (
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/mconv"
	"github.com/greedyl2o/greedyl2o/tomo"
)

func TestCheckNetOps(t *testing.T) {
	for _, s := range []mconv.Shape{
		{N: 1, Cin: 3, Cout: 4, H: 7, W: 9, K: 3},
		{N: 2, Cin: 2, Cout: 3, H: 6, W: 5, K: 5},
	} {
		if err := CheckNetOps(CPU(), s, 1e-12); err != nil {
			t.Errorf("cpu, %+v:\n%v", s, err)
		}
		if err := CheckNetOps(Host32(), s, 1e-5); err != nil {
			t.Errorf("host32, %+v:\n%v", s, err)
		}
	}
}

// brokenWeights is the CPU device with a weight adjoint that forgets the
// last output channel.
type brokenWeights struct{ *HostDevice }

func (b brokenWeights) MConvAdjointWeights(gw, gb, x, y Buffer, s mconv.Shape) error {
	if err := b.HostDevice.MConvAdjointWeights(gw, gb, x, y, s); err != nil {
		return err
	}
	v := gw.(*HostBuffer).Values()
	clear(v[len(v)-s.Cin*s.K*s.K:])
	return nil
}

func TestCheckNetOpsCatchesAWrongAdjoint(t *testing.T) {
	err := CheckNetOps(brokenWeights{CPU()}, mconv.Shape{N: 1, Cin: 2, Cout: 3, H: 5, W: 5, K: 3}, 1e-12)
	if err == nil || !strings.Contains(err.Error(), "weight adjoint") {
		t.Fatalf("CheckNetOps with a wrong weight adjoint returned %v, want a weight adjoint failure", err)
	}
}

func TestNetOpsRejectBadArguments(t *testing.T) {
	d := CPU()
	a, _ := d.Alloc(12)
	b, _ := d.Alloc(8)
	defer d.Free(a)
	defer d.Free(b)
	for name, err := range map[string]error{
		"plane dots":          d.PlaneDots(make([]float64, 3), a, nil, 5),
		"combine lengths":     d.PlaneCombine(a, []float64{1, 2}, a, []float64{1}, a, nil, 6),
		"combine z without b": d.PlaneCombine(a, []float64{1, 2}, a, nil, a, nil, 6),
		"copy past the end":   d.CopyPlanes(a, 2, 1, b, 0, 1, 2, 4),
		"copy onto itself":    d.CopyPlanes(a, 0, 1, a, 1, 1, 1, 4),
		"mconv":               d.MConv(a, b, a, nil, mconv.Shape{N: 1, Cin: 1, Cout: 1, H: 3, W: 4, K: 3}),
		"leaky":               d.LeakyMask(a, b, a, 0.2),
	} {
		if err == nil {
			t.Errorf("%s with bad arguments returned nil", name)
		}
	}
}

func TestCheckRay(t *testing.T) {
	for _, g := range []tomo.Geometry{{N: 16, Angles: 12, Det: tomo.DefaultDet(16)}, {N: 9, Angles: 7, Det: 11}} {
		if err := CheckRay(CPU(), g, 1e-12); err != nil {
			t.Errorf("cpu, %+v: %v", g, err)
		}
		if err := CheckRay(Host32(), g, 1e-5); err != nil {
			t.Errorf("host32, %+v: %v", g, err)
		}
	}
}

func TestCheckRidge(t *testing.T) {
	if err := CheckRidge(CPU(), 2, 3, 20, 1e-12); err != nil {
		t.Errorf("cpu: %v", err)
	}
	if err := CheckRidge(Host32(), 2, 3, 20, 1e-5); err != nil {
		t.Errorf("host32: %v", err)
	}
	if _, err := CPU().NewRidge([]float64{0.2}, []float64{0.1}, 1); err == nil {
		t.Error("thresholds h > T accepted")
	}
}

func TestCheckMat(t *testing.T) {
	s := Batch{N: 3, H: 5, W: 4}
	if err := CheckMat(CPU(), s, 1e-12); err != nil {
		t.Errorf("cpu: %v", err)
	}
	if err := CheckMat(Host32(), s, 1e-5); err != nil {
		t.Errorf("host32: %v", err)
	}
	a, _ := CPU().Alloc(s.Len())
	defer CPU().Free(a)
	m, _ := CPU().Alloc(400)
	defer CPU().Free(m)
	if err := CPU().MatMulAdd(a, m, a, s, 1, false); err == nil {
		t.Error("mat mul add with dst = v accepted")
	}
	if err := CPU().MatMulAdd(a, a, a, s, 1, false); err == nil {
		t.Error("mat mul add with a batch as the matrix accepted")
	}
}

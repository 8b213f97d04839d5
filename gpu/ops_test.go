package gpu

import (
	"strings"
	"testing"
)

func TestCPUOpsIdentities(t *testing.T) {
	for _, s := range []Batch{{N: 3, H: 6, W: 7}, {N: 2, H: 8, W: 8}, {N: 1, H: 5, W: 12}} {
		if err := CheckOps(CPU(), s, 1e-12); err != nil {
			t.Errorf("batch %+v: %v", s, err)
		}
	}
}

// brokenAdjoint is the CPU device with a GradAdjoint that forgets the
// second direction: CheckOps must notice.
type brokenAdjoint struct{ *HostDevice }

func (b brokenAdjoint) GradAdjoint(x, d Buffer, s Batch) error {
	dv := d.(*HostBuffer).Values()
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
	err := CheckOps(brokenAdjoint{CPU()}, Batch{N: 2, H: 6, W: 6}, 1e-12)
	if err == nil || !strings.Contains(err.Error(), "grad adjoint") {
		t.Fatalf("CheckOps with a wrong GradAdjoint returned %v, want a grad adjoint failure", err)
	}
}

func TestCPUOpsRejectWrongSizes(t *testing.T) {
	d := CPU()
	a, _ := d.Alloc(10)
	b, _ := d.Alloc(12)
	defer d.Free(a)
	defer d.Free(b)
	s := Batch{N: 1, H: 2, W: 5}
	for name, err := range map[string]error{
		"axpby":    d.Axpby(a, 1, b, 1),
		"grad":     d.Grad(b, a, s),
		"rfft2":    d.RFFT2(a, a, s),
		"conv2d":   d.Conv2D(a, a, b, s, 3, 0),
		"mul add":  d.MulAdd(a, b, a, s, 1),
		"empty":    d.Grad(a, a, Batch{}),
		"spectral": d.SpectralMulAdd(a, a, a, s),
	} {
		if err == nil {
			t.Errorf("%s with mismatched buffers returned nil", name)
		}
	}
	if _, err := d.Dot(a, b); err == nil {
		t.Error("dot of 10 and 12 values returned nil")
	}
}

// TestHost32OpsIdentities runs CheckOps on the float32 host device with the
// CUDA device's tolerances (1e-5; 1e-4 at 96×96).
func TestHost32OpsIdentities(t *testing.T) {
	for _, c := range []struct {
		s   Batch
		tol float64
	}{{Batch{N: 3, H: 12, W: 13}, 1e-5}, {Batch{N: 2, H: 16, W: 16}, 1e-5}, {Batch{N: 2, H: 96, W: 96}, 1e-4}} {
		if err := CheckOps(Host32(), c.s, c.tol); err != nil {
			t.Errorf("batch %+v: %v", c.s, err)
		}
	}
	b, _ := Host32().Alloc(3)
	defer Host32().Free(b)
	out := make([]float64, 3)
	if err := Host32().CopyIn(b, []float64{1.0 / 3, 1e-50, 2}); err != nil {
		t.Fatal(err)
	}
	if err := Host32().CopyOut(out, b); err != nil {
		t.Fatal(err)
	}
	if out[0] != float64(float32(1.0/3)) || out[1] != 0 || out[2] != 2 {
		t.Errorf("host32 round trip %v, want float32 values", out)
	}
}

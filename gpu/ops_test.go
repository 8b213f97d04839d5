package gpu

import (
	"testing"
)

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

// TestHost32RoundTrip checks that the float32 host device rounds copies to
// float32 (its identities are in conformance_test.go).
func TestHost32RoundTrip(t *testing.T) {
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

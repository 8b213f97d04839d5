package wcrr

import (
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
)

func TestDevicePotentialsRejectBadThresholds(t *testing.T) {
	for name, c := range map[string]struct {
		h, t []float64
		mu   float64
	}{
		"h > T":           {[]float64{0.2}, []float64{0.1}, 1},
		"unequal lengths": {[]float64{0.1, 0.2}, []float64{0.3}, 1},
		"negative slope":  {[]float64{0.1}, []float64{0.3}, -1},
		"no channels":     {nil, nil, 1},
		"h = 0":           {[]float64{0}, []float64{0.3}, 1},
	} {
		if _, err := NewDevicePotentials(gpu.CPU(), c.h, c.t, c.mu); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// On the CPU device the potentials are bitwise the model's (Model.Psi,
// PsiPrime, PsiSecond), so that --device host trains as the CPU path does.
func TestHostPotentialsAreTheModels(t *testing.T) {
	m := Random(3, [3]int{2, 3, 4}, 0.6)
	const n, h, w = 2, 5, 6
	c, hw := m.Channels(), h*w
	z := make([]float64, n*c*hw)
	for i := range z {
		z[i] = 3 * float64((i*7919)%101-50) / 50 * m.T[i/hw%c]
	}
	d := gpu.CPU()
	p, err := NewDevicePotentials(d, m.H, m.T, m.Mu)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	zb, _ := d.Alloc(len(z))
	ob, _ := d.Alloc(len(z))
	ub, _ := d.Alloc(len(z))
	defer d.Free(zb)
	defer d.Free(ob)
	defer d.Free(ub)
	if err := d.CopyIn(zb, z); err != nil {
		t.Fatal(err)
	}
	ones := make([]float64, len(z))
	for i := range ones {
		ones[i] = 1
	}
	if err := d.CopyIn(ub, ones); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		device func() error
		model  func(dst []float64) error
	}{
		{"psi", func() error { return p.Psi(ob, zb, hw) }, func(dst []float64) error { return m.Psi(dst, z, n, h, w) }},
		{"psi'", func() error { return p.PsiPrime(ob, zb, hw) }, func(dst []float64) error { return m.PsiPrime(dst, z, n, h, w) }},
		{"psi''", func() error { return p.HessVec(ob, zb, ub, hw) }, func(dst []float64) error { return m.PsiSecond(dst, z, n, h, w) }},
	} {
		want := make([]float64, len(z))
		if err := c.model(want); err != nil {
			t.Fatal(err)
		}
		if err := c.device(); err != nil {
			t.Fatal(err)
		}
		got := ob.(*gpu.HostBuffer).Values()
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: value %d is %v on the device, %v by the model", c.name, i, got[i], want[i])
			}
		}
	}
}

package gpu

import (
	"strings"
	"testing"
)

// TestNAGUpdate runs three updates on the CPU device with a table of two
// β (the third update reads past it: β = 0) and checks u, y and the count
// against the formula written out, and that aliased buffers are refused.
func TestNAGUpdate(t *testing.T) {
	d := CPU()
	buf := func(v ...float64) Buffer {
		b, err := d.Alloc(len(v))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Free(b) })
		if err := d.CopyIn(b, v); err != nil {
			t.Fatal(err)
		}
		return b
	}
	u, y, g, ref := buf(1, -2), buf(0.5, 3), buf(4, -1), buf(0.25, 0.75)
	betas, count := buf(0.5, 0.25), buf(0)
	const c, lam, step = -0.5, 0.2, 0.1
	wu, wy := []float64{1, -2}, []float64{0.5, 3}
	gv := []float64{4, -1}
	rv := []float64{0.25, 0.75}
	for k, beta := range []float64{0.5, 0.25, 0} {
		if err := d.NAGUpdate(u, y, g, ref, betas, count, c, lam, step); err != nil {
			t.Fatal(err)
		}
		for i := range wu {
			next := wy[i] - step*(c*gv[i]+lam*(wy[i]-rv[i]))
			wy[i] = next + beta*(next-wu[i])
			wu[i] = next
		}
		for _, c := range []struct {
			name string
			b    Buffer
			want []float64
		}{{"u", u, wu}, {"y", y, wy}} {
			got := make([]float64, 2)
			if err := d.CopyOut(got, c.b); err != nil {
				t.Fatal(err)
			}
			if got[0] != c.want[0] || got[1] != c.want[1] {
				t.Errorf("update %d: %s = %v, want %v", k, c.name, got, c.want)
			}
		}
	}
	n := make([]float64, 1)
	if err := d.CopyOut(n, count); err != nil {
		t.Fatal(err)
	}
	if n[0] != 3 {
		t.Errorf("count %g after three updates, want 3", n[0])
	}
	if err := d.NAGUpdate(u, u, g, ref, betas, count, c, lam, step); err == nil || !strings.Contains(err.Error(), "distinct") {
		t.Errorf("u as y gave %v, want an error saying the buffers must be distinct", err)
	}
}

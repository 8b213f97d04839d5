package gpu

import "testing"

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
		"leaky":               d.LeakyMask(a, b, a, 0.2),
	} {
		if err == nil {
			t.Errorf("%s with bad arguments returned nil", name)
		}
	}
}

func TestMatRejectsBadArguments(t *testing.T) {
	s := Batch{N: 3, H: 5, W: 4}
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

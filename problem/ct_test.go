package problem

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/kernels"
	"gorgonia.org/tensor"
)

func TestCTSmallProblem(t *testing.T) {
	p, err := CTSmall(Options{H: 16})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.L(), 1+8*1e-4/0.01; math.Abs(got-want) > 1e-15 {
		t.Errorf("L = %g, want %g", got, want)
	}
	nrm, err := OperatorNorm(p.A, 16, 16, 300, 1e-13, 4)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(nrm-1) > 1e-8 {
		t.Errorf("‖A‖ = %.12g after normalisation", nrm)
	}
	r := rand.New(rand.NewPCG(1, 2))
	in := tensor.Shape{2, 16, 16}
	out, _ := p.A.OutShape(in)
	x, y := randVec(r, in.TotalSize(), 1), randVec(r, out.TotalSize(), 1)
	ax, aty := make([]float64, len(y)), make([]float64, len(x))
	_ = p.A.Apply(ax, x, in)
	_ = p.A.Adjoint(aty, y, in)
	if d := relDiff(kernels.Dot(ax, y), kernels.Dot(x, aty)); d > 1e-12 {
		t.Errorf("adjoint identity off by %g", d)
	}
	truth := make([]float64, 2*256)
	for i := range truth {
		truth[i] = 0.5 + 0.2*math.Sin(float64(i))
	}
	o, err := p.Instantiate(truth, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range o.X0 {
		if v != 0 {
			t.Fatal("CT starts at x0 = 0")
		}
	}
	if o.DataLen() != 90*23 {
		t.Errorf("data per function %d, want 90×23", o.DataLen())
	}
}

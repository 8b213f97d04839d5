package baselines

import (
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/problem"
)

// TestPreconditionerOnAFamily: on a family of operators (problem.PerFunction)
// the preconditioner applies each image's own (δI + A_kᵀA_k)⁻¹, bitwise as
// that member's preconditioner, and refuses a batch of another size.
func TestPreconditionerOnAFamily(t *testing.T) {
	const n, h = 3, 16
	o := testproblems.BlurFamily(t, n, h, 1, 2.5, 1)
	r := rand.New(rand.NewPCG(3, 4))
	fam, err := NewPreconditioner(o.A, h, h, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	src, got := make([]float64, n*h*h), make([]float64, n*h*h)
	for i := range src {
		src[i] = r.NormFloat64()
	}
	if err := fam.Apply(got, src); err != nil {
		t.Fatal(err)
	}
	hw := h * h
	for k, op := range o.A.(*problem.PerFunction).Ops {
		one, err := NewPreconditioner(op, h, h, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, hw)
		if err := one.Apply(want, src[k*hw:(k+1)*hw]); err != nil {
			t.Fatal(err)
		}
		for i, v := range want {
			if got[k*hw+i] != v {
				t.Fatalf("image %d: the family's preconditioner differs from its member's at %d", k, i)
			}
		}
	}
	if err := fam.Apply(got[:hw], src[:hw]); err == nil {
		t.Error("a batch of one image was preconditioned by a family of three operators")
	}
}

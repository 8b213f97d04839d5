package learned

import (
	"math"
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/models"
)

// On every kind of objective (Huber-TV deblurring, least squares, CT,
// WCRR) the BGD rule keeps the descent inequality against a momentum
// adversary, and f and ∇f it carries to the next iteration (for rejected
// functions computed as a smaller batch) are those of the objective at the
// iterate, bitwise.
func TestBGDSafeguardAllObjectives(t *testing.T) {
	for name, o := range testproblems.Mixed(t) {
		t.Run(name, func(t *testing.T) {
			tau := 1 / o.L
			m, err := models.ParseMethod("m-ps")
			if err != nil {
				t.Fatal(err)
			}
			l, err := New("adversary", m, o.H, o.W, [][]float64{m.G.Reference(tau, o.H, o.W)}, [][]float64{m.H.Reference(1.5, o.H, o.W)})
			if err != nil {
				t.Fatal(err)
			}
			l.Safeguard, l.SafeguardRule = tau, SafeguardBGD
			it, err := l.Start(o)
			if err != nil {
				t.Fatal(err)
			}
			li := it.(*learnedIterator)
			hw := o.ImageLen()
			f, g := make([]float64, o.N), make([]float64, len(o.X0))
			if err := o.Eval(f, g, o.X0, nil); err != nil {
				t.Fatal(err)
			}
			partial := 0
			for s := 1; s <= 60; s++ {
				fPrev, gPrev := append([]float64(nil), f...), append([]float64(nil), g...)
				if err := it.Next(); err != nil {
					t.Fatal(err)
				}
				if err := o.Eval(f, g, it.X(), nil); err != nil {
					t.Fatal(err)
				}
				for k := range f {
					gk := gPrev[k*hw : (k+1)*hw]
					if bound := fPrev[k] - tau/2*kernels.Dot(gk, gk); f[k] > bound+1e-12*math.Abs(fPrev[k]) {
						t.Fatalf("iteration %d, f_%d: %.17g > f(x^t) − (τ/2)‖∇f(x^t)‖² = %.17g", s, k, f[k], bound)
					}
					if li.fx[k] != f[k] {
						t.Fatalf("iteration %d, f_%d: the iterator carries f = %.17g, the objective gives %.17g", s, k, li.fx[k], f[k])
					}
				}
				for i := range g {
					if li.grad[i] != g[i] {
						t.Fatalf("iteration %d: the iterator carries ∇f %.17g at %d, the objective gives %.17g", s, li.grad[i], i, g[i])
					}
				}
				if a := li.Acceptance()[s-1]; a > 0 && a < 1 {
					partial++
				}
			}
			if partial == 0 {
				t.Errorf("no iteration mixed accepted and rejected steps: the smaller batch went untested (rates %v)", li.Acceptance())
			}
		})
	}
}

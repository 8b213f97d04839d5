package greedy

import (
	"math"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/problem"
)

// TestResizedRunsAtAnotherSize applies size-free parameters learned on 16×16
// images to 24×24 ones: a PS optimizer with θ = τ must then be gradient
// descent with step τ on the new functions, and a pointwise one is refused.
func TestResizedRunsAtAnotherSize(t *testing.T) {
	tau := 1 / 1.32
	l, err := learned.New("ps", method(t, "ps"), 16, 16, [][]float64{{tau}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := deblurSet(t, 2, 24, 5)
	if _, err := l.Start(o); err == nil {
		t.Fatal("a 16×16 optimizer started on 24×24 functions without Resized")
	}
	r, err := l.Resized(24, 24)
	if err != nil {
		t.Fatal(err)
	}
	it, err := r.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	x := append([]float64(nil), o.X0...)
	g := make([]float64, len(x))
	var ws problem.Workspace
	for k := 0; k < 4; k++ {
		if err := it.Next(); err != nil {
			t.Fatal(err)
		}
		if err := o.Eval(nil, g, x, &ws); err != nil {
			t.Fatal(err)
		}
		for i := range x {
			x[i] -= tau * g[i]
		}
	}
	var d float64
	for i, v := range it.X() {
		d = math.Max(d, math.Abs(v-x[i]))
	}
	if d > 1e-12 {
		t.Errorf("resized PS with θ = τ differs from gradient descent by %g", d)
	}
	pp, err := learned.New("pp", method(t, "pp"), 16, 16, [][]float64{make([]float64, 256)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pp.Resized(24, 24); err == nil || !strings.Contains(err.Error(), "bound to the 16×16") {
		t.Errorf("pointwise parameters resized: err = %v, want a refusal", err)
	}
	mpc, err := learned.New("m-pc3", method(t, "m-pc3"), 16, 16, [][]float64{make([]float64, 9)}, [][]float64{make([]float64, 9)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mpc.Resized(32, 32); err != nil {
		t.Errorf("m-pc3 is size-free, yet: %v", err)
	}
}

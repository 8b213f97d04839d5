package banert

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/problem"
)

// tinyObjective returns n deblurring functions on h×w synthetic images; with
// smooth set the Huber ε is large so that finite differences are accurate.
func tinyObjective(t testing.TB, n, h int, smooth bool) *problem.Objective {
	t.Helper()
	p, err := problem.Deblur(problem.Options{H: h, W: h, Seed: 3, BlurBoundary: "reflect"}) // the numbers these tests were tuned on
	if err != nil {
		t.Fatal(err)
	}
	if smooth {
		p.Reg = problem.HuberTV{Eps: 0.2}
		p.Alpha = 0.02
	}
	_, hh, ww, pix, err := data.Stack(data.Synthetic(n, h, h, 7))
	if err != nil || hh != h || ww != h {
		t.Fatal(err)
	}
	o, err := p.Instantiate(pix, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// runDirect runs the Method for T iterations and returns Σ_k f_k(x_k^T).
func runDirect(t testing.TB, net *Network, o *problem.Objective, T int) float64 {
	t.Helper()
	it, err := (&Method{Net: net}).Start(o)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < T; i++ {
		if err := it.Next(); err != nil {
			t.Fatal(err)
		}
	}
	vals := make([]float64, o.N)
	if err := o.Eval(vals, nil, it.X(), nil); err != nil {
		t.Fatal(err)
	}
	var s float64
	for _, v := range vals {
		s += v
	}
	return s
}

func randVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

func relErr(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(math.Max(math.Abs(a), math.Abs(b)), 1e-300)
}

package problem

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/refdata"
	"github.com/greedyl2o/greedyl2o/wcrr"
)

// wcrrCheckData returns the fetched pretrained σ = 18 model and the two
// 32×32 check images of its reference values, or skips saying why.
func wcrrCheckData(t testing.TB) (*wcrr.Model, []float64) {
	path, ok := refdata.File("wcrr", "wcrr_sigma18.json")
	if !ok {
		t.Skip("pretrained WCRR weights not fetched: " + refdata.SkipReason)
	}
	m, err := wcrr.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	x := append(refdata.WCRRCheckImage("pattern"), refdata.WCRRCheckImage("lcg_noise")...)
	return m, x
}

// TestAutoWCRRMatchesHandWritten checks WCRR through the autodiff door (its
// value as an expression, ∇S by gorgonia) against the hand-derived ψ′
// path: values and gradients agree to 1e-10 relative, on random weights and,
// when present, on the pretrained model's check images.
func TestAutoWCRRMatchesHandWritten(t *testing.T) {
	compare := func(t *testing.T, m *wcrr.Model, x []float64, n, h, w int) {
		hand := &WCRR{Model: m, Name: "m"}
		auto, err := NewAutoWCRR(hand, h, w)
		if err != nil {
			t.Fatal(err)
		}
		vh, gh := make([]float64, n), make([]float64, len(x))
		va, ga := make([]float64, n), make([]float64, len(x))
		if err := hand.ValueGrad(vh, gh, x, n, h, w); err != nil {
			t.Fatal(err)
		}
		if err := auto.ValueGrad(va, ga, x, n, h, w); err != nil {
			t.Fatal(err)
		}
		for k := range vh {
			if d := relDiff(va[k], vh[k]); d > 1e-10 {
				t.Errorf("S(x_%d): autodiff %.15g, hand-written %.15g (rel %.2g)", k, va[k], vh[k], d)
			}
		}
		var diff, scale float64
		for i := range gh {
			diff = math.Max(diff, math.Abs(ga[i]-gh[i]))
			scale = math.Max(scale, math.Abs(gh[i]))
		}
		if diff > 1e-10*scale {
			t.Errorf("∇S: autodiff and hand-written differ by %.3g (max |∇S| %.3g)", diff, scale)
		}
		t.Logf("%d channels, %d×%d: max |Δ∇S| / max |∇S| = %.2g", m.Channels(), h, w, diff/scale)
	}
	t.Run("random", func(t *testing.T) {
		r := rand.New(rand.NewPCG(8, 8))
		x := randVec(r, 3*12*12, 0.3)
		compare(t, wcrr.Random(4, [3]int{2, 3, 4}, 10), x, 3, 12, 12)
	})
	t.Run("pretrained", func(t *testing.T) {
		m, x := wcrrCheckData(t)
		compare(t, m, x, 2, 32, 32)
	})
}

// BenchmarkWCRRGrad compares the hand-written ∇S of WCRR with the autodiff
// path on the pretrained model (random weights of the same shape when it is
// absent), 4 images of 64×64.
func BenchmarkWCRRGrad(b *testing.B) {
	var m *wcrr.Model
	if path, ok := refdata.File("wcrr", "wcrr_sigma18.json"); ok {
		m, _ = wcrr.Load(path)
	} else {
		m = wcrr.Random(4, [3]int{4, 8, 60}, 48)
	}
	const n, h, w = 4, 64, 64
	r := rand.New(rand.NewPCG(1, 1))
	x := randVec(r, n*h*w, 0.3)
	hand := &WCRR{Model: m, Name: "m"}
	auto, err := NewAutoWCRR(hand, h, w)
	if err != nil {
		b.Fatal(err)
	}
	vals, grad := make([]float64, n), make([]float64, len(x))
	for _, c := range []struct {
		name string
		reg  Regularizer
	}{{"hand", hand}, {"autodiff", auto}} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := c.reg.ValueGrad(vals, grad, x, n, h, w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package greedy

import (
	"math"
	"testing"

	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/models"
)

func TestParseSchedule(t *testing.T) {
	cases := []struct {
		in       string
		relative bool
		at       map[int]float64
	}{
		{"1e-3", false, map[int]float64{0: 1e-3, 100: 1e-3}},
		{"1e-2@10,1e-3@50,0", false, map[int]float64{0: 1e-2, 9: 1e-2, 10: 1e-3, 49: 1e-3, 50: 0, 1000: 0}},
		{"rel:0.5", true, map[int]float64{0: 0.5, 7: 0.5}},
		{"rel:1@3,0.1", true, map[int]float64{2: 1, 3: 0.1}},
	}
	for _, c := range cases {
		s, err := ParseSchedule(c.in)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		if s.Relative != c.relative {
			t.Errorf("%q: relative = %v, want %v", c.in, s.Relative, c.relative)
		}
		for step, want := range c.at {
			if got := s.At(step); got != want {
				t.Errorf("%q at step %d = %g, want %g", c.in, step, got, want)
			}
		}
		back, err := ParseSchedule(s.String())
		if err != nil || back.String() != s.String() || back.Relative != s.Relative {
			t.Errorf("%q: String %q does not parse back (%v)", c.in, s.String(), err)
		}
	}
	for _, bad := range []string{"", "-1", "rel:", "1e-2,0", "1@5,2@3,0", "x", "NaN", "rel:1@0,2", "1e-3@5", "1@3,2@5", "1_0"} {
		if _, err := ParseSchedule(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// A relative λ is scaled by the step's data curvature, which for PS is
// L·(1/N) Σk ‖∇fk(xk)‖² exactly.
func TestRelativeLambda(t *testing.T) {
	o := deblurSet(t, 3, 12, 5)
	grad := make([]float64, len(o.X0))
	if err := o.Eval(nil, grad, o.X0, nil); err != nil {
		t.Fatal(err)
	}
	want := 0.0
	hw := o.ImageLen()
	for k := 0; k < o.N; k++ {
		g := grad[k*hw : (k+1)*hw]
		want += kernels.Dot(g, g) / float64(o.N)
	}
	want *= 0.25 * o.L
	lam, _ := ParseSchedule("rel:0.25")
	res, err := Train(o, Config{Method: Method{Param: method(t, "ps"), Lambda: lam}, Stop: Stop{MaxSteps: 2}})
	if err != nil {
		t.Fatal(err)
	}
	// blockCurvature returns the power-iteration estimate with a 0.1% safety margin.
	if got := res.Steps[0].Lambda; math.Abs(got-want) > 2e-3*want {
		t.Errorf("step 0 λ = %.12g, want 0.25·L·mean‖∇f‖² = %.12g", got, want)
	}
	if res.Steps[1].Lambda >= res.Steps[0].Lambda {
		t.Errorf("λ did not shrink with the gradients: %g then %g", res.Steps[0].Lambda, res.Steps[1].Lambda)
	}
}

// The curvature through a bound operator agrees with the graph's.
func TestBoundCurvatureMatchesGraph(t *testing.T) {
	o := deblurSet(t, 3, 10, 4)
	grad := make([]float64, len(o.X0))
	if err := o.Eval(nil, grad, o.X0, nil); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ps", "pp", "pc", "pc3", "pf"} {
		p := method(t, name).G
		b, ok := p.(models.Binder)
		if !ok {
			t.Fatalf("%s has no bound operator", name)
		}
		fast, err := boundCurvature(b, p.ParamShape(o.H, o.W).TotalSize(), grad, o.N, o.H, o.W)
		if err != nil {
			t.Fatal(err)
		}
		slow, err := graphCurvature(p, grad, o.N, o.H, o.W)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(fast-slow) > 1e-4*slow || fast <= 0 {
			t.Errorf("%s: curvature %g through the bound operator, %g through the graph", name, fast, slow)
		}
	}
}

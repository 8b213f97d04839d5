package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/graph"
	G "gorgonia.org/gorgonia"
)

func randVec(r *rand.Rand, n int, s float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = s * r.NormFloat64()
	}
	return v
}

func relDiff(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(math.Max(math.Abs(a), math.Abs(b)), 1e-300)
}

func TestParametrizationsReferenceAndNorms(t *testing.T) {
	h, w := 6, 5
	r := rand.New(rand.NewPCG(13, 14))
	for _, name := range []string{"ps", "pp", "pc", "pc3", "pc3-zero", "pc3-reflect", "pf"} {
		p, err := ParseParametrization(name)
		if err != nil {
			t.Fatal(err)
		}
		const tau = 0.7
		g := G.NewGraph()
		th := graph.Input(g, "theta", p.ParamShape(h, w)...)
		v := graph.Input(g, "v", 2, h, w)
		out, err := p.Apply(th, v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		m := graph.NewMachine(g)
		_ = graph.Set(th, p.Reference(tau, h, w))
		vv := randVec(r, 2*h*w, 1)
		_ = graph.Set(v, vv)
		if err := m.Run(); err != nil {
			t.Fatal(err)
		}
		got, _ := graph.Value(out)
		for i := range vv {
			if math.Abs(got[i]-tau*vv[i]) > 1e-12 {
				t.Fatalf("%s: reference parameters do not give τI: %g vs %g", name, got[i], tau*vv[i])
			}
		}
		m.Close()
		theta := randVec(r, p.ParamShape(h, w).TotalSize(), 1)
		exact, err := OpNorm(p, theta, h, w)
		if err != nil {
			t.Fatal(err)
		}
		power, err := PowerNorm(p, theta, h, w)
		if err != nil {
			t.Fatal(err)
		}
		if d := relDiff(exact, power); d > 1e-6 {
			t.Errorf("%s: ‖G_θ‖ = %g exactly, %g by power iteration", name, exact, power)
		}
	}
}

func TestParseMethod(t *testing.T) {
	for in, want := range map[string]string{"m-pc": "m-pc", "PS": "ps", "pc:ps": "pc:ps", "m-pc5": "m-pc5", "pf": "pf"} {
		m, err := ParseMethod(in)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if m.Name() != want {
			t.Errorf("ParseMethod(%q).Name() = %q, want %q", in, m.Name(), want)
		}
	}
	for _, bad := range []string{"", "pq", "pc4", "m-", "pc:zz", "pc3-mirror"} {
		if _, err := ParseMethod(bad); err == nil {
			t.Errorf("ParseMethod(%q) accepted", bad)
		}
	}
}

// TestCheckSize: a kernel larger than the image and PF's (HW)² parameters
// past MaxStepParamBytes are refused before anything is allocated; the
// sizes the paper runs are accepted.
func TestCheckSize(t *testing.T) {
	for _, c := range []struct {
		method string
		size   int
		ok     bool
	}{
		{"m-pc5", 8, true}, {"pc99999", 8, false}, {"m-pc21", 16, false}, {"pc21", 21, true},
		{"pf", 40, true}, {"pf", 96, true}, {"pf", 160, false}, {"pf", 128, true}, {"m-pc", 256, true}, {"ps", 4096, true},
	} {
		m, err := ParseMethod(c.method)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.CheckSize(c.size, c.size); (err == nil) != c.ok {
			t.Errorf("%s on %d×%d: %v, want ok = %v", c.method, c.size, c.size, err, c.ok)
		}
	}
}

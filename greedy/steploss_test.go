package greedy

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/param"
	"github.com/greedyl2o/greedyl2o/problem"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// stepData returns x = x⁰, g = ∇f(x), and a momentum direction p for o.
func stepData(t testing.TB, o *problem.Objective, seed uint64) (x, g, p []float64) {
	t.Helper()
	x = append([]float64(nil), o.X0...)
	g = make([]float64, len(x))
	if err := o.Eval(nil, g, x, nil); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 3))
	p = make([]float64, len(x))
	for i := range p {
		p[i] = 0.02*g[i] + 0.01*r.NormFloat64()
	}
	return x, g, p
}

// perturbed returns the reference plus noise of size s, so that no symmetry
// of the reference hides an error.
func perturbed(ref []float64, s float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 5))
	u := append([]float64(nil), ref...)
	for i := range u {
		u[i] += s * r.NormFloat64()
	}
	return u
}

func maxAbs(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// TestFastStepLossMatchesGraph compares the fast path (bound operators and
// direct kernels) with the gorgonia graph: value, gradient and x⁺.
func TestFastStepLossMatchesGraph(t *testing.T) {
	o := deblurSet(t, 3, 16, 2)
	x, g, p := stepData(t, o, 1)
	for _, name := range []string{"ps", "pp", "pc", "pc5", "pc3-reflect", "pf", "m-ps", "m-pp", "m-pc", "m-pf", "pc:ps", "pp:pc"} {
		t.Run(name, func(t *testing.T) {
			m := method(t, name)
			fast, err := newStepLoss(m, o, 1/o.L, stepPaths{noReduce: true, noAffine: true})
			if err != nil {
				t.Fatal(err)
			}
			defer fast.Close()
			if fast.fast == nil {
				t.Fatalf("%s: no fast path", name)
			}
			slow, err := newStepLoss(method(t, name), o, 1/o.L, stepPaths{graphOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer slow.Close()
			if slow.fast != nil {
				t.Fatal("graph path requested, fast path built")
			}
			for _, s := range []*StepLoss{fast, slow} {
				if err := s.SetStep(x, g, p, 0.3, 0.7); err != nil {
					t.Fatal(err)
				}
			}
			u := perturbed(fast.Reference(), 0.05, 9)
			gf, gs := make([]float64, fast.Dim()), make([]float64, slow.Dim())
			vf, err := fast.Eval(u, gf)
			if err != nil {
				t.Fatal(err)
			}
			vs, err := slow.Eval(u, gs)
			if err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(vf-vs) / math.Abs(vs); !(d <= 1e-12) {
				t.Errorf("value: fast %.17g, graph %.17g (rel %.2g)", vf, vs, d)
			}
			diff := make([]float64, len(gf))
			for i := range gf {
				diff[i] = gf[i] - gs[i]
			}
			if d := maxAbs(diff) / maxAbs(gs); !(d <= 1e-12) {
				t.Errorf("gradient: max difference %.3g relative to max |∇| %.3g", d, maxAbs(gs))
			}
			// Value only must agree with the value of the full evaluation.
			u[0] += 1e-3
			v1, err := fast.Eval(u, nil)
			if err != nil {
				t.Fatal(err)
			}
			v2, err := slow.Eval(u, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(v1-v2) / math.Abs(v2); !(d <= 1e-12) {
				t.Errorf("value only: fast %.17g, graph %.17g", v1, v2)
			}
			nf, ns := make([]float64, len(x)), make([]float64, len(x))
			if err := fast.Next(nf, u); err != nil {
				t.Fatal(err)
			}
			if err := slow.Next(ns, u); err != nil {
				t.Fatal(err)
			}
			for i := range nf {
				if math.Abs(nf[i]-ns[i]) > 1e-12*maxAbs(ns) {
					t.Fatalf("x⁺[%d]: fast %.17g, graph %.17g", i, nf[i], ns[i])
				}
			}
		})
	}
}

// TestFastStepLossFiniteDifferences checks the fast gradient against central
// differences along random directions.
func TestFastStepLossFiniteDifferences(t *testing.T) {
	o := deblurSet(t, 2, 16, 4)
	x, g, p := stepData(t, o, 2)
	for _, name := range []string{"m-ps", "m-pp", "m-pc", "pc5-reflect"} {
		loss, err := NewStepLoss(method(t, name), o, 1/o.L)
		if err != nil {
			t.Fatal(err)
		}
		if loss.fast == nil {
			t.Fatalf("%s: no fast path", name)
		}
		if err := loss.SetStep(x, g, p, 0.2, 0.5); err != nil {
			t.Fatal(err)
		}
		u := perturbed(loss.Reference(), 0.02, 3)
		grad := make([]float64, loss.Dim())
		if _, err := loss.Eval(u, grad); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(11, 12))
		for trial := 0; trial < 3; trial++ {
			d := make([]float64, len(u))
			for i := range d {
				d[i] = r.NormFloat64()
			}
			const h = 1e-5
			up, um := append([]float64(nil), u...), append([]float64(nil), u...)
			for i := range d {
				up[i] += h * d[i]
				um[i] -= h * d[i]
			}
			fp, err := loss.Eval(up, nil)
			if err != nil {
				t.Fatal(err)
			}
			fm, err := loss.Eval(um, nil)
			if err != nil {
				t.Fatal(err)
			}
			fd := (fp - fm) / (2 * h)
			var an float64
			for i := range d {
				an += grad[i] * d[i]
			}
			if math.Abs(fd-an) > 1e-5*math.Max(math.Abs(an), 1e-3) {
				t.Errorf("%s direction %d: ⟨∇g, d⟩ = %.10g, central difference %.10g", name, trial, an, fd)
			}
		}
		loss.Close()
	}
}

// graphOnly hides a parametrization's fast path.
type graphOnly struct{ p param.Parametrization }

func (g graphOnly) Name() string                            { return g.p.Name() }
func (g graphOnly) ParamShape(h, w int) tensor.Shape        { return g.p.ParamShape(h, w) }
func (g graphOnly) Apply(theta, v *G.Node) (*G.Node, error) { return g.p.Apply(theta, v) }
func (g graphOnly) Reference(tau float64, h, w int) []float64 {
	return g.p.Reference(tau, h, w)
}

// TestGraphPathWithoutBinder checks that a parametrization without a fast
// path gets the graph.
func TestGraphPathWithoutBinder(t *testing.T) {
	o := deblurSet(t, 1, 6, 1)
	loss, err := NewStepLoss(param.Method{G: graphOnly{param.Full{}}}, o, 1/o.L)
	if err != nil {
		t.Fatal(err)
	}
	defer loss.Close()
	if loss.fast != nil || loss.machine == nil {
		t.Fatal("a parametrization without a Bind method got the fast path")
	}
}

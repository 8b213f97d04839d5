package steploss

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/internal/testsupport"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
)

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

// TestFastStepLossMatchesGraph compares the bound operators (direct kernels)
// with the graph evaluator (direct objective, parametrization graph) and
// with the whole loss as one gorgonia graph: value, gradient and x⁺.
func TestFastStepLossMatchesGraph(t *testing.T) {
	o := testproblems.DeblurSet(t, 3, 16, 2)
	x, g, p := testproblems.StepData(t, o, 1)
	for _, name := range []string{"ps", "pp", "pc", "pc5", "pc3-reflect", "pf", "m-ps", "m-pp", "m-pc", "m-pf", "pc:ps", "pp:pc", "npoly3", "m-npoly2"} {
		t.Run(name, func(t *testing.T) {
			fast := newLoss(t, testproblems.Method(t, name), o, stepPaths{noReduce: true, noAffine: true}, "bound")
			slow := newLoss(t, testproblems.Method(t, name), o, stepPaths{graphOnly: true}, "graph")
			full := newLoss(t, testproblems.Method(t, name), o, stepPaths{fullGraph: true}, "full-graph")
			u := perturbed(fast.Reference(), 0.05, 9)
			compareLosses(t, x, g, p, u, 1e-12, fast, slow, full)
		})
	}
}

// newLoss builds the step loss of m on o on paths and checks that it chose
// the evaluator named kind.
func newLoss(t *testing.T, m models.Method, o *problem.Objective, paths stepPaths, kind string) *StepLoss {
	t.Helper()
	s, err := newStepLoss(m, o, 1/o.L, paths)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if got := s.ev.kind(); got != kind {
		t.Fatalf("%s on paths %+v: evaluator %s, want %s", m.Name(), paths, got, kind)
	}
	return s
}

// compareLosses sets every loss to the step (x, g, p) with λ = 0.3, μ = 0.7
// and checks that the others agree with ls[0] at u: the value and the
// gradient (relative to the largest entry) within tol, the value without
// gradient, and x⁺.
func compareLosses(t *testing.T, x, g, p, u []float64, tol float64, ls ...*StepLoss) {
	t.Helper()
	for _, s := range ls {
		if err := s.SetStep(x, g, p, 0.3, 0.7); err != nil {
			t.Fatal(err)
		}
	}
	ref := ls[0]
	g0 := make([]float64, ref.Dim())
	v0, err := ref.Eval(u, g0)
	if err != nil {
		t.Fatal(err)
	}
	u1 := append([]float64(nil), u...)
	u1[0] += 1e-3
	w0, err := ref.Eval(u1, nil)
	if err != nil {
		t.Fatal(err)
	}
	n0 := make([]float64, len(x))
	if err := ref.Next(n0, u1); err != nil {
		t.Fatal(err)
	}
	for _, s := range ls[1:] {
		kinds := ref.ev.kind() + " against " + s.ev.kind()
		gs := make([]float64, s.Dim())
		vs, err := s.Eval(u, gs)
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(vs-v0) / math.Abs(v0); !(d <= tol) {
			t.Errorf("%s: value %.17g, %.17g (rel %.2g)", kinds, v0, vs, d)
		}
		diff := make([]float64, len(g0))
		for i := range g0 {
			diff[i] = gs[i] - g0[i]
		}
		if d := testsupport.MaxAbs(diff) / testsupport.MaxAbs(g0); !(d <= tol) {
			t.Errorf("%s: gradients differ by %.3g relative to max |∇| %.3g", kinds, d, testsupport.MaxAbs(g0))
		}
		ws, err := s.Eval(u1, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(ws-w0) / math.Abs(w0); !(d <= tol) {
			t.Errorf("%s: value alone %.17g, %.17g (rel %.2g)", kinds, w0, ws, d)
		}
		ns := make([]float64, len(x))
		if err := s.Next(ns, u1); err != nil {
			t.Fatal(err)
		}
		for i := range ns {
			if math.Abs(ns[i]-n0[i]) > tol*testsupport.MaxAbs(n0) {
				t.Fatalf("%s: x⁺[%d] %.17g, %.17g", kinds, i, n0[i], ns[i])
			}
		}
	}
}

// checkFiniteDifferences checks ⟨∇g(u), d⟩ against central differences of
// the loss (λ = 0.2, μ = 0.5) along random directions d.
func checkFiniteDifferences(t *testing.T, loss *StepLoss, x, g, p []float64, scale float64) {
	t.Helper()
	if err := loss.SetStep(x, g, p, 0.2, 0.5); err != nil {
		t.Fatal(err)
	}
	u := perturbed(loss.Reference(), scale, 3)
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
			t.Errorf("%s (%s) direction %d: ⟨∇g, d⟩ = %.10g, central difference %.10g", loss.method.Name(), loss.ev.kind(), trial, an, fd)
		}
	}
}

// TestFastStepLossFiniteDifferences checks the gradients of the default
// evaluators and of the graph evaluator against central differences.
func TestFastStepLossFiniteDifferences(t *testing.T) {
	o := testproblems.DeblurSet(t, 2, 16, 4)
	x, g, p := testproblems.StepData(t, o, 2)
	for name, kind := range map[string]string{"m-ps": "affine", "m-pp": "bound", "m-pc": "bound", "pc5-reflect": "bound", "m-pf": "reduced", "m-npoly3": "bound"} {
		checkFiniteDifferences(t, newLoss(t, testproblems.Method(t, name), o, stepPaths{}, kind), x, g, p, 0.02)
		checkFiniteDifferences(t, newLoss(t, testproblems.Method(t, name), o, stepPaths{graphOnly: true}, "graph"), x, g, p, 0.02)
	}
}

// TestGraphPathWithoutBinder checks that a parametrization without a fast
// path gets the graph evaluator.
func TestGraphPathWithoutBinder(t *testing.T) {
	o := testproblems.DeblurSet(t, 1, 6, 1)
	newLoss(t, models.Method{G: testproblems.GraphOnly{P: models.Full{}}}, o, stepPaths{}, "graph")
}

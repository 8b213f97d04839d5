package graph

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/kernels"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func randVec(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	return v
}

func relDiff(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(math.Max(math.Abs(a), math.Abs(b)), 1e-300)
}

func TestBilinearMapAdjoints(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	n, h, w := 3, 6, 5
	sb := tensor.Shape{n, h, w}
	cases := []struct {
		m  BilinearMap
		sa tensor.Shape
	}{
		{Scale{}, tensor.Shape{1}},
		{Pointwise{}, tensor.Shape{h, w}},
		{Matrix{}, tensor.Shape{h * w, h * w}},
		{SmallConv{kernels.Reflect}, tensor.Shape{3, 3}},
		{SmallConv{kernels.Zero}, tensor.Shape{5, 5}},
		{NewFFTConv(), tensor.Shape{h, w}},
	}
	for _, c := range cases {
		sc, err := c.m.OutShape(c.sa, sb)
		if err != nil {
			t.Fatalf("%s: %v", c.m, err)
		}
		a, b, y := randVec(r, c.sa.TotalSize()), randVec(r, sb.TotalSize()), randVec(r, sc.TotalSize())
		out, da, db := make([]float64, sc.TotalSize()), make([]float64, len(a)), make([]float64, len(b))
		if err := c.m.Apply(out, a, b, c.sa, sb); err != nil {
			t.Fatal(err)
		}
		if err := c.m.AdjointA(da, y, b, c.sa, sb); err != nil {
			t.Fatal(err)
		}
		if err := c.m.AdjointB(db, a, y, c.sa, sb); err != nil {
			t.Fatal(err)
		}
		lhs := kernels.Dot(out, y)
		if d := relDiff(lhs, kernels.Dot(a, da)); d > 1e-12 {
			t.Errorf("%s: adjoint in a off by %g", c.m, d)
		}
		if d := relDiff(lhs, kernels.Dot(b, db)); d > 1e-12 {
			t.Errorf("%s: adjoint in b off by %g", c.m, d)
		}
	}
}

// buildLoss builds L(k, x) = ½‖B(k, x) − t‖² + α Σ huber(D B(k, x)) and its gradient.
func buildLoss(t *testing.T, m BilinearMap, ks, xs tensor.Shape, target []float64) (*G.ExprGraph, *G.Node, *G.Node, *G.Node) {
	g := G.NewGraph()
	k := Input(g, "k", ks...)
	x := Input(g, "x", xs...)
	tg := Input(g, "t", xs...)
	if err := Set(tg, target); err != nil {
		t.Fatal(err)
	}
	y, err := Bilinear(m, k, x)
	if err != nil {
		t.Fatal(err)
	}
	res := G.Must(G.Sub(y, tg))
	data := G.Must(G.Mul(G.Must(G.Sum(G.Must(G.Square(res)))), G.NewConstant(0.5)))
	d, err := Linear(Diff{}, y)
	if err != nil {
		t.Fatal(err)
	}
	hv, err := PotentialValue(HuberTV{Eps: 0.05}, d)
	if err != nil {
		t.Fatal(err)
	}
	loss := G.Must(G.Add(data, G.Must(G.Mul(hv, G.NewConstant(0.3)))))
	if _, err := G.Grad(loss, k, x); err != nil {
		t.Fatal(err)
	}
	return g, k, x, loss
}

func TestGraphGradientsAgainstFiniteDifferences(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	n, h, w := 2, 6, 7
	xs := tensor.Shape{n, h, w}
	for _, c := range []struct {
		m  BilinearMap
		ks tensor.Shape
	}{
		{SmallConv{kernels.Circular}, tensor.Shape{3, 3}},
		{NewFFTConv(), tensor.Shape{h, w}},
		{Pointwise{}, tensor.Shape{h, w}},
	} {
		target := randVec(r, xs.TotalSize())
		g, k, x, loss := buildLoss(t, c.m, c.ks, xs, target)
		vm := NewMachine(g, k, x)
		kv, xv := randVec(r, c.ks.TotalSize()), randVec(r, xs.TotalSize())
		eval := func(kv, xv []float64) float64 {
			_ = Set(k, kv)
			_ = Set(x, xv)
			if err := vm.Run(); err != nil {
				t.Fatal(err)
			}
			v, _ := Scalar(loss)
			return v
		}
		eval(kv, xv)
		gk, _ := Grad(k)
		gx, _ := Grad(x)
		gk, gx = append([]float64(nil), gk...), append([]float64(nil), gx...)
		dk, dx := randVec(r, len(kv)), randVec(r, len(xv))
		const step = 1e-6
		kp, km, xp, xm := make([]float64, len(kv)), make([]float64, len(kv)), make([]float64, len(xv)), make([]float64, len(xv))
		for i := range kv {
			kp[i], km[i] = kv[i]+step*dk[i], kv[i]-step*dk[i]
		}
		for i := range xv {
			xp[i], xm[i] = xv[i]+step*dx[i], xv[i]-step*dx[i]
		}
		fd := (eval(kp, xp) - eval(km, xm)) / (2 * step)
		an := kernels.Dot(gk, dk) + kernels.Dot(gx, dx)
		if d := relDiff(fd, an); d > 1e-6 {
			t.Errorf("%s: directional derivative %g, finite differences %g (rel %g)", c.m, an, fd, d)
		}
		vm.Close()
	}
}

// TestSecondOrderThroughGradient writes ∇_x of L(x) = ½‖k⋆x − t‖² + α Σ huber(Dx)
// as forward operations, then differentiates ½‖∇L(x)‖² with respect to the
// kernel k and the image x, and compares with finite differences.
func TestSecondOrderThroughGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	n, h, w := 2, 5, 6
	xs := tensor.Shape{n, h, w}
	g := G.NewGraph()
	k := Input(g, "k", 3, 3)
	x := Input(g, "x", xs...)
	tg := Input(g, "t", xs...)
	_ = Set(tg, randVec(r, xs.TotalSize()))
	conv := SmallConv{kernels.Reflect}
	hub := HuberTV{Eps: 0.2}
	ax := G.Must(Bilinear(conv, k, x))
	res := G.Must(G.Sub(ax, tg))
	atr := G.Must(BilinearAdjointB(conv, k, res, xs))
	dx := G.Must(Linear(Diff{}, x))
	psi := G.Must(PotentialDerivative(hub, dx))
	reg := G.Must(LinearAdjoint(Diff{}, psi, xs))
	grad := G.Must(G.Add(atr, G.Must(G.Mul(reg, G.NewConstant(0.7)))))
	obj := G.Must(G.Mul(G.Must(G.Sum(G.Must(G.Square(grad)))), G.NewConstant(0.5)))
	if _, err := G.Grad(obj, k, x); err != nil {
		t.Fatal(err)
	}
	vm := NewMachine(g, k, x)
	defer vm.Close()
	kv, xv := randVec(r, 9), randVec(r, xs.TotalSize())
	for i := range xv {
		xv[i] *= 0.1
	}
	eval := func(kv, xv []float64) float64 {
		_ = Set(k, kv)
		_ = Set(x, xv)
		if err := vm.Run(); err != nil {
			t.Fatal(err)
		}
		v, _ := Scalar(obj)
		return v
	}
	eval(kv, xv)
	gk, _ := Grad(k)
	gx, _ := Grad(x)
	an0 := append([]float64(nil), gk...)
	an1 := append([]float64(nil), gx...)
	dk, dxv := randVec(r, 9), randVec(r, len(xv))
	const step = 1e-6
	kp, km, xp, xm := make([]float64, 9), make([]float64, 9), make([]float64, len(xv)), make([]float64, len(xv))
	for i := range kv {
		kp[i], km[i] = kv[i]+step*dk[i], kv[i]-step*dk[i]
	}
	for i := range xv {
		xp[i], xm[i] = xv[i]+step*dxv[i], xv[i]-step*dxv[i]
	}
	fd := (eval(kp, xp) - eval(km, xm)) / (2 * step)
	an := kernels.Dot(an0, dk) + kernels.Dot(an1, dxv)
	if d := relDiff(fd, an); d > 1e-6 {
		t.Errorf("second-order directional derivative %g, finite differences %g (rel %g)", an, fd, d)
	}
}

// GradMap of q(x) = ½‖Ax‖² is x ↦ AᵀAx, on every call of one machine.
func TestGradMapIsTheNormalOperator(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 2))
	m, n := 7, 5
	a := randVec(r, m*n)
	g := G.NewGraph()
	x := Input(g, "x", n)
	an := G.NewConstant(tensor.New(tensor.WithShape(m, n), tensor.WithBacking(append([]float64(nil), a...))))
	q := G.Must(G.Mul(G.Must(G.Sum(G.Must(G.Square(G.Must(G.Mul(an, x)))))), G.NewConstant(0.5)))
	if _, err := G.Grad(q, x); err != nil {
		t.Fatal(err)
	}
	mach := NewMachine(g, x)
	defer mach.Close()
	apply := GradMap(mach, x)
	for call := range 3 {
		v := randVec(r, n)
		want := make([]float64, n)
		for i := range m {
			var ax float64
			for j := range n {
				ax += a[i*n+j] * v[j]
			}
			for j := range n {
				want[j] += a[i*n+j] * ax
			}
		}
		if err := apply(v); err != nil {
			t.Fatal(err)
		}
		for j := range n {
			if relDiff(v[j], want[j]) > 1e-12 {
				t.Fatalf("call %d: (AᵀAv)[%d] = %g, want %g", call, j, v[j], want[j])
			}
		}
	}
}

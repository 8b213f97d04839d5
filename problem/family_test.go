package problem

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/kernels"
	"gorgonia.org/tensor"
)

// familyObjectives instantiates deblur on the same n random images with the
// options given, for each options value.
func familyObjectives(t *testing.T, n, h int, opts ...Options) []*Objective {
	t.Helper()
	return objectivesOf(t, "deblur", n, h, opts...)
}

// objectivesOf instantiates the named problem on the same n random h×h
// images (seeded the same, noise offset 5) with each options value.
func objectivesOf(t *testing.T, name string, n, h int, opts ...Options) []*Objective {
	t.Helper()
	truth := randVec(rand.New(rand.NewPCG(31, 32)), n*h*h, 1)
	var out []*Objective
	for _, opt := range opts {
		opt.H = h
		p, err := Lookup(name, opt)
		if err != nil {
			t.Fatal(err)
		}
		o, err := p.Instantiate(truth, n, 5)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
	return out
}

// TestFamilyOfOneOperatorIsTheProblem: σ ∈ [1.5, 1.5] gives bitwise the
// default problem (data, values, gradients).
func TestFamilyOfOneOperatorIsTheProblem(t *testing.T) {
	os := familyObjectives(t, 3, 16, Options{}, Options{BlurSigmaRange: [2]float64{1.5, 1.5}})
	a, b := os[0], os[1]
	if !slices.Equal(a.Y, b.Y) {
		t.Fatal("the data differ")
	}
	x := randVec(rand.New(rand.NewPCG(33, 34)), len(a.X0), 1)
	va, vb := make([]float64, a.N), make([]float64, b.N)
	ga, gb := make([]float64, len(x)), make([]float64, len(x))
	if err := a.Eval(va, ga, x, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Eval(vb, gb, x, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(va, vb) || !slices.Equal(ga, gb) {
		t.Error("values or gradients differ")
	}
}

// TestBlurFamily: each function gets its own blur (PerFunction), the data
// are each function's blur of its image plus the default problem's noise
// draw, bitwise; the operator is adjoint to its transpose; Subset keeps the
// functions' own operators; an empty or reversed range is refused.
func TestBlurFamily(t *testing.T) {
	const n, h = 4, 16
	os := familyObjectives(t, n, h, Options{}, Options{BlurSigmaRange: [2]float64{1, 2}})
	base, fam := os[0], os[1]
	pf, ok := fam.A.(*PerFunction)
	if !ok || len(pf.Ops) != n || !strings.Contains(pf.String(), "σ∈[1:2]") {
		t.Fatalf("the family's operator is %v", fam.A)
	}
	if pf.Ops[0].String() == pf.Ops[1].String() {
		t.Errorf("functions 0 and 1 drew the same blur %s", pf.Ops[0])
	}
	// y_k − A_k x_k is the default problem's noise draw.
	in := tensor.Shape{n, h, h}
	ax, ab := make([]float64, len(fam.Y)), make([]float64, len(base.Y))
	if err := fam.A.Apply(ax, fam.Truth, in); err != nil {
		t.Fatal(err)
	}
	if err := base.A.Apply(ab, base.Truth, in); err != nil {
		t.Fatal(err)
	}
	noise := rand.New(rand.NewPCG(1, 0x6e6f697365+5)) // Instantiate's: seed 1, offset 5
	for i := range ax {
		e := 0.01 * noise.NormFloat64()
		if fam.Y[i] != ax[i]+e || base.Y[i] != ab[i]+e {
			t.Fatalf("pixel %d: the data are not A_k x_k plus the default problem's noise draw", i)
		}
	}
	// Image k through the family equals image k through its own member.
	one := tensor.Shape{1, h, h}
	hw := h * h
	for k, op := range pf.Ops {
		want := make([]float64, hw)
		if err := op.Apply(want, fam.Truth[k*hw:(k+1)*hw], one); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(want, ax[k*hw:(k+1)*hw]) {
			t.Errorf("function %d: the family's A differs from its own blur", k)
		}
	}
	// Adjointness.
	r := rand.New(rand.NewPCG(35, 36))
	x, y := randVec(r, n*hw, 1), randVec(r, len(fam.Y), 1)
	atY := make([]float64, n*hw)
	if err := fam.A.Apply(ax, x, in); err != nil {
		t.Fatal(err)
	}
	if err := fam.A.Adjoint(atY, y, in); err != nil {
		t.Fatal(err)
	}
	if d := relDiff(kernels.Dot(ax, y), kernels.Dot(x, atY)); d > 1e-13 {
		t.Errorf("⟨Ax, y⟩ and ⟨x, Aᵀy⟩ differ by %.2g", d)
	}
	// Subset keeps each function's operator.
	sub, err := fam.Subset([]int{2, 0})
	if err != nil {
		t.Fatal(err)
	}
	xs := append(append([]float64(nil), x[2*hw:3*hw]...), x[:hw]...)
	full, part := make([]float64, n), make([]float64, 2)
	if err := fam.Eval(full, nil, x, nil); err != nil {
		t.Fatal(err)
	}
	if err := sub.Eval(part, nil, xs, nil); err != nil {
		t.Fatal(err)
	}
	if part[0] != full[2] || part[1] != full[0] {
		t.Errorf("subset values %v, want %v and %v", part, full[2], full[0])
	}
	for _, bad := range []Options{{BlurSigmaRange: [2]float64{2, 1}}, {BlurSigmaRange: [2]float64{0, 1}}, {BlurSigmaRange: [2]float64{1, 2}, BlurSigma: 1.5}} {
		if _, err := Lookup("deblur", bad); err == nil {
			t.Errorf("%+v was accepted", bad)
		}
	}
	if _, err := Lookup("ct-small", Options{BlurSigmaRange: [2]float64{1, 2}}); err == nil {
		t.Error("ct-small accepted a blur family")
	}
}

// TestNoiseFamily: NoiseRange draws each function's noise level; a range of
// one level is the problem bitwise; the data are A x_k plus the drawn level
// times the problem's noise draw, bitwise; bad ranges are refused.
func TestNoiseFamily(t *testing.T) {
	const n, h = 3, 12
	os := familyObjectives(t, n, h, Options{}, Options{NoiseRange: [2]float64{0.01, 0.01}}, Options{NoiseRange: [2]float64{0.005, 0.02}})
	if !slices.Equal(os[0].Y, os[1].Y) {
		t.Error("a range of one noise level differs from the problem")
	}
	fam := os[2]
	ax := make([]float64, len(fam.Y))
	if err := fam.A.Apply(ax, fam.Truth, tensor.Shape{n, h, h}); err != nil {
		t.Fatal(err)
	}
	levels := rand.New(rand.NewPCG(1, 0x6c6576656c+5))
	noise := rand.New(rand.NewPCG(1, 0x6e6f697365+5))
	m := len(fam.Y) / n
	var drawn []float64
	for k := range n {
		s := 0.005 + 0.015*levels.Float64()
		drawn = append(drawn, s)
		for i := k * m; i < (k+1)*m; i++ {
			if fam.Y[i] != ax[i]+s*noise.NormFloat64() {
				t.Fatalf("function %d, value %d: not A x + σ_k ξ with σ_k = %g", k, i, s)
			}
		}
	}
	if drawn[0] == drawn[1] {
		t.Errorf("functions 0 and 1 drew the same noise level %g", drawn[0])
	}
	for _, bad := range []Options{{NoiseRange: [2]float64{0.02, 0.01}}, {NoiseRange: [2]float64{-1, 0.01}}, {NoiseRange: [2]float64{0.01, 0.02}, Noise: 0.01}} {
		if _, err := Lookup("deblur", bad); err == nil {
			t.Errorf("%+v was accepted", bad)
		}
	}
}

// TestBlockIsTheSubsetOfItsRange: Block(lo, hi) holds the data of functions
// lo…hi−1 in order (its Y and X0 those of Subset of the range), and an
// empty or out-of-range block is refused.
func TestBlockIsTheSubsetOfItsRange(t *testing.T) {
	o := familyObjectives(t, 5, 8, Options{})[0]
	b, err := o.Block(1, 4)
	if err != nil {
		t.Fatal(err)
	}
	m, hw := o.DataLen(), o.ImageLen()
	if b.N != 3 || !slices.Equal(b.Y, o.Y[m:4*m]) || !slices.Equal(b.X0, o.X0[hw:4*hw]) {
		t.Errorf("block [1, 4): N %d, its data not functions 1–3's", b.N)
	}
	for _, r := range [][2]int{{2, 2}, {-1, 2}, {3, 6}} {
		if _, err := o.Block(r[0], r[1]); err == nil {
			t.Errorf("block %v of 5 functions accepted", r)
		}
	}
}

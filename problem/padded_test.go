package problem

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gorgonia.org/tensor"
)

// ctSmallObjectives instantiates ct-small (40×40) on the same n random
// images with each options value.
func ctSmallObjectives(t *testing.T, n int, opts ...Options) []*Objective {
	t.Helper()
	return objectivesOf(t, "ct-small", n, 40, opts...)
}

// TestAnglesOfTheProblemAreTheProblem: ct-small with --angles 90 (its own)
// is bitwise ct-small.
func TestAnglesOfTheProblemAreTheProblem(t *testing.T) {
	os := ctSmallObjectives(t, 2, Options{}, Options{Angles: []int{90}})
	if !slices.Equal(os[0].Y, os[1].Y) || os[0].A.String() != os[1].A.String() {
		t.Fatalf("--angles 90 gave the operator %s and other data than ct-small's %s", os[1].A, os[0].A)
	}
}

// TestAngleFamily: each function of a family of scans with 30 and 90 angles
// is, in value and gradient, the function of its own scan (a native 30- or
// 90-angle ray transform) with the measured rows of its data; the unmeasured
// rows hold exactly zero, the measured ones noise.
func TestAngleFamily(t *testing.T) {
	const n = 6
	os := ctSmallObjectives(t, n, Options{Angles: []int{90, 30}}, Options{Angles: []int{30}}, Options{Angles: []int{90}})
	fam, single := os[0], map[int]*Objective{30: os[1], 90: os[2]}
	pf, ok := fam.A.(*PerFunction)
	if !ok || !strings.Contains(pf.String(), "angles∈{30,90}") {
		t.Fatalf("the family's operator is %v", fam.A)
	}
	x := randVec(rand.New(rand.NewPCG(43, 44)), len(fam.X0), 1)
	vals, grad := make([]float64, n), make([]float64, len(x))
	if err := fam.Eval(vals, grad, x, nil); err != nil {
		t.Fatal(err)
	}
	m, hw, drew := fam.DataLen(), 40*40, map[int]bool{}
	for k := range n {
		angles := 90
		if p, ok := pf.Ops[k].(*PaddedRows); ok {
			angles = p.rows
		}
		drew[angles] = true
		one, err := single[angles].Subset([]int{k})
		if err != nil {
			t.Fatal(err)
		}
		own := one.DataLen()
		yk := fam.Y[k*m : (k+1)*m]
		if floats.Norm(yk[own:], 2) != 0 || floats.Norm(yk[:own], 2) == 0 {
			t.Errorf("function %d (%d angles): unmeasured rows ‖·‖ = %g, measured %g", k, angles, floats.Norm(yk[own:], 2), floats.Norm(yk[:own], 2))
		}
		one.Y = slices.Clone(yk[:own]) // the family's data of function k, on its own scan
		v, g := make([]float64, 1), make([]float64, hw)
		if err := one.Eval(v, g, x[k*hw:(k+1)*hw], nil); err != nil {
			t.Fatal(err)
		}
		dg := floats.Distance(g, grad[k*hw:(k+1)*hw], math.Inf(1))
		if math.Abs(v[0]-vals[k]) > 1e-12*math.Abs(v[0]) || dg > 1e-12*floats.Norm(g, math.Inf(1)) {
			t.Errorf("function %d (%d angles): f %.17g against its own scan's %.17g, ‖Δ∇f‖∞ = %g", k, angles, vals[k], v[0], dg)
		}
	}
	if !drew[30] || !drew[90] {
		t.Errorf("%d functions drew only %v angles", n, drew)
	}
}

// TestPaddedRowsAdjoint: ⟨A x, y⟩ = ⟨x, Aᵀ y⟩ with y random in every row,
// the unmeasured ones included (A x is zero there and Aᵀ must ignore them).
func TestPaddedRowsAdjoint(t *testing.T) {
	_, a, _, err := normalisedRayTransform(24, 20)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPaddedRows(a, 24, 24, 45)
	if err != nil {
		t.Fatal(err)
	}
	in := tensor.Shape{2, 24, 24}
	r := rand.New(rand.NewPCG(45, 46))
	x, y := randVec(r, 2*24*24, 1), randVec(r, 2*45*p.cols, 1)
	ax, aty := make([]float64, len(y)), make([]float64, len(x))
	if err := p.Apply(ax, x, in); err != nil {
		t.Fatal(err)
	}
	if err := p.Adjoint(aty, y, in); err != nil {
		t.Fatal(err)
	}
	l, rr := floats.Dot(ax, y), floats.Dot(x, aty)
	if math.Abs(l-rr) > 1e-12*math.Abs(l) {
		t.Errorf("⟨Ax, y⟩ = %.17g, ⟨x, Aᵀy⟩ = %.17g", l, rr)
	}
	if _, err := NewPaddedRows(a, 24, 24, 19); err == nil {
		t.Error("padding 20 angles' data to 19 rows was accepted")
	}
}

// TestAnglesRefused: duplicates, zero angles and problems without angles.
func TestAnglesRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		opt  Options
		want string
	}{
		{"ct-small", Options{Angles: []int{30, 30}}, "twice"},
		{"ct-small", Options{Angles: []int{0}}, "[1, 4096]"},
		{"deblur", Options{Angles: []int{60}}, "only the CT problems"},
	} {
		if _, err := Lookup(c.name, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s with %v: error %v, want one saying %q", c.name, c.opt.Angles, err, c.want)
		}
	}
}

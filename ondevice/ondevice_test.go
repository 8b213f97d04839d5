package ondevice

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
	"gorgonia.org/tensor"
)

func deblur(t *testing.T, n, size int, boundary string, alpha float64) *problem.Objective {
	t.Helper()
	return testproblems.Deblur(t, n, size, boundary, alpha, 2)
}

// residual returns k ⋆ x − y of o's functions.
func residual(t *testing.T, o *problem.Objective, x []float64) []float64 {
	t.Helper()
	r := make([]float64, len(o.Y))
	if err := o.A.Apply(r, x, tensor.Shape{o.N, o.H, o.W}); err != nil {
		t.Fatal(err)
	}
	for i, y := range o.Y {
		r[i] -= y
	}
	return r
}

func upload(t *testing.T, v []float64) gpu.Buffer {
	t.Helper()
	b, err := gpu.CPU().Alloc(len(v))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gpu.CPU().Free(b) })
	if err := gpu.CPU().CopyIn(b, v); err != nil {
		t.Fatal(err)
	}
	return b
}

func read(b gpu.Buffer) []float64 { return append([]float64(nil), b.(*gpu.HostBuffer).Values()...) }

func randn(r *rand.Rand, n int, s float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = s * r.NormFloat64()
	}
	return v
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func relDiff(a, b []float64) float64 {
	var d, n float64
	for i := range a {
		d += (a[i] - b[i]) * (a[i] - b[i])
		n += b[i] * b[i]
	}
	return math.Sqrt(d / n)
}

// checkParts checks the objective's parts at x: the regularizer's gradient
// (RegGrad) plus the data term's Aᵀ(Ax − y) is ∇F (wantGrad), and
// HessVecData + HessVecReg applied to v is ∇²F v (hessVec), to 1e-12.
func checkParts(t *testing.T, what string, ob *Objective, o *problem.Objective, x, v, hessVec, wantGrad []float64) {
	t.Helper()
	xb, vb := upload(t, x), upload(t, v)
	reg, hd, hr := upload(t, make([]float64, len(x))), upload(t, make([]float64, len(x))), upload(t, make([]float64, len(x)))
	if err := ob.RegGrad(reg, xb); err != nil {
		t.Fatal(err)
	}
	data := make([]float64, len(x))
	if err := o.A.Adjoint(data, residual(t, o, x), tensor.Shape{o.N, o.H, o.W}); err != nil {
		t.Fatal(err)
	}
	sum := read(reg)
	for i := range sum {
		sum[i] += data[i]
	}
	if d := relDiff(sum, wantGrad); d > 1e-12 {
		t.Errorf("%s: data gradient + RegGrad differs from ∇F by %.2g", what, d)
	}
	if err := ob.HessVecData(hd, vb); err != nil {
		t.Fatal(err)
	}
	if err := ob.HessVecReg(hr, xb, vb); err != nil {
		t.Fatal(err)
	}
	parts := read(hd)
	for i, w := range read(hr) {
		parts[i] += w
	}
	if d := relDiff(parts, hessVec); d > 1e-12 {
		t.Errorf("%s: HessVecData + HessVecReg differs from HessVec by %.2g", what, d)
	}
}

// gradDiff returns (∇F(x + h·v) − ∇F(x − h·v))/(2h) by o's own Eval: the
// central difference that the Hessian-vector products are checked against.
func gradDiff(t *testing.T, o *problem.Objective, x, v []float64, h float64) []float64 {
	t.Helper()
	xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
	for i := range x {
		xp[i] += h * v[i]
		xm[i] -= h * v[i]
	}
	gp, gm := make([]float64, len(x)), make([]float64, len(x))
	if err := o.Eval(nil, gp, xp, nil); err != nil {
		t.Fatal(err)
	}
	if err := o.Eval(nil, gm, xm, nil); err != nil {
		t.Fatal(err)
	}
	fd := make([]float64, len(x))
	for i := range fd {
		fd[i] = (gp[i] - gm[i]) / (2 * h)
	}
	return fd
}

// TestObjective checks F and ∇F against problem.Objective.Eval for every
// blur boundary, with and without the regularizer, and the Hessian-vector
// product against central differences of ∇F.
func TestObjective(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, boundary := range []string{"zero", "reflect", "circular"} {
		for _, alpha := range []float64{-1, 0} {
			o := deblur(t, 3, 14, boundary, alpha)
			ob, err := NewObjective(arena(t, gpu.CPU()), o, o.N)
			if err != nil {
				t.Fatal(err)
			}
			if err := ob.SetData(o.Y); err != nil {
				t.Fatal(err)
			}
			x := append([]float64(nil), o.X0...)
			for i := range x {
				x[i] += 0.05 * r.NormFloat64()
			}
			vals, want := make([]float64, o.N), make([]float64, len(x))
			if err := o.Eval(vals, want, x, nil); err != nil {
				t.Fatal(err)
			}
			xb, gb := upload(t, x), upload(t, make([]float64, len(x)))
			f, err := ob.ValueGrad(xb, gb)
			if err != nil {
				t.Fatal(err)
			}
			var fw float64
			for _, v := range vals {
				fw += v
			}
			if math.Abs(f-fw) > 1e-12*fw || relDiff(read(gb), want) > 1e-12 {
				t.Errorf("%s, α=%g: F %.17g vs %.17g, ∇F %.2g relative", boundary, o.Alpha, f, fw, relDiff(read(gb), want))
			}
			v := randn(r, len(x), 1)
			hb := upload(t, make([]float64, len(x)))
			if err := ob.HessVec(hb, xb, upload(t, v)); err != nil {
				t.Fatal(err)
			}
			fd := gradDiff(t, o, x, v, 1e-6)
			if d := relDiff(read(hb), fd); d > 1e-5 {
				t.Errorf("%s, α=%g: Hessian-vector product differs from central differences by %.2g", boundary, o.Alpha, d)
			}
			checkParts(t, fmt.Sprintf("%s, α=%g", boundary, o.Alpha), ob, o, x, v, read(hb), want)
		}
	}
}

// TestTerms checks every kind of term: Apply against the parametrization's
// bound operator (models.Binder), Transpose by ⟨b, G v⟩ = ⟨Gᵀb, v⟩, and
// AddParamGrad against the bound operator's adjoint.
func TestTerms(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n, h, w = 2, 10, 12
	s := gpu.Batch{N: n, H: h, W: w}
	for _, name := range []string{"ps", "pp", "pc3", "pc5-reflect", "pc3-zero", "pc", "pf"} {
		m, err := models.ParseMethod(name)
		if err != nil {
			t.Fatal(err)
		}
		term, err := NewDeviceTerm(arena(t, gpu.CPU()), m.G, s)
		if err != nil {
			t.Fatal(err)
		}
		theta := randn(r, term.ParamLen(), 0.3)
		v, b := randn(r, s.Len(), 1), randn(r, s.Len(), 1)
		bound, err := m.G.(models.Binder).Bind(v, n, h, w)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, s.Len())
		if err := bound.AddApply(want, theta, 0.7); err != nil {
			t.Fatal(err)
		}
		if err := term.SetParams(theta); err != nil {
			t.Fatal(err)
		}
		dst, vb, bb := upload(t, make([]float64, s.Len())), upload(t, v), upload(t, b)
		if err := term.Apply(dst, vb, 0.7); err != nil {
			t.Fatal(err)
		}
		gv := read(dst)
		if d := relDiff(gv, want); d > 1e-13 {
			t.Errorf("%s: Apply differs from the bound operator by %.2g", name, d)
		}
		tb := upload(t, make([]float64, s.Len()))
		if err := term.Transpose(tb, bb); err != nil {
			t.Fatal(err)
		}
		if lhs, rhs := 0.7*dot(read(tb), v), dot(b, gv); math.Abs(lhs-rhs) > 1e-12*(math.Abs(lhs)+math.Abs(rhs)) {
			t.Errorf("%s: ⟨Gᵀb, v⟩ = %.17g, ⟨b, G v⟩ = %.17g", name, lhs, rhs)
		}
		gw, gd := make([]float64, term.ParamLen()), make([]float64, term.ParamLen())
		if err := bound.AddAdjoint(gw, b, 1.5); err != nil {
			t.Fatal(err)
		}
		if err := term.AddParamGrad(gd, vb, bb, 1.5); err != nil {
			t.Fatal(err)
		}
		if d := relDiff(gd, gw); d > 1e-13 {
			t.Errorf("%s: parameter gradient differs from the bound adjoint by %.2g", name, d)
		}
	}
}

// arena returns an arena over ops that the test closes when it ends.
func arena(t testing.TB, ops gpu.Ops) *gpu.Arena {
	a := gpu.NewArena(ops)
	t.Cleanup(a.Close)
	return a
}

// TestArenaHoldsTheRun builds an objective and a term on one arena: its
// meter is their buffers' bytes (those the objective and term counted
// themselves before they allocated on an arena), and its Close returns the
// device's counters to where they were.
func TestArenaHoldsTheRun(t *testing.T) {
	for _, alpha := range []float64{-1, 0} {
		o := deblur(t, 3, 14, "zero", alpha)
		form, _ := o.DeviceForm()
		d := gpu.CPU()
		base := d.Stats().InUse
		mem := gpu.NewArena(d)
		if _, err := NewObjective(mem, o, o.N); err != nil {
			t.Fatal(err)
		}
		m, err := models.ParseMethod("pp")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := NewDeviceTerm(mem, m.G, gpu.Batch{N: o.N, H: o.H, W: o.W}); err != nil {
			t.Fatal(err)
		}
		img := o.N * o.ImageLen()
		want := 2*o.N*form.DataLen(o.H, o.W) + img + len(form.Kernel) + 2*o.ImageLen() // y, res, tmp, blur; θ and Σ r⊙v
		if form.Alpha != 0 {
			want += 2 * img // the difference field
		}
		if got := mem.Bytes(); got != int64(8*want) || mem.Peak() != got {
			t.Errorf("alpha %g: arena holds %d bytes (peak %d), want %d", alpha, got, mem.Peak(), 8*want)
		}
		if got := d.Stats().InUse - base; got != mem.Bytes() {
			t.Errorf("alpha %g: the device counts %d bytes, the arena %d", alpha, got, mem.Bytes())
		}
		mem.Close()
		if got := d.Stats().InUse; got != base {
			t.Errorf("alpha %g: %d bytes in use after Close, want %d", alpha, got, base)
		}
	}
}

// failingOps is the CPU device with a budget of allocations: the next one
// after the budget fails. It counts the buffers live.
type failingOps struct {
	*gpu.HostDevice
	left, live int
}

func (f *failingOps) Alloc(n int) (gpu.Buffer, error) {
	if f.left == 0 {
		return nil, fmt.Errorf("failingOps: out of allocations")
	}
	f.left--
	b, err := f.HostDevice.Alloc(n)
	if err == nil {
		f.live++
	}
	return b, err
}

func (f *failingOps) Free(b gpu.Buffer) {
	f.live--
	f.HostDevice.Free(b)
}

// TestNewIterationFailsCleanly checks that NewIteration, failing at each
// of its allocations in turn, returns an error (no panic) and frees what it
// had allocated.
func TestNewIterationFailsCleanly(t *testing.T) {
	o := deblur(t, 2, 8, "circular", 0)
	m, err := models.ParseMethod("m-pc")
	if err != nil {
		t.Fatal(err)
	}
	for budget := 0; ; budget++ {
		ops := &failingOps{HostDevice: gpu.CPU(), left: budget}
		it, err := NewIteration(ops, m, o)
		if err == nil {
			it.Close()
			if budget == 0 {
				t.Fatal("NewIteration allocated nothing")
			}
			break
		}
		if it != nil {
			t.Fatalf("budget %d: an iteration with the error %v", budget, err)
		}
		if ops.live != 0 {
			t.Errorf("budget %d: %d buffers left allocated after %v", budget, ops.live, err)
		}
	}
}

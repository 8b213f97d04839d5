//go:build l2ocuda

package cuda

import (
	"math"
	"testing"

	"github.com/greedyl2o/greedyl2o/baselines/banert"
	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/gpu/gputest"
	"github.com/greedyl2o/greedyl2o/internal/optest"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/mconv"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/ondevice"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/steploss"
	"github.com/greedyl2o/greedyl2o/tomo"
	"github.com/greedyl2o/greedyl2o/wcrr"
)

// TestOpsIdentities runs gputest.CheckOps on the CUDA device: adjoint pairs,
// the cuFFT round trip and the spectral convolution against direct
// arithmetic, in float32 (tolerance 1e-5 relative; 1e-4 at 96×96).
func TestOpsIdentities(t *testing.T) {
	d := device(t)
	for _, c := range []struct {
		s   gpu.Batch
		tol float64
	}{{gpu.Batch{N: 3, H: 12, W: 13}, 1e-5}, {gpu.Batch{N: 2, H: 16, W: 16}, 1e-5}, {gpu.Batch{N: 2, H: paperSize(d, 96, 24), W: paperSize(d, 96, 24)}, 1e-4}} {
		if err := gputest.CheckOps(d, c.s, c.tol); err != nil {
			t.Errorf("batch %+v: %v", c.s, err)
		}
	}
}

// TestStepLossAgreesAtPaperSize compares the greedy step loss on the CUDA
// device (float32) with the CPU's float64 fast evaluators on Problem 1's
// size, N = 25 images of 96×96, for every term kind: value and gradient to
// 1e-4 relative.
func TestStepLossAgreesAtPaperSize(t *testing.T) {
	d := device(t)
	size, n := paperSize(d, 96, 24), paperSize(d, 25, 3)
	o := testproblems.Deblur(t, n, size, "", -1, 3)
	for _, name := range []string{"ps", "pp", "pc5", "pc", "m-ps", "m-pc", "m-pc5-reflect"} {
		m, err := models.ParseMethod(name)
		if err != nil {
			t.Fatal(err)
		}
		checkStepLoss(t, d, name, m, o, o.X0, 0.9)
	}
}

// checkStepLoss compares the greedy step loss of m on o at the step (x, g =
// ∇f(x), p = 0.02·g) on the device with the CPU's float64 path, at the
// reference parameters scaled by scale: value and gradient (2-norm) to 1e-4
// relative. what names the case.
func checkStepLoss(t *testing.T, d *Device, what string, m models.Method, o *problem.Objective, x []float64, scale float64) {
	t.Helper()
	g := make([]float64, len(x))
	if err := o.Eval(nil, g, x, nil); err != nil {
		t.Fatal(err)
	}
	pm := make([]float64, len(g))
	for i := range pm {
		pm[i] = 0.02 * g[i]
	}
	ref, err := steploss.NewStepLoss(m, o, 1/o.L)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	dev, err := steploss.NewStepLossOn(m, o, 1/o.L, d)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	for _, s := range []*steploss.StepLoss{ref, dev} {
		if err := s.SetStep(x, g, pm, 0.01, 0.01); err != nil {
			t.Fatal(err)
		}
	}
	u := ref.Reference()
	for i := range u {
		u[i] *= scale
	}
	gr, gd := make([]float64, len(u)), make([]float64, len(u))
	vr, err := ref.Eval(u, gr)
	if err != nil {
		t.Fatal(err)
	}
	vd, err := dev.Eval(u, gd)
	if err != nil {
		t.Fatal(err)
	}
	var diff, norm float64
	for i := range gr {
		diff += (gd[i] - gr[i]) * (gd[i] - gr[i])
		norm += gr[i] * gr[i]
	}
	rel := math.Sqrt(diff / norm)
	t.Logf("%s: value %.9g (cuda) vs %.9g (cpu float64), gradient %.2g relative", what, vd, vr, rel)
	if math.Abs(vd-vr)/math.Abs(vr) > 1e-4 || !(rel <= 1e-4) {
		t.Errorf("%s: cuda differs from the cpu: value %.3g relative, gradient %.3g relative", what, math.Abs(vd-vr)/math.Abs(vr), rel)
	}
}

// TestNetOpsIdentities runs gputest.CheckNetOps on the CUDA device (the
// per-plane dots and combinations, the leaky mask and plane copies) and
// optest.CheckConv on mconv's convolutions on it (against mconv and their
// adjoints), up to the Banert network's widths at 96×96.
func TestNetOpsIdentities(t *testing.T) {
	d := device(t)
	conv, err := mconv.NewDeviceConv(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s   mconv.Shape
		tol float64
	}{{mconv.Shape{N: 2, Cin: 3, Cout: 4, H: 11, W: 9, K: 3}, 1e-5}, {mconv.Shape{N: paperSize(d, 1, 2), Cin: paperSize(d, 32, 6), Cout: paperSize(d, 32, 5), H: paperSize(d, 96, 16), W: paperSize(d, 96, 16), K: 3}, 1e-4}} {
		if err := gputest.CheckNetOps(d, gputest.NetShape{N: c.s.N, C: c.s.Cin, H: c.s.H, W: c.s.W}, c.tol); err != nil {
			t.Errorf("shape %+v: %v", c.s, err)
		}
		if err := optest.CheckConv(d, conv, c.s, c.tol); err != nil {
			t.Errorf("shape %+v: %v", c.s, err)
		}
	}
}

// TestBanertLossAgreesAtPaperSize compares Banert's unrolled loss and its
// gradient (T = 10, one 96×96 function of Problem 1) on the CUDA device
// (float32) with the CPU device's float64 reverse pass: value to 1e-5 and
// gradient to 1e-3 relative (max norm; the float32 host device, the same
// arithmetic in another summation order, is within 6e-8 and 1.5e-5).
func TestBanertLossAgreesAtPaperSize(t *testing.T) {
	d := device(t)
	size, T := paperSize(d, 96, 12), paperSize(d, 10, 3)
	o := testproblems.Deblur(t, 1, size, "", -1, 3)
	net, err := banert.NewNetwork(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	eval := func(ops gpu.NetOps) (float64, []float64) {
		l, err := ondevice.NewBanertLoss(ops, o, T, 3, 1)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		grad := make([]float64, len(net.Theta))
		v, err := l.Eval(T, net.Theta, o.X0, o.Y, grad)
		if err != nil {
			t.Fatal(err)
		}
		return v, grad
	}
	want, wantGrad := eval(gpu.CPU())
	got, gotGrad := eval(d)
	if e := math.Abs(got-want) / math.Abs(want); e > 1e-5 {
		t.Errorf("loss on CUDA %.9g, CPU %.9g (relative %.2g)", got, want, e)
	}
	var diff, scale float64
	for i, v := range wantGrad {
		diff = math.Max(diff, math.Abs(gotGrad[i]-v))
		scale = math.Max(scale, math.Abs(v))
	}
	if diff > 1e-3*scale {
		t.Errorf("gradient on CUDA differs from the CPU's by %.3g (max-norm relative)", diff/scale)
	}
	t.Logf("CUDA against CPU float64 at %d×%d, T = %d: loss %.2g, gradient %.2g (relative)", size, size, T, math.Abs(got-want)/math.Abs(want), diff/scale)
}

// TestBanertIterationAgrees runs 5 iterations of a 4-input Banert network
// (ondevice.BanertIteration: ∇f in its two parts, the network, the
// safeguard) on 3 functions of Problem 1 on the CUDA device and on the CPU
// device in float64: the iterates agree to 1e-4 relative (max norm).
func TestBanertIterationAgrees(t *testing.T) {
	d := device(t)
	o := testproblems.Deblur(t, 3, paperSize(d, 96, 12), "", -1, 3)
	net, err := banert.NewNetwork(4, 2)
	if err != nil {
		t.Fatal(err)
	}
	run := func(ops gpu.Ops) []float64 {
		it, err := ondevice.NewBanertIteration(ops, net.Inputs, net.Theta, o)
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		for range 5 {
			if err := it.Step(); err != nil {
				t.Fatal(err)
			}
		}
		x := make([]float64, len(o.X0))
		if err := it.X(x); err != nil {
			t.Fatal(err)
		}
		return x
	}
	agree(t, "the iterates after 5 iterations, CUDA against the CPU in float64", run(d), run(gpu.CPU()), 1e-4)
}

// TestRayIdentities runs optest.CheckRay on the CUDA device up to ct-small's
// geometry (40×40, 90 angles) and the paper's 256×256 with 180 angles.
func TestRayIdentities(t *testing.T) {
	d := device(t)
	geoms := []tomo.Geometry{{N: 40, Angles: 90, Det: tomo.DefaultDet(40)}, {N: 256, Angles: 180, Det: 363}}
	if emulated(d) {
		geoms = geoms[:1]
	}
	for _, g := range geoms {
		if err := optest.CheckRay(d, g, 1e-4); err != nil {
			t.Errorf("geometry %+v: %v", g, err)
		}
	}
}

// TestCTStepLossAgrees compares the greedy M-PC step loss on CT (the ray
// transform on the device) with the CPU's float64 path: ct-small (25
// functions of 40×40, 90 angles) and the paper's 256×256 with 180 angles
// (2 functions): value and gradient to 1e-4 relative.
func TestCTStepLossAgrees(t *testing.T) {
	d := device(t)
	for _, c := range []struct {
		name string
		n    int
	}{{"ct-small", paperSize(d, 25, 3)}, {"ct", 2}} {
		if c.name == "ct" && emulated(d) {
			continue
		}
		p, err := problem.Lookup(c.name, problem.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, _, _, pix, err := data.Stack(data.Phantoms(c.n, p.H, 3))
		if err != nil {
			t.Fatal(err)
		}
		o, err := p.Instantiate(pix, c.n, 3)
		if err != nil {
			t.Fatal(err)
		}
		x := make([]float64, len(o.X0))
		for i := range x {
			x[i] = 0.5 * pix[i]
		}
		m, err := models.ParseMethod("m-pc")
		if err != nil {
			t.Fatal(err)
		}
		checkStepLoss(t, d, c.name, m, o, x, 1)
	}
}

// TestRidgeIdentities runs optest.CheckRidge on the CUDA device (the WCRR
// potentials at Problem 3's 60 channels of 96×96).
func TestRidgeIdentities(t *testing.T) {
	d := device(t)
	if err := optest.CheckRidge(d, 2, 60, paperSize(d, 96*96, 24*24), 1e-5); err != nil {
		t.Error(err)
	}
}

// TestWCRRStepLossAgrees compares the greedy M-PC step loss on Problem 3's
// shape (a random WCRR of 1 → 4 → 8 → 60 channels of 5×5, 96×96, 4
// functions) on the CUDA device with the CPU's float64 path: value and
// gradient to 1e-4 relative.
func TestWCRRStepLossAgrees(t *testing.T) {
	d := device(t)
	size, channels := paperSize(d, 96, 16), [3]int{4, 8, paperSize(d, 60, 12)}
	o := testproblems.Deblur(t, 4, size, "", -1, 3)
	o.Reg = &problem.WCRR{Model: wcrr.Random(3, channels, 9), Name: "random"}
	o.Alpha = 3e-3
	m, err := models.ParseMethod("m-pc")
	if err != nil {
		t.Fatal(err)
	}
	checkStepLoss(t, d, "wcrr", m, o, o.X0, 1)
}

// TestMatIdentities runs gputest.CheckMat on the CUDA device (PF's products at
// ct-small's 40×40, 4 images).
func TestMatIdentities(t *testing.T) {
	d := device(t)
	if err := gputest.CheckMat(d, gpu.Batch{N: 4, H: paperSize(d, 40, 12), W: paperSize(d, 40, 12)}, 1e-5); err != nil {
		t.Error(err)
	}
}

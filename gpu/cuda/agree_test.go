//go:build l2ocuda

package cuda

// Agreement tests: every device kernel against the float64 CPU kernels. They
// need a GPU (gorgonia.org/cu exits the test binary at start without one);
// run them with `make test-cuda` (go test -tags l2ocuda ./gpu/...).

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/mconv"
	"github.com/greedyl2o/greedyl2o/tomo"
	"github.com/greedyl2o/greedyl2o/wcrr"
	"gorgonia.org/cu"
)

// Tolerances on max|gpu − cpu| / max|cpu| (float32 device values).
const (
	tolDefault = 1e-5
	tolLong    = 2e-5 // ray transform, multi-channel convolution
	tolHessian = 1e-4 // Huber Hessian-vector product
)

func device(t testing.TB) *Device {
	t.Helper()
	if err := cu.InitError(); err != nil {
		t.Skipf("no CUDA GPU on this machine (%v): the agreement tests need one (make test-cuda on a GPU machine)", err)
	}
	d, err := Open(0)
	if err != nil {
		t.Fatalf("open CUDA device: %v", err)
	}
	return d
}

// emulated reports whether d is the CPU emulation of scripts/cuda-emu, on
// which the tests at the paper's sizes run at smaller sizes (the emulation
// is orders of magnitude slower than a GPU; the code paths are the same).
func emulated(d *Device) bool { return strings.Contains(d.Name(), "CPU emulation") }

// paperSize returns size, or small on the emulation.
func paperSize(d *Device, size, small int) int {
	if emulated(d) {
		return small
	}
	return size
}

func randVec(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	return v
}

func upload(t testing.TB, d *Device, x []float64) *Buffer {
	t.Helper()
	b, err := d.Upload(x)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Free(b) })
	return b
}

func zeros(t testing.TB, d *Device, n int) *Buffer {
	t.Helper()
	b, err := d.NewBuffer(n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Free(b) })
	return b
}

func download(t testing.TB, d *Device, b *Buffer) []float64 {
	t.Helper()
	out := make([]float64, b.Len())
	if err := d.CopyOut(out, b); err != nil {
		t.Fatal(err)
	}
	return out
}

// agree fails unless got matches want to tol relative to max|want|.
func agree(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	var diff, scale float64
	for i := range want {
		diff = max(diff, math.Abs(got[i]-want[i]))
		scale = max(scale, math.Abs(want[i]))
	}
	if scale == 0 {
		scale = 1
	}
	if diff/scale > tol {
		t.Errorf("%s: max difference %.3g relative to max %.3g: %.3g > %g", what, diff, scale, diff/scale, tol)
	}
}

func TestOpenRegistersCUDA(t *testing.T) {
	device(t) // skips without a GPU
	d, err := gpu.Open("cuda")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.(*Device); !ok {
		t.Fatalf("gpu.Open(cuda) = %T, want *cuda.Device", d)
	}
	t.Logf("%s, kernels compiled for %s", d.Name(), d.(*Device).Arch())
}

func TestMemoryAccounting(t *testing.T) {
	d := device(t)
	before := d.Stats()
	freeBefore, total, err := d.MemInfo()
	if err != nil {
		t.Fatal(err)
	}
	const n = 1 << 24 // 64 MiB of float32
	b, err := d.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	s := d.Stats()
	freeAfter, _, err := d.MemInfo()
	if err != nil {
		t.Fatal(err)
	}
	d.Free(b)
	d.Free(b)
	if got := s.InUse - before.InUse; got != 4*n {
		t.Errorf("in use grew by %d bytes, want %d", got, 4*n)
	}
	if got := d.Stats().InUse; got != before.InUse {
		t.Errorf("in use %d after free, want %d", got, before.InUse)
	}
	if freeBefore-freeAfter < 4*n {
		t.Errorf("driver free memory fell by %d bytes for a %d-byte buffer", freeBefore-freeAfter, 4*n)
	}
	t.Logf("device memory: %d of %d bytes free", freeBefore, total)
}

func TestCopyRoundTripRoundsToFloat32(t *testing.T) {
	d := device(t)
	in := []float64{1, -2.5, math.Pi, 1e-30, 3e38}
	out := download(t, d, upload(t, d, in))
	for i := range in {
		if want := float64(float32(in[i])); out[i] != want {
			t.Errorf("value %d: got %g, want float32(%g) = %g", i, out[i], in[i], want)
		}
	}
}

func TestConvAgreement(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(1))
	sizes := []struct{ n, h, w, k int }{{2, 7, 9, 3}, {3, 8, 6, 5}, {1, 2, 5, 5}, {2, 4, 4, 1}}
	for _, b := range []kernels.Boundary{kernels.Zero, kernels.Reflect, kernels.Circular} {
		for _, s := range sizes {
			c := kernels.Conv{N: s.n, H: s.h, W: s.w, K: s.k, Boundary: b}
			if c.Validate() != nil {
				continue
			}
			name := fmt.Sprintf("%v %d×%d×%d k%d", b, s.n, s.h, s.w, s.k)
			x, y, k := randVec(r, s.n*s.h*s.w), randVec(r, s.n*s.h*s.w), randVec(r, s.k*s.k)
			xb, yb, kb := upload(t, d, x), upload(t, d, y), upload(t, d, k)

			want := make([]float64, len(x))
			c.Apply(want, x, k)
			out := zeros(t, d, len(x))
			if err := d.conv2D(out, xb, kb, nil, c); err != nil {
				t.Fatal(err)
			}
			agree(t, name+" apply", download(t, d, out), want, tolDefault)

			c.AdjointImage(want, y, k)
			if err := d.conv2DAdjointImage(out, yb, kb, c); err != nil {
				t.Fatal(err)
			}
			agree(t, name+" adjoint image", download(t, d, out), want, tolDefault)

			wantG := make([]float64, len(k))
			c.AdjointKernel(wantG, x, y)
			g := zeros(t, d, len(k))
			if err := d.conv2DAdjointKernel(g, xb, yb, c); err != nil {
				t.Fatal(err)
			}
			agree(t, name+" adjoint kernel", download(t, d, g), wantG, tolDefault)
		}
	}
}

func TestGradAgreement(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(2))
	n, h, w := 3, 11, 6
	x, f := randVec(r, n*h*w), randVec(r, 2*n*h*w)
	want := make([]float64, len(f))
	kernels.Grad(want, x, n, h, w)
	out := zeros(t, d, len(f))
	if err := d.grad(out, upload(t, d, x), n, h, w); err != nil {
		t.Fatal(err)
	}
	agree(t, "grad", download(t, d, out), want, tolDefault)

	wantX := make([]float64, len(x))
	kernels.GradAdjoint(wantX, f, n, h, w)
	outX := zeros(t, d, len(x))
	if err := d.gradAdjoint(outX, upload(t, d, f), n, h, w, 1, 0); err != nil {
		t.Fatal(err)
	}
	agree(t, "grad adjoint", download(t, d, outX), wantX, tolDefault)
}

func TestHuberAgreement(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(3))
	const eps = 0.5
	n, hw := 3, 200
	f, u := randVec(r, 2*n*hw), randVec(r, 2*n*hw)
	// Keep |f| away from ε so float32 rounding cannot switch branches.
	for i := range hw * n {
		img, p := i/hw, i%hw
		a, b := 2*img*hw+p, (2*img+1)*hw+p
		if rr := math.Hypot(f[a], f[b]); math.Abs(rr-eps) < 1e-3 {
			f[a] *= 2
			f[b] *= 2
		}
	}
	hb := kernels.Huber{Eps: eps}
	fb, ub := upload(t, d, f), upload(t, d, u)

	wantV := make([]float64, n)
	hb.Value(wantV, f, n, hw)
	gotV := make([]float64, n)
	if err := d.huberValue(gotV, fb, n, hw, eps); err != nil {
		t.Fatal(err)
	}
	agree(t, "huber value", gotV, wantV, tolDefault)

	want := make([]float64, len(f))
	hb.Derivative(want, f, n, hw)
	out := zeros(t, d, len(f))
	if err := d.huberDerivative(out, fb, n, hw, eps); err != nil {
		t.Fatal(err)
	}
	agree(t, "huber derivative", download(t, d, out), want, tolDefault)

	hb.HessVec(want, f, u, n, hw)
	if err := d.huberHessVec(out, fb, ub, n, hw, eps); err != nil {
		t.Fatal(err)
	}
	agree(t, "huber hessvec", download(t, d, out), want, tolHessian)
}

func TestRidgeAgreement(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(4))
	const mu = 0.7
	n, c, hw := 2, 3, 50
	h, tt := []float64{0.1, 0.2, 0.3}, []float64{0.5, 0.9, 1.2}
	z, u := randVec(r, n*c*hw), randVec(r, n*c*hw)
	for i := range z { // keep |z| off the thresholds
		ch := (i / hw) % c
		for _, th := range []float64{h[ch], tt[ch]} {
			if math.Abs(math.Abs(z[i])-th) < 1e-3 {
				z[i] += 0.01
			}
		}
	}
	huber := func(z, a float64) float64 {
		if math.Abs(z) > a {
			return a*math.Abs(z) - a*a/2
		}
		return z * z / 2
	}
	clip := func(z, a float64) float64 { return max(-a, min(a, z)) }
	psi, prime, hv := make([]float64, len(z)), make([]float64, len(z)), make([]float64, len(z))
	for i, v := range z {
		ch := (i / hw) % c
		psi[i] = (mu+1)*huber(v, h[ch]) - huber(v, tt[ch])
		prime[i] = (mu+1)*clip(v, h[ch]) - clip(v, tt[ch])
		second := 0.0
		if math.Abs(v) < h[ch] {
			second += mu + 1
		}
		if math.Abs(v) < tt[ch] {
			second--
		}
		hv[i] = second * u[i]
	}
	rg, err := wcrr.NewDevicePotentials(d, h, tt, mu)
	if err != nil {
		t.Fatal(err)
	}
	defer rg.Close()
	zb, ub, out := upload(t, d, z), upload(t, d, u), zeros(t, d, len(z))
	if err := rg.Psi(out, zb, hw); err != nil {
		t.Fatal(err)
	}
	agree(t, "ridge psi", download(t, d, out), psi, tolDefault)
	if err := rg.PsiPrime(out, zb, hw); err != nil {
		t.Fatal(err)
	}
	agree(t, "ridge psi'", download(t, d, out), prime, tolDefault)
	if err := rg.HessVec(out, zb, ub, hw); err != nil {
		t.Fatal(err)
	}
	agree(t, "ridge hessvec", download(t, d, out), hv, tolDefault)
}

func TestElementwiseAndReductions(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(5))
	n := 100003 // several values per thread of the reduction grid
	x, y := randVec(r, n), randVec(r, n)
	xb, yb := upload(t, d, x), upload(t, d, y)
	var dot, sum float64
	for i := range x {
		dot += float64(float32(x[i])) * float64(float32(y[i]))
		sum += float64(float32(x[i]))
	}
	gotDot, err := d.dot(xb, yb)
	if err != nil {
		t.Fatal(err)
	}
	gotSum, err := d.Sum(xb)
	if err != nil {
		t.Fatal(err)
	}
	// Both sums are exact products of float32 values summed in double.
	agree(t, "dot", []float64{gotDot}, []float64{dot}, 1e-12*float64(n))
	agree(t, "sum", []float64{gotSum}, []float64{sum}, 1e-12*float64(n))

	want := make([]float64, n)
	for i := range want {
		want[i] = y[i] + 0.25*x[i]
	}
	if err := d.Axpy(yb, 0.25, xb); err != nil {
		t.Fatal(err)
	}
	agree(t, "axpy", download(t, d, yb), want, tolDefault)
	for i := range want {
		want[i] = -2*x[i] + 0.5*want[i]
	}
	if err := d.axpby(yb, -2, xb, 0.5); err != nil {
		t.Fatal(err)
	}
	agree(t, "axpby", download(t, d, yb), want, tolDefault)
}

func TestMconvAgreement(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(6))
	conv, err := mconv.NewDeviceConv(d)
	if err != nil {
		t.Fatal(err)
	}
	// Channel counts of every parity too.
	for _, s := range []mconv.Shape{{N: 2, Cin: 1, Cout: 4, H: 9, W: 7, K: 5}, {N: 3, Cin: 4, Cout: 8, H: 6, W: 10, K: 3}, {N: 2, Cin: 3, Cout: 5, H: 7, W: 6, K: 3}} {
		name := fmt.Sprintf("%+v", s)
		x, y, w, bias := randVec(r, s.InputLen()), randVec(r, s.OutputLen()), randVec(r, s.WeightLen()), randVec(r, s.Cout)
		xb, yb, wb, bb := upload(t, d, x), upload(t, d, y), upload(t, d, w), upload(t, d, bias)

		want := make([]float64, s.OutputLen())
		mconv.Forward(want, x, w, bias, s)
		out := zeros(t, d, s.OutputLen())
		if err := conv.Forward(out, xb, wb, bb, s); err != nil {
			t.Fatal(err)
		}
		agree(t, name+" forward", download(t, d, out), want, tolLong)
		mconv.Forward(want, x, w, nil, s)
		if err := conv.Forward(out, xb, wb, nil, s); err != nil {
			t.Fatal(err)
		}
		agree(t, name+" forward without bias", download(t, d, out), want, tolLong)

		wantX := make([]float64, s.InputLen())
		mconv.AdjointInput(wantX, y, w, s)
		outX := zeros(t, d, s.InputLen())
		if err := conv.AdjointInput(outX, yb, wb, s); err != nil {
			t.Fatal(err)
		}
		agree(t, name+" adjoint input", download(t, d, outX), wantX, tolLong)

		wantW, wantB := make([]float64, s.WeightLen()), make([]float64, s.Cout)
		mconv.AdjointWeights(wantW, wantB, x, y, s)
		gw, gb := zeros(t, d, s.WeightLen()), zeros(t, d, s.Cout)
		if err := conv.AdjointWeights(gw, gb, xb, yb, s); err != nil {
			t.Fatal(err)
		}
		agree(t, name+" adjoint weights", download(t, d, gw), wantW, tolLong)
		agree(t, name+" adjoint bias", download(t, d, gb), wantB, tolLong)
		if s.K == 3 {
			// The 3×3 kernel's nine taps a block: bitwise one block a weight.
			ref := zeros(t, d, s.WeightLen())
			args := []gpu.KernelArg{gpu.BufferArg(ref), gpu.BufferArg(xb), gpu.BufferArg(yb),
				gpu.IntArg(s.N), gpu.IntArg(s.Cin), gpu.IntArg(s.Cout), gpu.IntArg(s.H), gpu.IntArg(s.W), gpu.IntArg(s.K)}
			if err := d.LaunchBlocks("l2o_mconv_adjoint_weights", s.WeightLen(), args...); err != nil {
				t.Fatal(err)
			}
			got, want := download(t, d, gw), download(t, d, ref)
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Errorf("%s adjoint weights, 3×3 taps a block: weight %d = %v, one block a weight gives %v", name, i, got[i], want[i])
					break
				}
			}
		}
	}
}

func TestRayTransformAgreement(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(7))
	for _, g := range []tomo.Geometry{{N: 24, Angles: 30, Det: tomo.DefaultDet(24)}, {N: 17, Angles: 12, Det: 20}} {
		p, err := tomo.NewProjector(g)
		if err != nil {
			t.Fatal(err)
		}
		rt, err := tomo.NewDeviceRay(d, g)
		if err != nil {
			t.Fatal(err)
		}
		defer rt.Close()
		const batch = 3
		x, y := randVec(r, batch*g.ImageLen()), randVec(r, batch*g.SinoLen())
		want := make([]float64, len(y))
		if err := p.Forward(want, x, batch); err != nil {
			t.Fatal(err)
		}
		out := zeros(t, d, len(y))
		if err := rt.Forward(out, upload(t, d, x), batch); err != nil {
			t.Fatal(err)
		}
		agree(t, fmt.Sprintf("%+v forward", g), download(t, d, out), want, tolLong)

		wantX := make([]float64, len(x))
		if err := p.Adjoint(wantX, y, batch); err != nil {
			t.Fatal(err)
		}
		outX := zeros(t, d, len(x))
		if err := rt.Adjoint(outX, upload(t, d, y), batch); err != nil {
			t.Fatal(err)
		}
		agree(t, fmt.Sprintf("%+v adjoint", g), download(t, d, outX), wantX, tolLong)
	}
}

func ExampleOpen() {
	dev, err := Open(0)
	if err != nil {
		fmt.Println(err)
		return
	}
	x, err := dev.Upload([]float64{1, 2, 4, 7})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Free(x)
	d, err := dev.NewBuffer(8)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Free(d)
	if err := dev.grad(d, x, 1, 2, 2); err != nil { // forward differences of a 2×2 image
		fmt.Println(err)
		return
	}
	out := make([]float64, 8)
	if err := dev.CopyOut(out, d); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out) // [3 5 0 0 1 0 3 0]
}

// TestExampleOpen checks ExampleOpen's result on a GPU.
func TestExampleOpen(t *testing.T) {
	dev := device(t)
	x, err := dev.Upload([]float64{1, 2, 4, 7})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Free(x)
	d, err := dev.NewBuffer(8)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Free(d)
	if err := dev.grad(d, x, 1, 2, 2); err != nil {
		t.Fatal(err)
	}
	out := make([]float64, 8)
	if err := dev.CopyOut(out, d); err != nil {
		t.Fatal(err)
	}
	want := []float64{3, 5, 0, 0, 1, 0, 3, 0}
	for i := range want {
		if out[i] != want[i] {
			t.Fatalf("forward differences on the GPU: %v, want %v", out, want)
		}
	}
}

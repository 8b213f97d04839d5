//go:build l2ocuda

package cuda

import (
	"math"
	"math/rand"
	"os"
	"testing"

	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/gpu/gputest"
	"github.com/greedyl2o/greedyl2o/internal/optest"
	"github.com/greedyl2o/greedyl2o/mconv"
	"github.com/greedyl2o/greedyl2o/ondevice"
	"github.com/greedyl2o/greedyl2o/problem"
)

// The tests at the paper's largest image size, 256×256 (Problem 2's CT and
// the greedy step at scale), run when L2O_CUDA_PAPER=1 (scripts/gpu-check.sh
// sets it): on a GPU they take seconds, but their CPU references (the
// direct circular convolution of CheckOps is O((H·W)²) an image) take a
// minute, and on the CPU emulation several.
const paperEnv = "L2O_CUDA_PAPER"

func paperDevice(t *testing.T) *Device {
	t.Helper()
	d := device(t)
	if os.Getenv(paperEnv) != "1" {
		t.Skipf("the 256×256 tests run with %s=1 (scripts/gpu-check.sh)", paperEnv)
	}
	return d
}

// TestPaper256OpsIdentities runs gputest.CheckOps at 256×256 (2 images: its
// reference for the spectral convolution is the direct one).
func TestPaper256OpsIdentities(t *testing.T) {
	d := paperDevice(t)
	if err := gputest.CheckOps(d, gpu.Batch{N: 2, H: 256, W: 256}, 1e-4); err != nil {
		t.Error(err)
	}
}

// TestPaper256NetOpsIdentities runs gputest.CheckNetOps and optest.CheckConv
// at the Banert network's 32 channels of 256×256.
func TestPaper256NetOpsIdentities(t *testing.T) {
	d := paperDevice(t)
	if err := gputest.CheckNetOps(d, gputest.NetShape{N: 1, C: 32, H: 256, W: 256}, 1e-4); err != nil {
		t.Error(err)
	}
	conv, err := mconv.NewDeviceConv(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := optest.CheckConv(d, conv, mconv.Shape{N: 1, Cin: 32, Cout: 32, H: 256, W: 256, K: 3}, 1e-4); err != nil {
		t.Error(err)
	}
}

// TestPaper256RidgeIdentities runs optest.CheckRidge on WCRR's 60 channels of
// 256×256.
func TestPaper256RidgeIdentities(t *testing.T) {
	d := paperDevice(t)
	if err := optest.CheckRidge(d, 2, 60, 256*256, 1e-5); err != nil {
		t.Error(err)
	}
}

// TestPaper256ObjectiveAgrees compares the objective's value and gradient on
// the device (package ondevice: every operation of the greedy and unrolled
// losses' forward passes) with the CPU's float64 for N = 25 functions of
// 256×256: deblurring (Problem 1's blur and Huber-TV at 256×256) and CT
// (Problem 2: 180 angles, 363 bins). Value and gradient to 1e-4 relative.
func TestPaper256ObjectiveAgrees(t *testing.T) {
	d := paperDevice(t)
	const n = 25
	for _, name := range []string{"deblur", "ct"} {
		opt := problem.Options{}
		if name == "deblur" {
			opt.H = 256
		}
		p, err := problem.Lookup(name, opt)
		if err != nil {
			t.Fatal(err)
		}
		_, _, _, pix, err := data.Stack(data.Phantoms(n, p.H, 3))
		if err != nil {
			t.Fatal(err)
		}
		o, err := p.Instantiate(pix, n, 3)
		if err != nil {
			t.Fatal(err)
		}
		if o.H != 256 || o.N != n {
			t.Fatalf("%s: %d functions of %d×%d, want %d of 256×256", name, o.N, o.H, o.W, n)
		}
		r := rand.New(rand.NewSource(32))
		x := make([]float64, len(o.X0))
		for i := range x {
			x[i] = 0.5*pix[i] + 0.05*r.NormFloat64()
		}
		vals, want := make([]float64, n), make([]float64, len(x))
		if err := o.Eval(vals, want, x, nil); err != nil {
			t.Fatal(err)
		}
		var fWant float64
		for _, v := range vals {
			fWant += v
		}
		mem := gpu.NewArena(d)
		ob, err := ondevice.NewObjective(mem, o, n)
		if err != nil {
			t.Fatal(err)
		}
		if err := ob.SetData(o.Y); err != nil {
			t.Fatal(err)
		}
		xb, gb := upload(t, d, x), zeros(t, d, len(x))
		f, err := ob.ValueGrad(xb, gb)
		mem.Close()
		if err != nil {
			t.Fatal(err)
		}
		got := download(t, d, gb)
		var diff, scale float64
		for i := range want {
			diff = max(diff, math.Abs(got[i]-want[i]))
			scale = max(scale, math.Abs(want[i]))
		}
		rv, rg := math.Abs(f-fWant)/math.Abs(fWant), diff/scale
		t.Logf("%s, %d×256×256: value %.9g (cuda) vs %.9g (cpu float64), %.2g relative; gradient %.2g (max-norm relative)", name, n, f, fWant, rv, rg)
		if !(rv <= 1e-4) || !(rg <= 1e-4) {
			t.Errorf("%s: cuda differs from the cpu: value %.3g, gradient %.3g relative (tolerance 1e-4)", name, rv, rg)
		}
	}
}

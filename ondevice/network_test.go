package ondevice_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/baselines/banert"
	"github.com/greedyl2o/greedyl2o/baselines/banert/arch"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/internal/testsupport"
	"github.com/greedyl2o/greedyl2o/ondevice"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/wcrr"
)

// banertGraph evaluates Banert's gorgonia training graph (the oracle) on
// function k: f(x^T) and its gradient in theta.
func banertGraph(t *testing.T, o *problem.Objective, T, inputs, k int, theta []float64) (float64, []float64) {
	t.Helper()
	tg, err := banert.BuildTrainingGraph(o, T, inputs)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	grad := make([]float64, len(theta))
	if err := tg.SetFunction(k); err != nil {
		t.Fatal(err)
	}
	if err := tg.SetParams(theta); err != nil {
		t.Fatal(err)
	}
	if err := tg.Run(); err != nil {
		t.Fatal(err)
	}
	loss, err := tg.Loss()
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.Gradient(grad); err != nil {
		t.Fatal(err)
	}
	return loss, grad
}

// banertEval builds a BanertLoss on ops and evaluates it once.
func banertEval(t *testing.T, ops gpu.Ops, o *problem.Objective, maxT, T, inputs int, theta, x0, y []float64) (float64, []float64) {
	t.Helper()
	d, err := ondevice.NewBanertLoss(ops, o, maxT, inputs, len(x0)/o.ImageLen())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	grad := make([]float64, len(theta))
	loss, err := d.Eval(T, theta, x0, y, grad)
	if err != nil {
		t.Fatal(err)
	}
	return loss, grad
}

func relErr(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(math.Max(math.Abs(a), math.Abs(b)), 1e-300)
}

// The Banert loss's value and hand-written reverse pass agree with the
// gorgonia graph's autodiff, for one function at a time (as training runs)
// and for a batch (the sum), at a random network and after the safeguard
// is active.
func TestBanertLossMatchesGraph(t *testing.T) {
	const T, size = 3, 10
	for _, c := range []struct {
		reg    string
		inputs int
	}{{"huber-tv", 3}, {"least-squares", 3}, {"huber-tv", 4}, {"least-squares", 4}, {"ct", 3}, {"ct", 4}, {"wcrr", 3}, {"wcrr", 4}} {
		reg, inputs := fmt.Sprintf("%s, %d inputs", c.reg, c.inputs), c.inputs
		o := testproblems.Deblur(t, 2, size, "reflect", -1, 3)
		switch c.reg {
		case "least-squares":
			o.Alpha = 0
		case "ct":
			o = testproblems.CTSmall(t, 2, size, 3)
		case "wcrr":
			o.Reg = &problem.WCRR{Model: wcrr.Random(3, [3]int{2, 3, 4}, 9), Name: "random"}
			o.Alpha = 3e-3
		}
		net, err := banert.NewNetwork(inputs, 5)
		if err != nil {
			t.Fatal(err)
		}
		hw, m := o.ImageLen(), o.DataLen()
		var wantSum float64
		wantGrad := make([]float64, len(net.Theta))
		for k := 0; k < o.N; k++ {
			want, wg := banertGraph(t, o, T, inputs, k, net.Theta)
			wantSum += want
			for i := range wg {
				wantGrad[i] += wg[i]
			}
			got, grad := banertEval(t, gpu.CPU(), o, T+2, T, inputs, net.Theta, o.X0[k*hw:(k+1)*hw], o.Y[k*m:(k+1)*m])
			if e := relErr(got, want); e > 1e-11 {
				t.Errorf("%s, function %d: loss %.15g, graph %.15g (relative %.2g)", reg, k, got, want, e)
			}
			if e := testsupport.RelDiff(grad, wg); e > 1e-8 {
				t.Errorf("%s, function %d: gradient differs from the graph's by %.3g (max-norm relative)", reg, k, e)
			}
			// Per block, so a wrong layer shows even when its gradient is
			// small; conv1's and conv2's biases have zero gradient (the
			// instance norm after them removes any constant), so their
			// blocks are compared against the whole gradient's scale.
			for i, b := range arch.Layout(inputs) {
				gotB, wantB := arch.Params(grad, inputs, i), arch.Params(wg, inputs, i)
				e := testsupport.RelDiff(gotB, wantB)
				if b.Name == "conv1.bias" || b.Name == "conv2.bias" {
					e *= testsupport.MaxAbs(wantB) / testsupport.MaxAbs(wg)
				}
				if e > 1e-7 {
					t.Errorf("%s, function %d: gradient of %s differs from the graph's by %.3g", reg, k, b.Name, e)
				}
			}
		}
		got, grad := banertEval(t, gpu.CPU(), o, T, T, inputs, net.Theta, o.X0, o.Y)
		if e := relErr(got, wantSum); e > 1e-11 {
			t.Errorf("%s, batch of %d: loss %.15g, graph sum %.15g", reg, o.N, got, wantSum)
		}
		if e := testsupport.RelDiff(grad, wantGrad); e > 1e-8 {
			t.Errorf("%s, batch of %d: gradient differs from the graphs' sum by %.3g", reg, o.N, e)
		}
	}
}

// The Banert loss's gradient is the derivative of its value: along random
// directions of the parameters, ⟨∇ℓ, v⟩ agrees with the central difference
// (ℓ(θ+εv) − ℓ(θ−εv))/2ε, on a smooth objective (large Huber ε), for both
// numbers of inputs, at a network whose offsets and biases are not zero.
func TestBanertLossFiniteDifferences(t *testing.T) {
	const T, size, eps = 3, 8, 1e-6
	o := testproblems.Deblur(t, 1, size, "reflect", 0.02, 7)
	o.Reg = problem.HuberTV{Eps: 0.2}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, inputs := range []int{3, 4} {
		net, err := banert.NewNetwork(inputs, 7)
		if err != nil {
			t.Fatal(err)
		}
		for i := range net.Theta {
			net.Theta[i] += 0.05 * rng.NormFloat64()
		}
		d, err := ondevice.NewBanertLoss(gpu.CPU(), o, T, inputs, 1)
		if err != nil {
			t.Fatal(err)
		}
		grad, scratch := make([]float64, len(net.Theta)), make([]float64, len(net.Theta))
		if _, err := d.Eval(T, net.Theta, o.X0, o.Y, grad); err != nil {
			t.Fatal(err)
		}
		at := func(theta []float64) float64 {
			v, err := d.Eval(T, theta, o.X0, o.Y, scratch)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		for trial := 0; trial < 3; trial++ {
			v := make([]float64, len(net.Theta))
			var dir float64
			for i := range v {
				v[i] = rng.NormFloat64()
				dir += v[i] * grad[i]
			}
			plus, minus := append([]float64(nil), net.Theta...), append([]float64(nil), net.Theta...)
			for i := range v {
				plus[i] += eps * v[i]
				minus[i] -= eps * v[i]
			}
			fd := (at(plus) - at(minus)) / (2 * eps)
			if e := relErr(dir, fd); e > 1e-5 {
				t.Errorf("%d inputs, direction %d: ⟨∇ℓ, v⟩ = %.10g, central difference %.10g (relative %.2g)", inputs, trial, dir, fd, e)
			}
		}
		d.Close()
	}
}

// In float32 (the CUDA device's precision, on the host) the loss and
// gradient stay close to float64's.
func TestBanertLossFloat32(t *testing.T) {
	const T, size = 4, 16
	o := testproblems.Deblur(t, 1, size, "reflect", -1, 3)
	net, err := banert.NewNetwork(3, 9)
	if err != nil {
		t.Fatal(err)
	}
	l64, g64 := banertEval(t, gpu.CPU(), o, T, T, 3, net.Theta, o.X0, o.Y)
	l32, g32 := banertEval(t, gpu.Host32(), o, T, T, 3, net.Theta, o.X0, o.Y)
	if e := relErr(l32, l64); e > 1e-5 {
		t.Errorf("float32 loss %.9g, float64 %.9g (relative %.2g)", l32, l64, e)
	}
	if e := testsupport.RelDiff(g32, g64); e > 1e-3 {
		t.Errorf("float32 gradient differs from float64's by %.3g", e)
	}
	t.Logf("float32 against float64: loss %.2g, gradient %.2g (relative)", relErr(l32, l64), testsupport.RelDiff(g32, g64))
}

func TestBanertLossBadInput(t *testing.T) {
	o := testproblems.Deblur(t, 1, 8, "reflect", -1, 3)
	if _, err := ondevice.NewBanertLoss(gpu.CPU(), o, 3, 5, 1); err == nil || !strings.Contains(err.Error(), "use 3") {
		t.Errorf("5 inputs on a device: %v, want an error naming 3 and 4", err)
	}
	if _, err := ondevice.NewBanertLoss(gpu.CPU(), o, 0, 3, 1); err == nil || !strings.Contains(err.Error(), "T = 0") {
		t.Errorf("T = 0: %v, want an error naming T", err)
	}
	d, err := ondevice.NewBanertLoss(gpu.CPU(), o, 3, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	net, _ := banert.NewNetwork(3, 1)
	grad := make([]float64, len(net.Theta))
	if _, err := d.Eval(4, net.Theta, o.X0, o.Y, grad); err == nil {
		t.Error("T = 4 on a loss built for 3 returned nil")
	}
	net.Theta[7] = math.NaN()
	if _, err := d.Eval(2, net.Theta, o.X0, o.Y, grad); err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("NaN parameter: %v", err)
	}
	if _, err := ondevice.NewBanertIteration(gpu.CPU(), 3, net.Theta, o); err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("iteration with a NaN parameter: %v", err)
	}
}

package banert

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/wcrr"
)

// graphLossAndGradient evaluates the gorgonia training graph on function k.
func graphLossAndGradient(t *testing.T, o *problem.Objective, T, inputs, k int, theta []float64) (float64, []float64) {
	t.Helper()
	tg, err := BuildTrainingGraph(o, T, inputs)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	grad := make([]float64, len(theta))
	loss, err := lossAndGradient(tg, k, theta, grad)
	if err != nil {
		t.Fatal(err)
	}
	return loss, grad
}

// ctSmall returns n ct-small functions (the scaled ray transform with
// Huber-TV) on size×size phantoms.
func ctSmall(t *testing.T, n, size int) *problem.Objective {
	t.Helper()
	return testproblems.CTSmall(t, n, size, 3)
}

func maxRelDiff(a, b []float64) float64 {
	var d, s float64
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
		s = math.Max(s, math.Abs(b[i]))
	}
	return d / s
}

// The device loss's value and hand-written reverse pass agree with the
// gorgonia graph's autodiff, for one function at a time (as training runs)
// and for a batch (the sum), at a random network and after the safeguard
// is active.
func TestDeviceLossMatchesGraph(t *testing.T) {
	const T, size = 3, 10
	for _, c := range []struct {
		reg    string
		inputs int
	}{{"huber-tv", 3}, {"least-squares", 3}, {"huber-tv", 4}, {"least-squares", 4}, {"ct", 3}, {"ct", 4}, {"wcrr", 3}, {"wcrr", 4}} {
		reg, inputs := fmt.Sprintf("%s, %d inputs", c.reg, c.inputs), c.inputs
		o := tinyObjective(t, 2, size, false)
		switch c.reg {
		case "least-squares":
			o.Alpha = 0
		case "ct":
			o = ctSmall(t, 2, size)
		case "wcrr":
			o.Reg = &problem.WCRR{Model: wcrr.Random(3, [3]int{2, 3, 4}, 9), Name: "random"}
			o.Alpha = 3e-3
		}
		net, err := NewNetwork(inputs, 5)
		if err != nil {
			t.Fatal(err)
		}
		hw := o.ImageLen()
		var wantSum float64
		wantGrad := make([]float64, len(net.Theta))
		for k := 0; k < o.N; k++ {
			want, wg := graphLossAndGradient(t, o, T, inputs, k, net.Theta)
			wantSum += want
			for i := range wg {
				wantGrad[i] += wg[i]
			}
			d, err := NewDeviceLoss(gpu.CPU(), o, T+2, inputs, 1)
			if err != nil {
				t.Fatal(err)
			}
			grad := make([]float64, len(net.Theta))
			m := o.DataLen()
			got, err := d.Eval(T, net.Theta, o.X0[k*hw:(k+1)*hw], o.Y[k*m:(k+1)*m], grad)
			d.Close()
			if err != nil {
				t.Fatal(err)
			}
			if e := relErr(got, want); e > 1e-11 {
				t.Errorf("%s, function %d: loss %.15g, graph %.15g (relative %.2g)", reg, k, got, want, e)
			}
			if e := maxRelDiff(grad, wg); e > 1e-8 {
				t.Errorf("%s, function %d: gradient differs from the graph's by %.3g (max-norm relative)", reg, k, e)
			}
			// Per block, so a wrong layer shows even when its gradient is
			// small; conv1's and conv2's biases have zero gradient (the
			// instance norm after them removes any constant), so their
			// blocks are compared against the whole gradient's scale.
			got1, want1 := &Network{Inputs: inputs, Theta: grad}, &Network{Inputs: inputs, Theta: wg}
			for i, b := range Layout(inputs) {
				e := maxRelDiff(got1.Block(i), want1.Block(i))
				if b.Name == "conv1.bias" || b.Name == "conv2.bias" {
					e *= maxAbs(want1.Block(i)) / maxAbs(wg)
				}
				if e > 1e-7 {
					t.Errorf("%s, function %d: gradient of %s differs from the graph's by %.3g", reg, k, b.Name, e)
				}
			}
		}
		d, err := NewDeviceLoss(gpu.CPU(), o, T, inputs, o.N)
		if err != nil {
			t.Fatal(err)
		}
		grad := make([]float64, len(net.Theta))
		got, err := d.Eval(T, net.Theta, o.X0, o.Y, grad)
		d.Close()
		if err != nil {
			t.Fatal(err)
		}
		if e := relErr(got, wantSum); e > 1e-11 {
			t.Errorf("%s, batch of %d: loss %.15g, graph sum %.15g", reg, o.N, got, wantSum)
		}
		if e := maxRelDiff(grad, wantGrad); e > 1e-8 {
			t.Errorf("%s, batch of %d: gradient differs from the graphs' sum by %.3g", reg, o.N, e)
		}
	}
}

// In float32 (the CUDA device's precision, on the host) the loss and
// gradient stay close to float64's.
func TestDeviceLossFloat32(t *testing.T) {
	const T, size = 4, 16
	o := tinyObjective(t, 1, size, false)
	net, err := NewNetwork(3, 9)
	if err != nil {
		t.Fatal(err)
	}
	eval := func(ops gpu.NetOps) (float64, []float64) {
		d, err := NewDeviceLoss(ops, o, T, 3, 1)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		grad := make([]float64, len(net.Theta))
		loss, err := d.Eval(T, net.Theta, o.X0, o.Y, grad)
		if err != nil {
			t.Fatal(err)
		}
		return loss, grad
	}
	l64, g64 := eval(gpu.CPU())
	l32, g32 := eval(gpu.Host32())
	if e := relErr(l32, l64); e > 1e-5 {
		t.Errorf("float32 loss %.9g, float64 %.9g (relative %.2g)", l32, l64, e)
	}
	if e := maxRelDiff(g32, g64); e > 1e-3 {
		t.Errorf("float32 gradient differs from float64's by %.3g", e)
	}
	t.Logf("float32 against float64: loss %.2g, gradient %.2g (relative)", relErr(l32, l64), maxRelDiff(g32, g64))
}

func TestDeviceLossBadInput(t *testing.T) {
	o := tinyObjective(t, 1, 8, false)
	if _, err := NewDeviceLoss(gpu.CPU(), o, 3, 5, 1); err == nil || !strings.Contains(err.Error(), "use 3") {
		t.Errorf("5 inputs on a device: %v, want an error naming 3 and 4", err)
	}
	d, err := NewDeviceLoss(gpu.CPU(), o, 3, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	net, _ := NewNetwork(3, 1)
	grad := make([]float64, len(net.Theta))
	if _, err := d.Eval(4, net.Theta, o.X0, o.Y, grad); err == nil {
		t.Error("T = 4 on a loss built for 3 returned nil")
	}
	net.Theta[7] = math.NaN()
	if _, err := d.Eval(2, net.Theta, o.X0, o.Y, grad); err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("NaN parameter: %v", err)
	}
}

// Training on a device follows the graph's training (same Adam steps, the
// same order and random lengths) to rounding; a device run resumes
// bitwise and refuses to resume on the graph.
func TestTrainOnDevice(t *testing.T) {
	o := tinyObjective(t, 2, 8, false)
	dir := t.TempDir()
	cfg := Config{Problem: Problem{Name: "deblur", DataHash: "h", Seed: 5}, Method: MethodConfig{T: 2, RandomLength: true}, Solver: Solver{Epochs: 3}}
	graph, err := Train(o, cfg)
	if err != nil {
		t.Fatal(err)
	}
	dev := cfg
	dev.Target = execution.OnDevice(gpu.CPU())
	straight, err := Train(o, dev)
	if err != nil {
		t.Fatal(err)
	}
	if e := maxRelDiff(straight.Method.Net.Theta, graph.Method.Net.Theta); e > 1e-9 {
		t.Errorf("after 6 Adam steps the device's parameters differ from the graph's by %.3g", e)
	}
	for i, h := range graph.History {
		if e := relErr(straight.History[i].MeanLoss, h.MeanLoss); e > 1e-9 {
			t.Errorf("epoch %d: device mean loss %.15g, graph %.15g", i+1, straight.History[i].MeanLoss, h.MeanLoss)
		}
	}
	part := dev
	part.Solver.Epochs, part.Run.Dir = 2, filepath.Join(dir, "dev")
	if _, err := Train(o, part); err != nil {
		t.Fatal(err)
	}
	onGraph := part
	onGraph.Target, onGraph.Solver.Epochs, onGraph.Run.Resume = execution.Target{}, 3, true
	if _, err := Train(o, onGraph); err == nil || !strings.Contains(err.Error(), "--device") {
		t.Errorf("resuming a device run on the graph: %v, want a refusal naming --device", err)
	}
	part.Solver.Epochs, part.Run.Resume = 3, true
	resumed, err := Train(o, part)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range straight.Method.Net.Theta {
		if resumed.Method.Net.Theta[i] != v {
			t.Fatalf("parameter %d: resumed %g, uninterrupted %g", i, resumed.Method.Net.Theta[i], v)
		}
	}
	_, man, err := Load(part.Run.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if man.Device != "host" {
		t.Errorf("manifest device %q, want host", man.Device)
	}
}

// A trained network run on a device (Method.Target) follows its CPU run:
// after 30 iterations the iterates agree to 1e-11 on the CPU device and to
// float32 rounding on the float32 host device, with a network whose large
// output puts ‖Δ‖ near α‖∇f‖.
func TestMethodOnDevice(t *testing.T) {
	o := tinyObjective(t, 3, 10, false)
	net, err := NewNetwork(3, 13)
	if err != nil {
		t.Fatal(err)
	}
	// Scale the output layer up so that the safeguard binds.
	for i, v := range net.Block(10) {
		net.Block(10)[i] = 50 * v
	}
	run := func(dev gpu.Ops) []float64 {
		it, err := (&Method{Net: net, Target: execution.OnDevice(dev)}).Start(o)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 30; i++ {
			if err := it.Next(); err != nil {
				t.Fatal(err)
			}
		}
		return append([]float64(nil), it.X()...)
	}
	want := run(nil)
	if e := maxRelDiff(run(gpu.CPU()), want); e > 1e-11 {
		t.Errorf("on the CPU device the iterates differ from the CPU method's by %.3g after 30 iterations", e)
	}
	if e := maxRelDiff(run(gpu.Host32()), want); e > 1e-4 {
		t.Errorf("on the float32 host device the iterates differ from the CPU method's by %.3g after 30 iterations", e)
	}
	four, _ := NewNetwork(4, 1)
	itc, err := (&Method{Net: four}).Start(o)
	if err != nil {
		t.Fatal(err)
	}
	itd, err := (&Method{Net: four, Target: execution.OnDevice(gpu.CPU())}).Start(o)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		if err := itc.Next(); err != nil {
			t.Fatal(err)
		}
		if err := itd.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if e := maxRelDiff(itd.X(), itc.X()); e > 1e-11 {
		t.Errorf("4-input network: on the CPU device the iterates differ from the CPU method's by %.3g after 10 iterations", e)
	}
}

// Training on the CPU in float32 runs the network operations of the
// float32 host arrays: a run whose first epoch recorded them by their
// former device name, host32, resumes under the CPU in float32 bitwise as
// an uninterrupted run there; in float64 (the graph) it is refused.
func TestFloat32ResumesHost32Record(t *testing.T) {
	o := tinyObjective(t, 2, 8, false)
	cfg := Config{Problem: Problem{Name: "deblur", DataHash: "h", Seed: 3}, Method: MethodConfig{T: 2}, Solver: Solver{Epochs: 2},
		Target: execution.CPU(problem.Float32)}
	straight, err := Train(o, cfg)
	if err != nil {
		t.Fatal(err)
	}
	part := cfg
	part.Solver.Epochs, part.Run.Dir, part.Target = 1, filepath.Join(t.TempDir(), "part"), execution.OnDevice(gpu.Host32())
	if _, err := Train(o, part); err != nil {
		t.Fatal(err)
	}
	if _, man, err := Load(part.Run.Dir); err != nil || man.Device != "host32" {
		t.Fatalf("the first epoch's manifest: %v, device %q; want host32", err, man.Device)
	}
	graph := part
	graph.Solver.Epochs, graph.Run.Resume, graph.Target = 2, true, execution.Target{}
	if _, err := Train(o, graph); err == nil || !strings.Contains(err.Error(), "cpu32") {
		t.Errorf("resuming a float32 run on the graph: %v, want a refusal naming cpu32", err)
	}
	resumed := part
	resumed.Solver.Epochs, resumed.Run.Resume, resumed.Target = 2, true, execution.CPU(problem.Float32)
	got, err := Train(o, resumed)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range straight.Method.Net.Theta {
		if got.Method.Net.Theta[i] != v {
			t.Fatalf("parameter %d: resumed %g, uninterrupted %g", i, got.Method.Net.Theta[i], v)
		}
	}
}

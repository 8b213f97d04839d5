package banert

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/problem"
)

func maxRelDiff(a, b []float64) float64 {
	var d, s float64
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
		s = math.Max(s, math.Abs(b[i]))
	}
	return d / s
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
	run := func(target execution.Target) []float64 {
		it, err := (&Method{Net: net, Target: target}).Start(o)
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
	want := run(execution.Target{})
	if e := maxRelDiff(run(execution.OnDevice(gpu.CPU())), want); e > 1e-11 {
		t.Errorf("on the CPU device the iterates differ from the CPU method's by %.3g after 30 iterations", e)
	}
	if e := maxRelDiff(run(execution.OnDevice(gpu.Host32())), want); e > 1e-4 {
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

// The float32 loss and gradient on the CPU (`--device cpu32`) agree with the
// float64 graph's to float32 rounding, and the float64 array path with the
// graph to float64 rounding: T = 3 iterations of a network on two 16×16
// functions, the gradient's largest error relative to its largest entry (a
// float32 run closer than 1e-9 would not be computing in float32).
func TestFloat32GradientFollowsFloat64(t *testing.T) {
	const T = 3
	o := tinyObjective(t, 2, 16, false)
	net, err := NewNetwork(3, 7)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := BuildTrainingGraph(o, T, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	for k := range 2 {
		want := make([]float64, len(net.Theta))
		loss, err := lossAndGradient(tg, k, net.Theta, want)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name     string
			target   execution.Target
			min, max float64 // bounds on the relative error
		}{
			{"cpu32", execution.CPU(problem.Float32), 1e-9, 2e-5}, // ε₃₂ ≈ 6e-8; about 1e-6 here
			{"host", execution.OnDevice(gpu.CPU()), 0, 1e-11},
		} {
			d, err := newArraysLoss(c.target, o, T, 3, 1)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]float64, len(net.Theta))
			l, err := d.Eval(T, net.Theta, o.X0[k*256:(k+1)*256], o.Y[k*256:(k+1)*256], got)
			d.Close()
			if err != nil {
				t.Fatal(err)
			}
			e := maxRelDiff(got, want)
			t.Logf("function %d, %s: loss %.9g (graph %.9g), gradient error %.3g", k, c.name, l, loss, e)
			if e < c.min || e > c.max || relErr(l, loss) > c.max {
				t.Errorf("function %d, %s: gradient error %.3g, loss %.9g against %.9g: want an error in [%g, %g]", k, c.name, e, l, loss, c.min, c.max)
			}
		}
	}
}

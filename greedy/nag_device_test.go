package greedy

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// TestNAGOnDeviceAgainstHost runs NAG on a step loss on a device twice
// (M-PC; PC with a PP momentum term, whose φ block runs on the host; PC
// alone): with its iterates on the device (StepLoss.DescendBlock) and on
// the host (a loop over EvalBlock, the same device pass), 2 rounds of 15
// iterations a block from a point off the reference, with penalties. On
// the CPU device (float64) the two do the same arithmetic in the same
// order, so the results are bitwise equal; on the float32 host device
// (where the host loop adds the penalty's gradient in float64) to float32
// rounding (1e-4). The evaluations counted are the same; an observer sees
// the value once a block run on the device (so fewer times), at the
// block's last point: the host's last evaluation.
func TestNAGOnDeviceAgainstHost(t *testing.T) {
	o := deblurSet(t, 5, 16, 3)
	grad := make([]float64, len(o.X0))
	if err := o.Eval(nil, grad, o.X0, nil); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 9))
	p := make([]float64, len(o.X0))
	for i := range p {
		p[i] = 0.1 * r.NormFloat64()
	}
	for _, c := range []struct {
		method string
		dev    gpu.Ops
		tol    float64
	}{{"m-pc", gpu.CPU(), 0}, {"m-pc", gpu.Host32(), 1e-4}, {"pc:pp", gpu.CPU(), 0}, {"pc", gpu.CPU(), 0}} {
		m := method(t, c.method)
		var results [2][]float64
		var lasts [2]float64
		var evals, reports [2]int
		for i, host := range []bool{false, true} {
			loss, err := steploss.NewStepLossOn(m, o, 0.5, c.dev)
			if err != nil {
				t.Fatal(err)
			}
			if err := loss.SetStep(o.X0, grad, p, 0.3, 0.2); err != nil {
				t.Fatal(err)
			}
			loss.Observe(func(_ int, v float64) { lasts[i], reports[i] = v, reports[i]+1 })
			u0 := loss.Reference()
			start := rand.New(rand.NewPCG(4, 1)) // the same start for both
			for j := range u0 {
				u0[j] += 0.01 * start.NormFloat64()
			}
			sp := &Subproblem{Loss: loss, Lipschitz: func(b int) (float64, error) { return 40 + 10*float64(b), nil }}
			u, err := NAG{Iters: 15, Rounds: 2, hostIterates: host}.Minimize(sp, u0)
			if err != nil {
				t.Fatal(err)
			}
			results[i], evals[i] = u, loss.Evaluations()
			loss.Close()
		}
		var diff, scale float64
		for j := range results[0] {
			diff = math.Max(diff, math.Abs(results[0][j]-results[1][j]))
			scale = math.Max(scale, math.Abs(results[1][j]))
		}
		if diff > c.tol*scale {
			t.Errorf("%s on %s: the iterates on the device and on the host differ by %.3g (largest value %.3g, want within %g relative)", c.method, c.dev.Name(), diff, scale, c.tol)
		}
		if evals[0] != evals[1] || evals[0] < 30 {
			t.Errorf("%s on %s: %d evaluations on the device, %d on the host, want the same, at least 30", c.method, c.dev.Name(), evals[0], evals[1])
		}
		if reports[0] >= reports[1] {
			t.Errorf("%s on %s: the observer saw %d evaluations with the iterates on the device, %d on the host: the device ran no block", c.method, c.dev.Name(), reports[0], reports[1])
		}
		if d := math.Abs(lasts[0] - lasts[1]); d > c.tol*math.Abs(lasts[1]) {
			t.Errorf("%s on %s: the observer's last value %.15g on the device, %.15g on the host", c.method, c.dev.Name(), lasts[0], lasts[1])
		}
		t.Logf("%s on %s: largest difference %.3g (largest value %.3g), last values %.15g and %.15g", c.method, c.dev.Name(), diff, scale, lasts[0], lasts[1])
	}
}

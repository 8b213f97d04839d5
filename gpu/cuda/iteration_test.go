//go:build l2ocuda

package cuda

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/ondevice"
	"github.com/greedyl2o/greedyl2o/problem"
)

// noCapture is the device without its captures (its network operations
// kept): the learned iteration then runs one operation at a time.
type noCapture struct{ gpu.NetOps }

// iterationRun is one learned iteration's record: after every step, the
// iterates, Σ_k f_k and the ‖∇f_k‖² the device computed.
type iterationRun struct{ x, evaluated [][]float64 }

// runLearnedIteration runs steps iterations of the method (ondevice.
// Iteration) on ops: G = c·I/L with c set anew at each of the first four
// steps, then fixed (as Algorithm 2 repeats its last step), H = 0.3·I. With
// log set, the call log of the last step and its readout is written there.
func runLearnedIteration(t *testing.T, ops gpu.Ops, method string, o *problem.Objective, steps int, log string) iterationRun {
	t.Helper()
	m := testproblems.Method(t, method)
	it, err := ondevice.NewIteration(ops, m, o)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var r iterationRun
	for k := range steps {
		if c := 0.7 + 0.1*float64(k); k <= 3 {
			if err := it.SetParams(m.G.Reference(c/o.L, o.H, o.W), m.H.Reference(0.3, o.H, o.W)); err != nil {
				t.Fatal(err)
			}
		}
		if k == steps-1 && log != "" {
			t.Setenv("L2O_EMU_CALL_LOG", log)
		}
		if err := it.Step(); err != nil {
			t.Fatal(err)
		}
		sq := make([]float64, o.N)
		sum, err := it.Evaluated(sq)
		if err != nil {
			t.Fatal(err)
		}
		os.Unsetenv("L2O_EMU_CALL_LOG")
		x := make([]float64, len(o.X0))
		if err := it.X(x); err != nil {
			t.Fatal(err)
		}
		r.x, r.evaluated = append(r.x, x), append(r.evaluated, append([]float64{sum}, sq...))
	}
	return r
}

// TestLearnedIterationCaptured runs Algorithm 2's iterations of an M-PC and
// an M-PS update on the device, where steps are graph launches (three
// graphs, one a phase of the iterates' rotation: M-PC's read the
// parameters set between them, M-PS's are captured again at new
// parameters), and on the device without captures: the iterates and the
// values read back are bitwise the same. Σ_k f_k and every ‖∇f_k‖²
// computed on the device agree to float32 rounding with f and ∇f evaluated
// on the host in float64 at the iterates copied back (what l2o apply
// printed before). On the emulation, a step at fixed parameters with its
// readout is one graph launch and one copy to the host, nothing else.
func TestLearnedIterationCaptured(t *testing.T) {
	d := device(t)
	o := testproblems.Deblur(t, 3, paperSize(d, 96, 16), "", -1, 3)
	const steps = 9
	for _, method := range []string{"m-pc", "m-ps"} {
		t.Run(method, func(t *testing.T) {
			log := ""
			if emulated(d) {
				log = filepath.Join(t.TempDir(), "calls.txt")
			}
			captured := runLearnedIteration(t, d, method, o, steps, log)
			plain := runLearnedIteration(t, noCapture{d}, method, o, steps, "")
			sameBits(t, "the captured iterates", captured.x, plain.x)
			sameBits(t, "the captured values and gradient norms", captured.evaluated, plain.evaluated)
			checkEvaluated(t, o, captured)
			if log != "" {
				checkReplayCalls(t, log)
			}
		})
	}
}

// checkEvaluated compares the device's Σ_k f_k and ‖∇f_k‖² of every step
// with f and ∇f evaluated on the host in float64 at its iterates.
func checkEvaluated(t *testing.T, o *problem.Objective, r iterationRun) {
	t.Helper()
	vals, grad := make([]float64, o.N), make([]float64, len(o.X0))
	hw := o.ImageLen()
	var worst float64
	for k, x := range r.x {
		if err := o.Eval(vals, grad, x, nil); err != nil {
			t.Fatal(err)
		}
		want := []float64{0}
		for i, v := range vals {
			want[0] += v
			var s float64
			for _, g := range grad[i*hw : (i+1)*hw] {
				s += g * g
			}
			want = append(want, s)
		}
		for i, w := range want {
			rel := math.Abs(r.evaluated[k][i]-w) / math.Abs(w)
			worst = max(worst, rel)
			if !(rel < 1e-5) {
				t.Errorf("step %d: value %d (0: Σ f_k, then ‖∇f_k‖²) %.9g on the device, %.9g on the host: %.2g relative", k, i, r.evaluated[k][i], w, rel)
			}
		}
	}
	t.Logf("the device's Σ f_k and ‖∇f_k‖² against the host's float64 evaluation: at most %.2g relative", worst)
}

// callCounts reads the emulation's call log (L2O_EMU_CALL_LOG) into the
// number of calls of each kind (its lines' first words).
func callCounts(t *testing.T, log string) map[string]int {
	t.Helper()
	raw, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]int{}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			calls[f[0]]++
		}
	}
	return calls
}

// checkReplayCalls checks the call log of a replayed step and its readout:
// one graph launch and one copy to the host.
func checkReplayCalls(t *testing.T, log string) {
	t.Helper()
	calls := callCounts(t, log)
	if os.Getenv("L2O_CUDA_SYNC") != "" {
		delete(calls, "sync") // the device's debugging mode waits after every launch
	}
	want := map[string]int{"graph": 1, "dtoh": 1}
	if len(calls) != len(want) || calls["graph"] != 1 || calls["dtoh"] != 1 {
		t.Errorf("a replayed step and its readout made the driver calls %v, want %v", calls, want)
	}
}

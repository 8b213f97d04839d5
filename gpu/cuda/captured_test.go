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
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// uncaptured is the device without its captures: a gpu.Ops alone, which
// the step loss runs one operation at a time.
type uncaptured struct{ gpu.Ops }

// TestCapturedStepLossAgrees runs the same sequence of M-PC step-loss
// evaluations (block 0, block 1, the full gradient and the value alone, at
// moving points, over two steps) on the device, which captures each kind of
// evaluation into a graph at its second run and replays it afterwards, and
// on the device without captures, and checks that values and gradients are
// bitwise the same; on the emulation, that graphs were launched.
func TestCapturedStepLossAgrees(t *testing.T) {
	d := device(t)
	calls := filepath.Join(t.TempDir(), "calls.txt")
	if emulated(d) {
		t.Setenv("L2O_EMU_CALL_LOG", calls)
	}
	o := testproblems.Deblur(t, 3, 16, "", -1, 3)
	m, err := models.ParseMethod("m-pc")
	if err != nil {
		t.Fatal(err)
	}
	losses := make([]*steploss.StepLoss, 2)
	for i, ops := range []gpu.Ops{d, uncaptured{d}} {
		if losses[i], err = steploss.NewStepLossOn(m, o, 1/o.L, ops); err != nil {
			t.Fatal(err)
		}
		defer losses[i].Close()
	}
	g := make([]float64, len(o.X0))
	if err := o.Eval(nil, g, o.X0, nil); err != nil {
		t.Fatal(err)
	}
	x, p := o.X0, make([]float64, len(g))
	for step := range 2 {
		for i := range p {
			p[i] = 0.01 * float64(step+1) * g[i]
		}
		for _, s := range losses {
			if err := s.SetStep(x, g, p, 0.01, 0.01); err != nil {
				t.Fatal(err)
			}
		}
		u := losses[0].Reference()
		for round := range 4 {
			for kind := range 4 {
				for i := range u {
					u[i] *= 0.97 + 0.01*float64(kind+round)
				}
				var vals [2]float64
				var grads [2][]float64
				for i, s := range losses {
					var err error
					switch kind {
					case 0, 1:
						grads[i] = make([]float64, s.BlockLen(kind))
						vals[i], err = s.EvalBlock(kind, u, grads[i])
					case 2:
						grads[i] = make([]float64, len(u))
						vals[i], err = s.Eval(u, grads[i])
					default:
						vals[i], err = s.Eval(u, nil)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				if math.Float64bits(vals[0]) != math.Float64bits(vals[1]) || math.IsNaN(vals[0]) {
					t.Errorf("step %d round %d kind %d: value %.17g captured, %.17g not", step, round, kind, vals[0], vals[1])
				}
				for j := range grads[0] {
					if math.Float64bits(grads[0][j]) != math.Float64bits(grads[1][j]) {
						t.Errorf("step %d round %d kind %d: gradient %d: %.17g captured, %.17g not", step, round, kind, j, grads[0][j], grads[1][j])
						break
					}
				}
			}
		}
	}
	if emulated(d) {
		raw, err := os.ReadFile(calls)
		if err != nil {
			t.Fatal(err)
		}
		// Two steps, four kinds, each captured at its second run and
		// launched at the later two at least (SetStep's own evaluations
		// add some): 16 graph launches or more.
		if n := strings.Count(string(raw), "\ngraph "); n < 16 {
			t.Errorf("%d graph launches, want at least 16", n)
		}
	}
}

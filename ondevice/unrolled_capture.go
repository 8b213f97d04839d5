package ondevice

import (
	"fmt"
	"slices"

	"github.com/greedyl2o/greedyl2o/gpu"
)

// capturedSteps are the unrolled loss's trajectory steps as graphs, on a
// device that captures (gpu.Capturer) with every term PC: once a step's
// parameters are set, its forward work and its reverse work queue nothing
// that depends on a host value but the weights c. Each is captured at the
// second evaluation with gradients (the first allocates what they need)
// and replayed by one launch; other weights capture them again.
type capturedSteps struct {
	capture gpu.Capturer // nil: the steps run one operation at a time
	graphs  []gpu.Graph  // the forward work of step t at t, its reverse work at T+t
	c       []float64    // the weights the graphs were captured with
	runs    int          // evaluations with gradients at c run uncaptured
}

func newCapturedSteps(mem *gpu.Arena, up *Update, steps int) *capturedSteps {
	cs := &capturedSteps{}
	if c, ok := mem.Ops().(gpu.Capturer); ok && up.AllSpectral() {
		cs.capture, cs.graphs = c, make([]gpu.Graph, 2*steps)
		mem.OnClose(cs.drop)
	}
	return cs
}

// drop destroys the graphs.
func (cs *capturedSteps) drop() {
	for i, g := range cs.graphs {
		if g != nil {
			g.Destroy()
			cs.graphs[i] = nil
		}
	}
}

// stepRunner runs the steps' work of one evaluation: queued one operation
// at a time, or by their graphs (captured first where missing).
type stepRunner struct {
	cs     *capturedSteps
	replay bool
}

// steps returns the runner of an evaluation of T steps with weights c,
// with gradients or not.
func (d *Unrolled) steps(T int, c []float64, grad bool) *stepRunner {
	cs := d.captured
	r := &stepRunner{cs: cs}
	if cs.capture == nil || !grad || 2*T != len(cs.graphs) {
		return r
	}
	if !slices.Equal(c, cs.c) {
		cs.drop()
		cs.c, cs.runs = append(cs.c[:0], c...), 0
	}
	r.replay = cs.runs > 0
	return r
}

// capturing reports whether the steps run as graphs.
func (r *stepRunner) capturing() bool { return r.replay }

// run runs the work fn of graph k: its graph, captured first if missing,
// or fn itself.
func (r *stepRunner) run(k int, fn func() error) error {
	if !r.replay {
		return fn()
	}
	g := r.cs.graphs[k]
	if g == nil {
		var err error
		if g, err = r.cs.capture.CaptureGraph(fn); err != nil {
			return fmt.Errorf("ondevice: unrolled loss: capture a step: %w", err)
		}
		r.cs.graphs[k] = g
	}
	return g.Launch()
}

// done counts an evaluation with gradients that ran uncaptured.
func (r *stepRunner) done() {
	if !r.replay {
		r.cs.runs++
	}
}

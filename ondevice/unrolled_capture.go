package ondevice

import (
	"fmt"
	"slices"

	"github.com/greedyl2o/greedyl2o/gpu"
)

// capturedSteps are a loss's passes as graphs, on a device that captures
// (gpu.Capturer), where the passes queue nothing that depends on a host
// value but a key (the unrolled loss: each trajectory step's forward and
// reverse work, the key its weights c; Banert's loss: its forward and
// reverse passes for each T, no key). Each graph is captured at its first
// use after an evaluation with gradients at the key has run uncaptured
// (it allocates what they need), and replayed by one launch from then on;
// another key captures them again.
type capturedSteps struct {
	what    string       // the loss, for errors
	capture gpu.Capturer // nil: the passes run one operation at a time
	graphs  []gpu.Graph
	key     []float64 // the key the graphs were captured at
	runs    int       // evaluations with gradients at key run uncaptured
}

// newCapturedSteps returns n graphs' slots on mem's device when it
// captures and use holds (and no slots otherwise); the graphs are freed
// with mem.
func newCapturedSteps(mem *gpu.Arena, what string, n int, use bool) *capturedSteps {
	cs := &capturedSteps{what: what}
	if c, ok := mem.Ops().(gpu.Capturer); ok && use {
		cs.capture, cs.graphs = c, make([]gpu.Graph, n)
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

// stepRunner runs the passes' work of one evaluation: queued one operation
// at a time, or by their graphs (captured first where missing).
type stepRunner struct {
	cs     *capturedSteps
	replay bool
}

// runner returns the runner of an evaluation at key: by graphs where use
// holds (an evaluation with gradients whose passes fit the slots) and an
// evaluation at key has run uncaptured.
func (cs *capturedSteps) runner(key []float64, use bool) *stepRunner {
	r := &stepRunner{cs: cs}
	if cs.capture == nil || !use {
		return r
	}
	if !slices.Equal(key, cs.key) {
		cs.drop()
		cs.key, cs.runs = append(cs.key[:0], key...), 0
	}
	r.replay = cs.runs > 0
	return r
}

// steps returns the runner of an unrolled evaluation of T steps with
// weights c, with gradients or not.
func (d *Unrolled) steps(T int, c []float64, grad bool) *stepRunner {
	return d.captured.runner(c, grad && 2*T == len(d.captured.graphs))
}

// capturing reports whether the passes run as graphs.
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
			return fmt.Errorf("ondevice: %s: capture: %w", r.cs.what, err)
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

//go:build l2ocuda

package cuda

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/greedyl2o/greedyl2o/gpu"
	"gorgonia.org/cu"
)

// Graph is a sequence of the device's operations captured once (Capture)
// and run again, in the same order on the same buffers, by one Launch: a
// CUDA graph, one driver call in place of a launch or transform each.
// The values in the buffers are read when the graph runs; the buffers, the
// shapes and the scalar arguments are those of the capture.
type Graph struct {
	dev  *Device
	exec cu.ExecGraph
	ops  int
	live bool
}

// Capture calls fn, which queues operations on d, and records them into a
// Graph instead of running them. Only queued work can be captured: kernels,
// cuFFT transforms, copies and zeroing on the device. An operation that
// waits for the device (an allocation, a free, a copy to or from the host,
// a reduction whose result comes back) fails inside fn, and Capture then
// returns an error and no graph; so allocate every buffer before, and read
// results after Launch. No other goroutine may use d during a Capture: its
// work would be captured too.
func (d *Device) Capture(fn func() error) (*Graph, error) {
	// Thread-local capture mode: the driver refuses an unsafe call from
	// this thread, which the whole capture stays on.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := d.beginCapture(); err != nil {
		return nil, err
	}
	fnErr := fn()
	exec, ops, err := d.endCapture()
	switch {
	case fnErr != nil:
		err = errors.Join(fnErr, err)
	case err == nil && ops == 0:
		err = fmt.Errorf("cuda: capture on %s: no operation was queued", d.Name())
	}
	if err != nil {
		if exec != (cu.ExecGraph{}) {
			_ = d.run(exec.Destroy)
		}
		return nil, err
	}
	d.mu.Lock()
	d.graphs++
	d.mu.Unlock()
	return &Graph{dev: d, exec: exec, ops: ops, live: true}, nil
}

// CaptureGraph implements gpu.Capturer with Capture.
func (d *Device) CaptureGraph(fn func() error) (gpu.Graph, error) {
	g, err := d.Capture(fn)
	if err != nil {
		return nil, err
	}
	return g, nil
}

func (d *Device) beginCapture() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.capturing {
		return fmt.Errorf("cuda: capture on %s: a capture is already under way", d.Name())
	}
	if d.stream == (cu.Stream{}) {
		// A blocking stream: the legacy stream, where the device's other
		// work queues, waits for it and it for the legacy stream.
		err := d.run(func() (err error) {
			d.stream, err = cu.MakeStream(cu.DefaultStream)
			return err
		})
		if err != nil {
			return d.fail("create a stream", err)
		}
	}
	if err := d.run(func() error { return d.stream.BeginCapture(cu.CaptureModeThreadLocal) }); err != nil {
		return d.fail("begin a capture", err)
	}
	d.capturing, d.captured, d.captureErr = true, 0, nil
	return nil
}

// endCapture ends the capture and instantiates its graph.
func (d *Device) endCapture() (cu.ExecGraph, int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.capturing = false
	var g cu.Graph
	err := d.run(func() (err error) {
		g, err = d.stream.EndCapture()
		return err
	})
	if err != nil {
		err = d.fail("end the capture", err)
	}
	if d.captureErr != nil {
		err = errors.Join(d.captureErr, err)
	}
	if err != nil {
		if g != (cu.Graph{}) {
			_ = d.run(g.Destroy)
		}
		return cu.ExecGraph{}, 0, err
	}
	var exec cu.ExecGraph
	err = d.run(func() (err error) {
		exec, err = g.Instantiate()
		return err
	})
	_ = d.run(g.Destroy)
	if err != nil {
		return cu.ExecGraph{}, 0, d.fail("instantiate the captured graph", err)
	}
	return exec, d.captured, nil
}

// refuseInCapture returns an error during a capture: op waits for the
// device, which a graph cannot. d.mu is held.
func (d *Device) refuseInCapture(op string) error {
	if !d.capturing {
		return nil
	}
	return fmt.Errorf("cuda: %s on %s during a capture: it waits for the device, which a graph cannot; do it before Capture or after Launch", op, d.Name())
}

// Ops is the number of operations the graph runs (kernels, transforms,
// copies and zeroing on the device).
func (g *Graph) Ops() int { return g.ops }

// Launch queues the graph's operations, in their captured order, as one
// driver call; like the device's other operations it does not wait for
// them (the next copy to the host does).
func (g *Graph) Launch() error {
	d := g.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	if !g.live {
		return fmt.Errorf("cuda: launch a graph on %s: it was destroyed", d.Name())
	}
	if err := d.refuseInCapture("launch a graph"); err != nil {
		return err
	}
	if err := d.run(func() error { return g.exec.Launch(d.stream) }); err != nil {
		return d.fail(fmt.Sprintf("launch a graph of %d operations", g.ops), err)
	}
	if err := d.waitIfSyncEach(); err != nil {
		return d.fail(fmt.Sprintf("run a graph of %d operations", g.ops), err)
	}
	return nil
}

// Destroy releases the graph; it is safe to call more than once.
func (g *Graph) Destroy() {
	d := g.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	if g.live {
		g.live = false
		_ = d.run(g.exec.Destroy)
		d.graphs--
	}
}

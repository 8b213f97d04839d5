package steploss

import (
	"fmt"
	"slices"

	"github.com/greedyl2o/greedyl2o/gpu"
)

// DescendBlock runs len(betas) iterations of Nesterov's accelerated
// gradient with constant step on block b (0: θ, 1: φ) of the loss, from u,
// the other block held at u's values, and writes the result into u's
// block b: iteration k extrapolates y = u + βk(u − prev) (prev = u at the
// start, so β0 does not matter), evaluates the block's gradient at y and
// steps u = y − step·∇b g(y), as a loop over EvalBlock does. It runs where
// the loss is on a device whose ops do the update (gpu.NAGOps) and block b
// is a PC term: then the iterates u, y, the block gradient and the table of
// β live on the device (the devicePass), an iteration is the device pass
// at y with θ taken from y there and the update, nothing copied either
// way; on a device that captures (gpu.Capturer) iterations after the first
// are one captured graph replayed. u is copied in once and read back once.
// The value of g is read back once, at the last iteration's y, and only
// for an observer (Observe), which sees it once with the evaluations so
// far. Each iteration counts one evaluation. ok is false, and nothing is
// done, where the loss cannot run the block so.
func (s *StepLoss) DescendBlock(b int, u []float64, step float64, betas []float64) (ok bool, err error) {
	e, isEngine := s.ev.(*engine[float64])
	if !isEngine || e.dev == nil || b < 0 || b >= len(terms(s.method)) || !e.dev.canDescend(b) {
		return false, nil
	}
	if len(u) != s.Dim() {
		return true, fmt.Errorf("step loss: %d parameters, want %d", len(u), s.Dim())
	}
	if len(betas) == 0 {
		return true, nil
	}
	s.haveLast, s.haveBlock = false, false
	params := s.split(u)
	ref, lam := s.refTheta, s.lambdaValue
	if b == 1 {
		ref, lam = s.refPhi, s.muValue
	}
	value, y, err := e.dev.descend(descent{
		block: b, params: params, ref: ref, lambda: lam, step: step, betas: betas,
		weight: e.dev.up.Sign(b) / float64(e.total), wantValue: s.observe != nil,
	})
	if err != nil {
		return true, err
	}
	s.evaluations += len(betas)
	if s.observe != nil {
		at := slices.Clone(params)
		at[b] = y
		s.notify(value/float64(e.total) + s.penalties(at, nil))
	}
	return true, nil
}

// descent is one call of DescendBlock on the device pass: block's
// parameters params[block] move (the view is written at the end), the
// others are held; ref and lambda are the block's penalty, weight the
// block gradient's factor sign/N on the readout's image.
type descent struct {
	block        int
	params       [][]float64
	ref          []float64
	lambda, step float64
	betas        []float64
	weight       float64
	wantValue    bool
}

// nagState is the device pass's buffers for DescendBlock: the iterates u
// and y, the block's reference, the table of β (table: its values) and
// the iteration count read by gpu.NAGOps.NAGUpdate.
type nagState struct {
	u, y, ref, betas, count gpu.Buffer
	table, refHost          []float64
}

// canDescend says whether DescendBlock can run block b on the device.
func (d *devicePass) canDescend(b int) bool {
	_, ok := d.ops.(gpu.NAGOps)
	return ok && b < len(d.outs) && d.outs[b] != nil && d.up.CanSetParamsOn(b)
}

// descend runs the iterations of a DescendBlock and returns, if asked,
// the sum of fk at the last iteration's y, and that y.
func (d *devicePass) descend(r descent) (value float64, y []float64, err error) {
	if !d.loaded {
		return 0, nil, fmt.Errorf("step loss: SetStep was not called")
	}
	b, n := r.block, len(r.betas)
	for i := range r.params {
		if i == b {
			continue
		}
		if err := d.up.SetTermParams(i, r.params[i]); err != nil {
			return 0, nil, fmt.Errorf("step loss: %w", err)
		}
	}
	st, err := d.nagBuffers(len(r.params[b]), n)
	if err != nil {
		return 0, nil, err
	}
	if err := d.startDescent(st, r); err != nil {
		return 0, nil, fmt.Errorf("step loss on %s: %w", d.ops.Name(), err)
	}
	d.reads, d.valueAt = append(d.reads[:0], b), d.outs[b]
	nag := d.ops.(gpu.NAGOps)
	iterate := func() error {
		if err := d.up.SetParamsOn(b, st.y); err != nil {
			return err
		}
		if err := d.queue(true); err != nil {
			return err
		}
		return nag.NAGUpdate(st.u, st.y, d.outs[b], st.ref, st.betas, st.count, r.weight, r.lambda, r.step)
	}
	var g gpu.Graph
	defer func() {
		if g != nil {
			g.Destroy()
		}
	}()
	for it := 0; it < n; it++ {
		switch {
		case r.wantValue && it == n-1:
			value, y, err = d.lastIteration(st, r, iterate)
		case d.capture != nil && it > 0:
			if g == nil {
				if g, err = d.capture.CaptureGraph(iterate); err != nil {
					return 0, nil, fmt.Errorf("step loss on %s: capture a NAG iteration: %w", d.ops.Name(), err)
				}
			}
			err = g.Launch()
		default:
			err = iterate()
		}
		if err != nil {
			return 0, nil, fmt.Errorf("NAG iteration %d: %w", it, err)
		}
	}
	if err := d.ops.CopyOut(r.params[b], st.u); err != nil {
		return 0, nil, fmt.Errorf("step loss on %s: read back the block: %w", d.ops.Name(), err)
	}
	return value, y, nil
}

// lastIteration is iterate with the value and y read back between the
// pass and the update.
func (d *devicePass) lastIteration(st *nagState, r descent, iterate func() error) (float64, []float64, error) {
	b := r.block
	if err := d.up.SetParamsOn(b, st.y); err != nil {
		return 0, nil, err
	}
	if err := d.queue(true); err != nil {
		return 0, nil, err
	}
	var sum [1]float64
	if err := d.ops.ReadOut(nil, sum[:], d.outs[b]); err != nil {
		return 0, nil, err
	}
	y := make([]float64, len(r.params[b]))
	if err := d.ops.CopyOut(y, st.y); err != nil {
		return 0, nil, err
	}
	err := d.ops.(gpu.NAGOps).NAGUpdate(st.u, st.y, d.outs[b], st.ref, st.betas, st.count, r.weight, r.lambda, r.step)
	return sum[0], y, err
}

// startDescent copies the block's start to u and y, its reference and
// the table of β (each only when it changed) and zeroes the count. The
// table's value k is the β of iteration k+1: the update after iteration
// k's gradient extrapolates for the next.
func (d *devicePass) startDescent(st *nagState, r descent) error {
	o := d.ops
	if err := o.CopyIn(st.u, r.params[r.block]); err != nil {
		return err
	}
	if err := o.Copy(st.y, st.u); err != nil {
		return err
	}
	if !slices.Equal(st.refHost, r.ref) {
		if err := o.CopyIn(st.ref, r.ref); err != nil {
			return err
		}
		st.refHost = append(st.refHost[:0], r.ref...)
	}
	table := make([]float64, len(r.betas))
	copy(table, r.betas[1:])
	if !slices.Equal(st.table, table) {
		if err := o.CopyIn(st.betas, table); err != nil {
			return err
		}
		st.table = table
	}
	return o.Zero(st.count)
}

// nagBuffers returns the descent's buffers for a block of size values and
// a table of n values, allocated on first use (and the table again when a
// longer one is needed).
func (d *devicePass) nagBuffers(size, n int) (*nagState, error) {
	st := d.nag
	if st == nil {
		st = &nagState{}
		for _, b := range []*gpu.Buffer{&st.u, &st.y, &st.ref} {
			var err error
			if *b, err = d.alloc(size); err != nil {
				return nil, err
			}
		}
		var err error
		if st.count, err = d.alloc(1); err != nil {
			return nil, err
		}
		d.nag = st
	}
	if st.u.Len() != size {
		return nil, fmt.Errorf("step loss: NAG's blocks on the device have %d and %d values", st.u.Len(), size)
	}
	if st.betas == nil || st.betas.Len() < n {
		var err error
		if st.betas, err = d.alloc(n); err != nil {
			return nil, err
		}
		st.table = nil
	}
	return st, nil
}

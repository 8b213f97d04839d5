package gpu

import (
	"fmt"
	"math"
)

// NAGOps are the vector work of an iteration of Nesterov's accelerated
// gradient with constant step on a device, its vectors in the device's
// buffers, the iteration's momentum weight read there from a table: so an
// iteration (the objective's gradient at y, then NAGUpdate) queues no host
// value that changes from one iteration to the next, and can be captured
// once (Capturer) and replayed.
type NAGOps interface {
	// NAGUpdate writes, value by value (equal lengths of u, y, g and ref),
	//
	//	u⁺ = y − step·(c·g + λ·(y − ref)),  y ← u⁺ + β·(u⁺ − u),  u ← u⁺,
	//
	// with β = betas[k] (0 for k outside the table), k the value of
	// count's one value, to which it then adds 1: g is the gradient of
	// the objective's data part at y times 1/c, λ the weight of the penalty
	// λ/2‖· − ref‖². u, y and count are written; g, ref and betas read.
	NAGUpdate(u, y, g, ref, betas, count Buffer, c, lambda, step float64) error
}

// NAGBetas returns the momentum weights β of n iterations of NAG as
// greedy.NAG's loop computes them, the table NAGUpdate reads: βk =
// (tk − 1)/tk+1, t0 = 1, tk+1 = (1 + √(1 + 4tk²))/2.
func NAGBetas(n int) []float64 {
	betas := make([]float64, n)
	tk := 1.0
	for k := range betas {
		tn := (1 + math.Sqrt(1+4*tk*tk)) / 2
		betas[k] = (tk - 1) / tn
		tk = tn
	}
	return betas
}

var (
	_ NAGOps = CPU()
	_ NAGOps = Host32()
)

// NAGUpdate implements NAGOps, in the device's precision F.
func (d *hostOps[F]) NAGUpdate(u, y, g, ref, betas, count Buffer, c, lambda, step float64) error {
	const op = "nag update"
	uv, err := d.values(u, -1, op, "u")
	if err != nil {
		return err
	}
	n := len(uv)
	yv, err := d.values(y, n, op, "y")
	if err != nil {
		return err
	}
	gv, err := d.values(g, n, op, "the gradient")
	if err != nil {
		return err
	}
	rv, err := d.values(ref, n, op, "the reference")
	if err != nil {
		return err
	}
	bv, err := d.values(betas, -1, op, "the table of β")
	if err != nil {
		return err
	}
	kv, err := d.values(count, 1, op, "the count")
	if err != nil {
		return err
	}
	if d.hasAlias(u, y, g, ref, betas, count) {
		return fmt.Errorf("gpu: %s %s: its buffers must be distinct", d.name, op)
	}
	var beta F
	if k := int(kv[0]); k >= 0 && k < len(bv) {
		beta = bv[k]
	}
	cf, lf, sf := F(c), F(lambda), F(step)
	for i, yi := range yv {
		next := yi - sf*(cf*gv[i]+lf*(yi-rv[i]))
		yv[i] = next + beta*(next-uv[i])
		uv[i] = next
	}
	kv[0]++
	return nil
}

// hasAlias reports whether two of the buffers are the same.
func (d *hostOps[F]) hasAlias(bs ...Buffer) bool {
	for i := range bs {
		for j := i + 1; j < len(bs); j++ {
			if bs[i] == bs[j] {
				return true
			}
		}
	}
	return false
}

package greedy

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"fmt"
	"hash"
	"math"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// world is where a run's training functions live: one process holding
// all n of them (link nil), or one of several processes each holding a
// contiguous block [lo, hi) of them (Method.Divide). Every per-function
// quantity of a step (f, ∇f, the iterates) is computed on the process
// that holds the function; what a step needs of all of them is combined
// here in function order, so that every process gets one process's
// numbers bit for bit: per-function values gathered (a few per function),
// sums over functions passed along the link as running sums.
type world struct {
	lo, hi, n int
	link      steploss.Gatherer // nil: one process
}

// RootGatherer is a Link that can also gather every block's values on the
// first block's process alone (mpi.Chain: MPI_Gather to rank 0), which
// writes the checkpoint. Links without it gather on every process.
type RootGatherer interface {
	// GatherRoot returns, on the first block's process, the concatenation
	// of every block's local values in block order; nil elsewhere.
	GatherRoot(local []float64) ([]float64, error)
}

// newWorld returns the world of a run on o's functions: this process's
// block of Divide, or all of them. A block of an operator that applies
// images in groups must hold whole groups (steploss.GroupBlocks), so that
// its functions' values and gradients are those of the whole batch.
func newWorld(o *problem.Objective, d *Divide) (world, error) {
	n := o.N
	if d == nil {
		return world{lo: 0, hi: n, n: n}, nil
	}
	if d.Total > 0 {
		n = d.Total
	}
	g, ok := d.Link.(steploss.Gatherer)
	if d.Lo < 0 || d.Hi > n || d.Lo >= d.Hi || !ok || (d.Total > 0 && o.N != d.Hi-d.Lo) {
		return world{}, fmt.Errorf("greedy: dividing the training: block [%d, %d) of %d functions (the objective holding all of them, or with Total the block's: it holds %d) and a link that gathers (steploss.Gatherer) wanted", d.Lo, d.Hi, n, o.N)
	}
	if d.Total > 0 && o.Varied() && (d.Family == nil || d.Family.N != n) {
		return world{}, fmt.Errorf("greedy: dividing the training: a block of functions that differ by more than their data (%s, %s) needs every function's operators and weights (Divide.Family: problem.Problem.Family of %d functions)", o.A, o.Reg, n)
	}
	if grp := o.BatchGroup(); d.Lo%grp != 0 || (d.Hi%grp != 0 && d.Hi != n) {
		return world{}, fmt.Errorf("greedy: dividing the training: block [%d, %d) of %d functions splits a group of the %d images the operator applies together: take the blocks of steploss.GroupBlocks", d.Lo, d.Hi, n, grp)
	}
	return world{lo: d.Lo, hi: d.Hi, n: n, link: g}, nil
}

// dividesValidation reports whether d divides the validation functions
// between the processes (Divide.ValTotal).
func (d *Divide) dividesValidation() bool { return d != nil && d.ValTotal > 0 }

// newValWorld returns the world of the validation functions v (this
// process's, nil when it holds none): this process's block of
// Divide.ValTotal, or all of them on every process. A block of an
// operator that applies images in groups holds whole groups, as the
// training functions' do.
func newValWorld(v *problem.Objective, d *Divide) (world, error) {
	if !d.dividesValidation() {
		return world{lo: 0, hi: v.N, n: v.N}, nil
	}
	held := 0
	if v != nil {
		held = v.N
	}
	lo, hi, n := d.ValLo, d.ValHi, d.ValTotal
	g, ok := d.Link.(steploss.Gatherer)
	if lo < 0 || hi > n || lo > hi || !ok || held != hi-lo {
		return world{}, fmt.Errorf("greedy: dividing the validation functions: block [%d, %d) of %d (Problem.Validation holding %d of them, nil for none) and a link that gathers (steploss.Gatherer) wanted", lo, hi, n, held)
	}
	if v != nil {
		if grp := v.BatchGroup(); lo%grp != 0 || (hi%grp != 0 && hi != n) {
			return world{}, fmt.Errorf("greedy: dividing the validation functions: block [%d, %d) of %d splits a group of the %d images the operator applies together: take the blocks of steploss.GroupBlocks", lo, hi, n, grp)
		}
	}
	return world{lo: lo, hi: hi, n: n, link: g}, nil
}

// sumFloats is checkpoint.SumFloats of every block's v, in function
// order: the SHA-256 state passes from block to block.
func (w world) sumFloats(v []float64) (string, error) {
	if !w.divided() {
		return checkpoint.SumFloats(v), nil
	}
	h := sha256.New()
	if err := HashAlong(w.link, h, func(h hash.Hash) { checkpoint.WriteFloats(h, v) }); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// HashAlong hashes every process's contents in process order, each
// process's add writing its own: h's state passes along link from the
// processes before this one (the first starts from h's), and every
// process ends with h holding the state after the last process's add.
// h must marshal its state (encoding.BinaryMarshaler: the standard
// library's hashes do).
func HashAlong(link steploss.Link, h hash.Hash, add func(hash.Hash)) error {
	m, ok1 := h.(encoding.BinaryMarshaler)
	u, ok2 := h.(encoding.BinaryUnmarshaler)
	if !ok1 || !ok2 {
		return fmt.Errorf("greedy: a %T cannot pass its state from process to process", h)
	}
	start, err := m.MarshalBinary()
	if err != nil {
		return err
	}
	// A byte a value, as the link carries float64s; -1 marks the first
	// process, which receives nothing.
	state := make([]float64, len(start))
	state[0] = -1
	setState := func(s []float64) error {
		b := make([]byte, len(s))
		for i, x := range s {
			b[i] = byte(x)
		}
		return u.UnmarshalBinary(b)
	}
	err = sumAlong(link, state, func(s []float64) error {
		if s[0] != -1 {
			if err := setState(s); err != nil {
				return err
			}
		}
		add(h)
		b, err := m.MarshalBinary()
		if err != nil {
			return err
		}
		if len(b) != len(s) {
			return fmt.Errorf("greedy: a hash state of %d bytes, want %d", len(b), len(s))
		}
		for i, c := range b {
			s[i] = float64(c)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return setState(state)
}

// divided reports whether other processes hold some of the functions.
func (w world) divided() bool { return w.link != nil }

// first reports whether this process holds the first block (it writes the
// checkpoint and reports).
func (w world) first() bool { return w.lo == 0 }

// part returns this block's part of v, laid out as one block of len(v)/n
// values per function.
func (w world) part(v []float64) []float64 {
	m := len(v) / w.n
	return v[w.lo*m : w.hi*m]
}

// all returns every function's values in function order, local being this
// block's (one or more per function).
func (w world) all(local []float64) ([]float64, error) {
	if !w.divided() {
		return local, nil
	}
	all, _, err := w.link.Gather(local)
	if err != nil {
		return nil, fmt.Errorf("greedy: gathering the blocks' values: %w", err)
	}
	return all, nil
}

// toFirst returns every function's values in function order on the first
// block's process (nil elsewhere), local being this block's.
func (w world) toFirst(local []float64) ([]float64, error) {
	if !w.divided() {
		return local, nil
	}
	if r, ok := w.link.(RootGatherer); ok {
		all, err := r.GatherRoot(local)
		if err != nil {
			return nil, fmt.Errorf("greedy: gathering the iterates: %w", err)
		}
		return all, nil
	}
	all, err := w.all(local)
	if !w.first() {
		return nil, err
	}
	return all, err
}

// sum continues the running sums of the blocks before this one with this
// block's functions (add, in function order) and leaves in sums the
// complete sums of every block, on every process.
func (w world) sum(sums []float64, add func(sums []float64) error) error {
	if !w.divided() {
		return add(sums)
	}
	return sumAlong(w.link, sums, add)
}

// sumAlong receives the running sums of the processes before this one over
// link, continues them with add and passes them on, leaving every
// process's complete sums in sums.
func sumAlong(link steploss.Link, sums []float64, add func(sums []float64) error) error {
	if err := link.Before(sums); err != nil {
		return fmt.Errorf("greedy: receiving the running sums: %w", err)
	}
	if err := add(sums); err != nil {
		return err
	}
	if err := link.After(sums); err != nil {
		return fmt.Errorf("greedy: passing the running sums on: %w", err)
	}
	return nil
}

// max returns the largest of every process's v (NaN if any is NaN).
func (w world) max(v float64) (float64, error) {
	all, err := w.all([]float64{v})
	if err != nil {
		return 0, err
	}
	m := all[0]
	for _, x := range all[1:] {
		if math.IsNaN(x) || x > m {
			m = x
		}
	}
	return m, nil
}

// mean returns (1/n) Σk vals[k] over every function in function order,
// vals being this block's values: Objective.Mean's sum.
func (w world) mean(vals []float64) (float64, error) {
	all, err := w.all(vals)
	if err != nil {
		return math.NaN(), err
	}
	var s float64
	for _, v := range all {
		s += v
	}
	return s / float64(w.n), nil
}

package steploss

import (
	"errors"
	"fmt"

	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
)

// Blocks splits n functions into k contiguous blocks of sizes differing by
// at most one, the larger first: the shards of a step loss. k is clamped
// to [1, n].
func Blocks(n, k int) [][2]int {
	k = max(1, min(k, n))
	out := make([][2]int, 0, k)
	lo := 0
	for b := range k {
		size := n / k
		if b < n%k {
			size++
		}
		out = append(out, [2]int{lo, lo + size})
		lo += size
	}
	return out
}

// GroupBlocks is Blocks for functions whose operator applies images in
// groups of g from the batch's first (problem.Objective.BatchGroup): the
// ⌈n/g⌉ groups split into k blocks, so that every block but the last holds
// whole groups and a block's functions are computed as in the whole batch.
// k is clamped to [1, ⌈n/g⌉].
func GroupBlocks(n, k, g int) [][2]int {
	g = max(g, 1)
	out := Blocks((n+g-1)/g, k)
	for i, b := range out {
		out[i] = [2]int{b[0] * g, min(b[1]*g, n)}
	}
	return out
}

// shardEngine is what a shard needs of an engine (engine[F], either F).
type shardEngine interface {
	stepEvaluator
	startSums(grads [][]float64) *partialSums
	accumulate(params, grads [][]float64, acc *partialSums) error
	pass(params, grads [][]float64, acc *partialSums) error
	addTo(grads [][]float64, acc *partialSums) error
	finish(acc *partialSums, grads [][]float64) float64
	setTotal(n int)
	holdProducts()
	gatherOperands(g func(local []float64) ([]float64, int, error))
}

// setTotal makes the engine a block of a step loss on n functions.
func (s *engine[F]) setTotal(n int) { s.total = n }

// shards evaluates the data part block by block: one engine per contiguous
// block of the functions, the running sums (partialSums) passed from each
// block to the next in function order, then finished once. The results are
// bitwise those of one engine on every function, for any blocks.
type shards struct {
	blocks  [][2]int
	engines []shardEngine
	hw      int
	// operands are the step's g and p while setStep binds the engines: a
	// reduced term's shard builds its subspace from every function's
	// operand (gather), as a linked block does from every process's.
	operands [2][]float64
}

// newShards builds the evaluator of m on o in the given blocks of o's
// functions, each block on the path paths selects for it, and returns the
// reducers of its reduced terms (nil without any).
func newShards(m models.Method, o *problem.Objective, refs [][]float64, paths stepPaths, blocks [][2]int) (*shards, []models.Reducer, error) {
	sh := &shards{blocks: blocks, hw: o.ImageLen()}
	paths.shards = nil
	var reds []models.Reducer
	for _, b := range blocks {
		sub, err := o.Block(b[0], b[1])
		if err != nil {
			return nil, nil, fmt.Errorf("step loss: shard %v: %w", b, err)
		}
		ev, r, err := newEvaluator(m, sub, refs, paths)
		if err != nil {
			sh.close()
			return nil, nil, err
		}
		e, ok := ev.(shardEngine)
		if !ok {
			ev.close()
			sh.close()
			return nil, nil, fmt.Errorf("step loss: the %s evaluator does not divide into shards (the engine's paths do)", ev.kind())
		}
		if reds = r; r != nil {
			e.gatherOperands(sh.gather(len(sh.engines)))
		}
		e.setTotal(o.N)
		sh.engines = append(sh.engines, e)
	}
	return sh, reds, nil
}

// gather returns shard b's gather of every shard's operands: the step's
// operand whose part shard b's local is, and where b's functions begin.
func (sh *shards) gather(b int) func(local []float64) ([]float64, int, error) {
	return func(local []float64) ([]float64, int, error) {
		at := sh.blocks[b][0] * sh.hw
		for _, full := range sh.operands {
			if len(local) > 0 && len(full) > at && &full[at] == &local[0] {
				return full, at, nil
			}
		}
		return nil, 0, fmt.Errorf("shard %d: an operand that is not the step's", b)
	}
}

func (sh *shards) kind() string {
	return fmt.Sprintf("%s in %d shards", sh.engines[0].kind(), len(sh.engines))
}

// part returns block b's part of v (v itself if it is not one value per
// pixel of every function: an unused p).
func (sh *shards) part(v []float64, b int, n int) []float64 {
	if len(v) != n {
		return v
	}
	return v[sh.blocks[b][0]*sh.hw : sh.blocks[b][1]*sh.hw]
}

// setStep implements stepEvaluator: the reductions are the first shard's
// (every shard's are the same subspace, with the curvature of all the
// functions).
func (sh *shards) setStep(x, g, p []float64) ([]models.Reduction, error) {
	sh.operands = [2][]float64{g, p}
	defer func() { sh.operands = [2][]float64{} }()
	var reds []models.Reduction
	for b, e := range sh.engines {
		r, err := e.setStep(sh.part(x, b, len(x)), sh.part(g, b, len(x)), sh.part(p, b, len(x)))
		if err != nil {
			return nil, err
		}
		if b == 0 {
			reds = r
		}
	}
	return reds, nil
}

func (sh *shards) eval(params, grads [][]float64) (float64, error) {
	acc := sh.engines[0].startSums(grads)
	for _, e := range sh.engines {
		if err := e.accumulate(params, grads, acc); err != nil {
			return 0, err
		}
	}
	return sh.engines[0].finish(acc, grads), nil
}

func (sh *shards) next(dst []float64, params [][]float64) error {
	for b, e := range sh.engines {
		if err := e.next(sh.part(dst, b, len(dst)), params); err != nil {
			return err
		}
	}
	return nil
}

func (sh *shards) bytes() int64 {
	var t int64
	for _, e := range sh.engines {
		t += e.bytes()
	}
	return t
}

func (sh *shards) close() error {
	var errs []error
	for _, e := range sh.engines {
		errs = append(errs, e.close())
	}
	return errors.Join(errs...)
}

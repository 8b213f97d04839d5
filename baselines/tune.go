package baselines

import (
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/problem"
)

// LBFGSMemories are the memories TuneLBFGSMemory tries by default.
var LBFGSMemories = []int{3, 5, 10, 20, 40}

// MemoryScore is one candidate of TuneLBFGSMemory: a memory and its mean
// optimality (or mean objective, without f*) after the tuning iterations.
type MemoryScore struct {
	Memory int
	Score  float64
}

// TuneLBFGSMemory chooses LBFGS's memory for a training objective: it runs
// LBFGS with every memory in memories (nil means LBFGSMemories) for iters
// iterations (0 means 100) on train and returns the memory with the lowest
// mean optimality
//
//	(1/N) Σ_k (f_k(x_k^iters) − f*_k)/(f_k(x_k⁰) − f*_k)
//
// (a function with f_k(x_k⁰) ≤ f*_k counts 0, as in eval), together with the
// score of every candidate in the order tried. fstar holds the f*_k (from
// Optimum, for instance); nil ranks by the mean objective instead, as
// TuneDelta does. A tie goes to the smaller memory. A run that fails scores
// +Inf; if all fail, the first error is returned.
func TuneLBFGSMemory(train *problem.Objective, fstar []float64, iters int, memories []int) (int, []MemoryScore, error) {
	if iters == 0 {
		iters = 100
	}
	if iters < 0 {
		return 0, nil, fmt.Errorf("tune lbfgs memory: %d iterations is negative", iters)
	}
	if train == nil {
		return 0, nil, fmt.Errorf("tune lbfgs memory: training objective is nil")
	}
	if fstar != nil && len(fstar) != train.N {
		return 0, nil, fmt.Errorf("tune lbfgs memory: %d optimal values for %d functions", len(fstar), train.N)
	}
	if memories == nil {
		memories = LBFGSMemories
	}
	if len(memories) == 0 {
		return 0, nil, fmt.Errorf("tune lbfgs memory: no memories to try")
	}
	var f0 []float64
	if fstar != nil {
		f0 = make([]float64, train.N)
		if err := train.Eval(f0, nil, train.X0, nil); err != nil {
			return 0, nil, fmt.Errorf("tune lbfgs memory: %w", err)
		}
	}
	best, bestScore := 0, math.Inf(1)
	var firstErr error
	scores := make([]MemoryScore, 0, len(memories))
	for _, mem := range memories {
		if mem < 1 {
			return 0, nil, fmt.Errorf("tune lbfgs memory: memory %d is not positive", mem)
		}
		score, err := lbfgsScore(train, fstar, f0, iters, mem)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			score = math.Inf(1)
		}
		scores = append(scores, MemoryScore{Memory: mem, Score: score})
		if score < bestScore || (score == bestScore && best != 0 && mem < best) {
			best, bestScore = mem, score
		}
	}
	if best == 0 {
		return 0, scores, fmt.Errorf("tune lbfgs memory: no memory gave a finite score: %w", firstErr)
	}
	return best, scores, nil
}

// lbfgsScore is TuneLBFGSMemory's criterion for one memory.
func lbfgsScore(o *problem.Objective, fstar, f0 []float64, iters, mem int) (float64, error) {
	it, err := LBFGS{Memory: mem}.Start(o)
	if err != nil {
		return 0, err
	}
	for t := 0; t < iters; t++ {
		if err := it.Next(); err != nil {
			return 0, err
		}
	}
	f := make([]float64, o.N)
	if err := o.Eval(f, nil, it.X(), nil); err != nil {
		return 0, err
	}
	var s float64
	for k, v := range f {
		if fstar == nil {
			s += v
		} else if d := f0[k] - fstar[k]; d > 0 {
			s += (v - fstar[k]) / d
		}
	}
	s /= float64(o.N)
	if math.IsNaN(s) {
		return math.Inf(1), nil
	}
	return s, nil
}

package cmd

import (
	"fmt"
	"math"
	"slices"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/mpi"
	"github.com/greedyl2o/greedyl2o/problem"
)

// The exchanges of apply under mpirun (bin/l2o-mpi): each rank iterates
// its block of the test functions; what one process prints and saves is
// combined on rank 0 in function order, and the decisions that follow
// (diverged, every ‖∇fk‖ below --tol) are broadcast so that every rank
// takes the same path.

// total is the number of test functions over every rank.
func (c *applyCmd) total() int { return c.n }

// combineRow returns mean f, max ‖∇fk‖ and whether the iteration diverged,
// from every rank's stats (rowOf's layout), the same on every rank.
func (c *applyCmd) combineRow(stats []float64) (mean, gmax float64, bad bool, err error) {
	if !c.world {
		mean, gmax, bad = rowOf([][]float64{stats}, c.n)
		return mean, gmax, bad, nil
	}
	parts, err := mpi.Gather(stats, 0)
	if err != nil {
		return 0, 0, false, err
	}
	decision := make([]float64, 3)
	if mpi.Rank() == 0 {
		mean, gmax, bad = rowOf(parts, c.n)
		decision[0], decision[1] = mean, gmax
		if bad {
			decision[2] = 1
		}
	}
	if err := mpi.Bcast(decision, 0); err != nil {
		return 0, 0, false, err
	}
	return decision[0], decision[1], decision[2] != 0, nil
}

// save saves the iterates x of iteration t when asked for (applySaver.save);
// under mpirun rank 0 saves every rank's, in function order.
func (c *applyCmd) save(s *applySaver, t int, x []float64, last bool) error {
	if !c.world || !s.wants(t, last) {
		return s.save(t, x, last)
	}
	parts, err := mpi.Gather(x, 0)
	if err != nil {
		return err
	}
	if mpi.Rank() != 0 {
		s.skip(t)
		return nil
	}
	return s.save(t, slices.Concat(parts...), last)
}

// combineGuard returns the safeguard's rejected steps and the fraction of
// learned steps accepted at every iteration, over every rank's functions.
func (c *applyCmd) combineGuard(it baselines.Iterator) (int, []float64, error) {
	local := []float64{0, float64(c.test.N)}
	if r, ok := it.(interface{ Rejected() int }); ok {
		local[0] = float64(r.Rejected())
	}
	if a, ok := it.(interface{ Acceptance() []float64 }); ok {
		local = append(local, a.Acceptance()...)
	}
	if !c.world {
		return int(local[0]), local[2:], nil
	}
	parts, err := mpi.Gather(local, 0)
	if err != nil || mpi.Rank() != 0 {
		return 0, nil, err
	}
	rejected, counts := 0, make([]int, len(local)-2)
	for _, p := range parts {
		rejected += int(p[0])
		for i, a := range p[2:] {
			counts[i] += int(math.Round(a * p[1])) // the rank's accepted count
		}
	}
	acc := make([]float64, len(counts))
	for i, n := range counts {
		acc[i] = float64(n) / float64(c.n)
	}
	return rejected, acc, nil
}

// gatheredTruth stands for every test function where a rank holds its
// block alone (part) and rank 0 saves every function's iterates (save):
// the functions' number and size, and on rank 0 their ground truths,
// gathered in function order (the saved iterates' PSNR and SSIM).
func gatheredTruth(block *problem.Objective, part *eval.Part, save bool) (*problem.Objective, error) {
	whole := &problem.Objective{N: part.Total, H: block.H, W: block.W}
	if !save || block.Truth == nil {
		return whole, nil
	}
	parts, err := mpi.Gather(block.Truth, 0)
	if err != nil {
		return nil, fmt.Errorf("gathering the test functions' ground truths: %w", err)
	}
	if mpi.Rank() == 0 {
		whole.Truth = slices.Concat(parts...)
	}
	return whole, nil
}

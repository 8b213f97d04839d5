package kernels

import (
	"math"
	"math/rand/v2"
)

// PowerIteration estimates the largest eigenvalue of a symmetric positive
// semidefinite map M by power iteration from a fixed random start: the
// operator norms of the parametrizations (M = GᵀG) and the curvature of the
// greedy step loss (M = (1/N) Σ BkᵀBk) use it with their own settings.
type PowerIteration struct {
	// Seed seeds the random start (a PCG with Seed[0], Seed[1]).
	Seed [2]uint64
	// MaxIter bounds the iterations; MinIter are done before the relative
	// change is tested against RelTol.
	MaxIter, MinIter int
	RelTol           float64
}

// Largest returns the estimate λ of the largest eigenvalue of the map that
// apply computes in place (x ← Mx), and whether the relative change between
// two iterations fell to RelTol (settled). A zero iterate gives λ = 0,
// settled.
func (p PowerIteration) Largest(size int, apply func(x []float64) error) (lambda float64, settled bool, err error) {
	r := rand.New(rand.NewPCG(p.Seed[0], p.Seed[1]))
	x := make([]float64, size)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	lam := 0.0
	for it := 0; it < p.MaxIter; it++ {
		nrm := math.Sqrt(Dot(x, x))
		if nrm == 0 {
			return 0, true, nil
		}
		for i := range x {
			x[i] /= nrm
		}
		if err := apply(x); err != nil {
			return 0, false, err
		}
		next := math.Sqrt(Dot(x, x))
		if it > p.MinIter && math.Abs(next-lam) <= p.RelTol*next {
			return next, true, nil
		}
		lam = next
	}
	return lam, false, nil
}

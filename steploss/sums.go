package steploss

import (
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/models"
)

// partialSums are the running sums of one evaluation of the step loss's
// data part over its functions: the seam where the sum over functions
// divides. A block of functions (a shard: an engine on some of the
// functions) adds its functions' contributions to the sums the blocks
// before it left, each function in turn, so that the sums are bitwise
// those of one loop over every function, whatever the blocks and however
// many goroutines each block uses. No 1/N and no penalties: the engine's
// finish applies them once, after the last block.
//
// What each term sums follows its kind: a one-parameter term (the affine
// form, a scalar term in F) Σk ⟨rk, vk⟩ in dots; a spectral term
// Σk conj(v̂k)·r̂k in spectra; a bound term whose adjoint is one weighted
// sum (models.SummedBound) its running sum, in sums, weighted by sign/N in
// finish; any other bound term its gradient itself, in grads, which its
// AddAdjoint continues with the weight sign/N applied inside as the family
// applies it.
type partialSums struct {
	value   float64
	dots    [2]float64
	spectra [][]kernels.Complex[float64]
	on      [2]bool // the spectral sums of this evaluation
	grads   [][]float64
	sums    [][]float64
}

// active reports whether term i's gradient is asked for.
func active(grads [][]float64, i int) bool {
	return grads != nil && i < len(grads) && grads[i] != nil
}

// startSums returns the engine's running sums, zeroed for an evaluation
// whose active terms are those of grads; the bound terms sum into grads.
func (s *engine[F]) startSums(grads [][]float64) *partialSums {
	a := &s.acc
	a.value, a.dots, a.on = 0, [2]float64{}, [2]bool{}
	n := len(s.run.kinds)
	if len(a.spectra) < n {
		a.spectra, a.grads = make([][]kernels.Complex[float64], n), make([][]float64, n)
		a.sums = make([][]float64, n)
	}
	for i, k := range s.run.kinds {
		a.grads[i] = nil
		if a.sums[i] != nil {
			a.sums[i] = a.sums[i][:0]
		}
		if !active(grads, i) {
			continue
		}
		switch k {
		case spectralTerm:
			if a.spectra[i] == nil {
				a.spectra[i] = make([]kernels.Complex[float64], s.run.sl)
			}
			clear(a.spectra[i])
			a.on[i] = true
		case boundTerm:
			if sb := s.summed(i); sb != nil {
				a.sums[i] = append(a.sums[i][:0], make([]float64, sb.SumLen())...)
				continue
			}
			a.grads[i] = grads[i]
		}
	}
	return a
}

// summed returns bound term i if its adjoint is one weighted sum that the
// running sums carry (models.SummedBound), or nil. The device pass sums
// its terms' gradients itself.
func (s *engine[F]) summed(i int) models.SummedBound {
	if s.dev != nil || i >= len(s.bounds) {
		return nil
	}
	sb, _ := s.bounds[i].(models.SummedBound)
	return sb
}

package steploss

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// spectralPowers is implemented by evaluators that hold a PC term's operand
// spectra: the engine (on every pass) and its shards.
type spectralPowers interface {
	// addSpectralPower adds Σk |v̂k(ω)|² of term i's operands to dst (one
	// value per frequency of the half spectrum), in function order, and
	// reports whether term i is a spectral term (false: dst untouched).
	addSpectralPower(i int, dst []float64) (bool, error)
	// spectralTermAt reports whether term i is a spectral term.
	spectralTermAt(i int) bool
	// functions is the number of functions the sums run over (a linked
	// block's: every block's).
	functions() int
}

// SpectralCurvature returns the closed form of block b's data curvature
// ‖(1/N) Σk Bkᵀ Bk‖ (b = 0: θ with operands vk = gk; b = 1: φ with vk = pk)
// when the block is a PC term, Bk θ = θ ⊛ vk (image-sized, circular): the
// map is diagonal in the Fourier basis, so its norm is
//
//	max over ω of (1/N) Σk |v̂k(ω)|²,
//
// v̂k the unnormalised 2-D DFT of the step's operand, summed in function
// order from the spectra the evaluator keeps for the step. ok is false for
// any other block and for evaluators that keep no spectra (the graph
// oracle). A linked block's sum passes along its Link, so every process
// gets the sum over every block's functions. It needs SetStep.
func (s *StepLoss) SpectralCurvature(b int) (c float64, ok bool, err error) {
	sp, has := s.ev.(spectralPowers)
	if !has || b < 0 || b >= len(terms(s.method)) {
		return 0, false, nil
	}
	o := s.obj
	pow := make([]float64, o.H*(o.W/2+1))
	if ok, err = sp.addSpectralPower(b, pow); !ok || err != nil {
		return 0, false, err
	}
	for _, v := range pow {
		c = max(c, v)
	}
	return c / float64(sp.functions()), true, nil
}

// spectralTermAt implements spectralPowers.
func (s *engine[F]) spectralTermAt(i int) bool {
	if s.dev != nil {
		return s.dev.spectralTerm(i) != nil
	}
	return s.affine == nil && i < len(s.run.kinds) && s.run.kinds[i] == spectralTerm
}

// functions implements spectralPowers: a block's total.
func (s *engine[F]) functions() int { return s.total }

// addSpectralPower implements spectralPowers.
func (s *engine[F]) addSpectralPower(i int, dst []float64) (bool, error) {
	if s.dev != nil {
		return s.dev.addSpectralPower(i, dst)
	}
	if !s.spectralTermAt(i) {
		return false, nil
	}
	if !s.loaded {
		return false, fmt.Errorf("step loss: SetStep was not called")
	}
	sl := s.run.sl
	spec := s.run.specs[i]
	for k := range s.n {
		for q, c := range spec[k*sl : (k+1)*sl] {
			re, im := float64(c.Re), float64(c.Im)
			dst[q] += re*re + im*im
		}
	}
	return true, nil
}

// addSpectralPower adds Σk |v̂k|² of term i's operands to dst, if term i is
// a PC term: Σk conj(v̂k)·v̂k on the device, read back as one spectrum.
func (d *devicePass) addSpectralPower(i int, dst []float64) (bool, error) {
	t := d.spectralTerm(i)
	if t == nil {
		return false, nil
	}
	if !d.loaded {
		return false, fmt.Errorf("step loss: SetStep was not called")
	}
	sum := make([]kernels.Complex[float64], len(dst))
	spec := d.up.HeldSpectrum(i)
	if err := t.AddConjSum(sum, spec, spec); err != nil {
		return false, fmt.Errorf("step loss on %s: %w", d.ops.Name(), err)
	}
	for q, c := range sum {
		dst[q] += c.Re
	}
	return true, nil
}

// addSpectralPower implements spectralPowers: the shards' sums in block
// order.
func (sh *shards) addSpectralPower(i int, dst []float64) (bool, error) {
	for _, e := range sh.engines {
		sp, ok := e.(spectralPowers)
		if !ok {
			return false, nil
		}
		if ok, err := sp.addSpectralPower(i, dst); !ok || err != nil {
			return false, err
		}
	}
	return true, nil
}

func (sh *shards) spectralTermAt(i int) bool {
	sp, ok := sh.engines[0].(spectralPowers)
	return ok && sp.spectralTermAt(i)
}

func (sh *shards) functions() int {
	sp, _ := sh.engines[0].(spectralPowers)
	return sp.functions()
}

// addSpectralPower implements spectralPowers: the running sum of the
// blocks before this one, this block's functions added, passed on, so that
// every block ends with the sum over every block's functions.
func (l *linked) addSpectralPower(i int, dst []float64) (bool, error) {
	sp, ok := l.e.(spectralPowers)
	if !ok || !sp.spectralTermAt(i) {
		return false, nil
	}
	if err := l.link.Before(dst); err != nil {
		return false, fmt.Errorf("step loss: receiving the spectral sums: %w", err)
	}
	if _, err := sp.addSpectralPower(i, dst); err != nil {
		return false, err
	}
	if err := l.link.After(dst); err != nil {
		return false, fmt.Errorf("step loss: passing the spectral sums on: %w", err)
	}
	return true, nil
}

func (l *linked) spectralTermAt(i int) bool {
	sp, ok := l.e.(spectralPowers)
	return ok && sp.spectralTermAt(i)
}

func (l *linked) functions() int {
	sp, _ := l.e.(spectralPowers)
	return sp.functions()
}

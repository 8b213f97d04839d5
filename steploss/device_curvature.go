package steploss

// GramDiagonal returns, when the step loss runs on a device (NewStepLossOn)
// and block b (0: θ, 1: φ) is a PC term, the diagonal of the block's data
// curvature map (1/N) Σk BkᵀBk in the Fourier basis,
//
//	d(ω) = (1/N) Σk |v̂k(ω)|²,
//
// one value per frequency of the half spectrum (H rows of W/2+1, row-major,
// as kernels.FFT2T), summed on the device from the operand spectra it holds
// for the step and read back by one copy. ok is false for any other block
// or evaluator. It needs SetStep.
func (s *StepLoss) GramDiagonal(b int) (d []float64, ok bool, err error) {
	e, isEngine := s.ev.(*engine[float64])
	if !isEngine || e.dev == nil || b < 0 || b >= len(terms(s.method)) {
		return nil, false, nil
	}
	d = make([]float64, s.obj.H*(s.obj.W/2+1))
	if ok, err = e.dev.addSpectralPower(b, d); !ok || err != nil {
		return nil, false, err
	}
	inv := 1 / float64(s.obj.N)
	for q := range d {
		d[q] *= inv
	}
	return d, true, nil
}

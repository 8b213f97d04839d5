package gputest

import (
	"errors"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/kernels"
)

// fused checks every fused operation of gpu.Ops against the sequence of
// operations it replaces, on the same device and inputs: SpectralMulSum
// (one product scaled by −1, as a sign folded in) against Zero, Axpby and
// SpectralMulAdd; AddIRFFT2 against Copy, IRFFT2 and Axpby; ConjSumIRFFT2
// against SpectralConjSum and IRFFT2; Conv2DResidual against Conv2D and
// Axpby; GradAdjointAxpby (b ≠ 0 and b = 0) against GradAdjoint and Axpby;
// SetDot against ZeroSums and AddDot over a sum holding a value; and
// AddHuberTV against Grad, AddHuberValue and HuberDerivative.
func (c *opsCheck) fused() error {
	var errs []error
	for _, f := range []func() error{c.fusedSpectral, c.fusedImage, c.fusedReadout} {
		if err := f(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// pair runs fused and seq, each after reset, and compares the buffers
// they write (read back after each).
func (c *opsCheck) pair(what string, reset func() error, outs []gpu.Buffer, fused, seq func() error) error {
	run := func(f func() error) ([]float64, error) {
		if err := reset(); err != nil {
			return nil, err
		}
		if err := f(); err != nil {
			return nil, err
		}
		var all []float64
		for _, b := range outs {
			v, err := c.read(b)
			if err != nil {
				return nil, err
			}
			all = append(all, v...)
		}
		return all, nil
	}
	got, err := run(fused)
	if err != nil {
		return err
	}
	want, err := run(seq)
	if err != nil {
		return err
	}
	return c.closeVec(what+" against its sequence of operations", got, want)
}

func (c *opsCheck) fusedSpectral() error {
	d, s := c.d, c.s
	sl, one := s.SpectrumLen(), gpu.Batch{N: 1, H: s.H, W: s.W}
	_, x, err := c.random(s.Len())
	if err != nil {
		return err
	}
	var bufs [9]gpu.Buffer
	for i, n := range []int{sl, sl, s.N * sl, s.N * sl, s.N * sl, sl, s.N * sl, s.Len(), s.Len()} {
		if i < 7 {
			_, bufs[i], err = c.random(n)
		} else {
			bufs[i], err = c.zeros(n)
		}
		if err != nil {
			return err
		}
	}
	t0, t1, v0, v1, acc, tNeg, spec, dst, tmp := bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], bufs[5], bufs[6], bufs[7], bufs[8]
	img, err := c.zeros(s.H * s.W)
	if err != nil {
		return err
	}
	noReset := func() error { return nil }
	errs := []error{c.pair("SpectralMulSum", noReset, []gpu.Buffer{acc},
		func() error {
			return d.SpectralMulSum(acc, s, gpu.SpectralProduct{T: t0, V: v0, C: -1, Scaled: true}, gpu.SpectralProduct{T: t1, V: v1})
		},
		func() error {
			if err := d.Copy(tNeg, t0); err != nil {
				return err
			}
			if err := d.Axpby(tNeg, 0, tNeg, -1); err != nil {
				return err
			}
			if err := d.Zero(acc); err != nil {
				return err
			}
			if err := d.SpectralMulAdd(acc, tNeg, v0, s); err != nil {
				return err
			}
			return d.SpectralMulAdd(acc, t1, v1, s)
		})}
	// The inverse transforms overwrite their spectra: each run starts from
	// the spectra of x.
	fromX := func() error { return d.RFFT2(spec, x, s) }
	errs = append(errs, c.pair("AddIRFFT2", fromX, []gpu.Buffer{dst},
		func() error { return d.AddIRFFT2(dst, x, spec, tmp, s) },
		func() error {
			if err := d.Copy(dst, x); err != nil {
				return err
			}
			if err := d.IRFFT2(tmp, spec, s); err != nil {
				return err
			}
			return d.Axpby(dst, 1, tmp, 1)
		}))
	errs = append(errs, c.pair("ConjSumIRFFT2", noReset, []gpu.Buffer{img},
		func() error { return d.ConjSumIRFFT2(img, v0, v1, tNeg, s) },
		func() error {
			if err := d.SpectralConjSum(tNeg, v0, v1, s); err != nil {
				return err
			}
			return d.IRFFT2(img, tNeg, one)
		}))
	return errors.Join(errs...)
}

func (c *opsCheck) fusedImage() error {
	d, s := c.d, c.s
	const K = 3
	_, x, err := c.random(s.Len())
	if err != nil {
		return err
	}
	_, y, err := c.random(s.Len())
	if err != nil {
		return err
	}
	_, k, err := c.random(K * K)
	if err != nil {
		return err
	}
	_, field, err := c.random(2 * s.Len())
	if err != nil {
		return err
	}
	out, err := c.zeros(s.Len())
	if err != nil {
		return err
	}
	t, err := c.zeros(s.Len())
	if err != nil {
		return err
	}
	var errs []error
	for _, b := range []kernels.Boundary{kernels.Zero, kernels.Reflect} {
		errs = append(errs, c.pair("Conv2DResidual", func() error { return nil }, []gpu.Buffer{out},
			func() error { return d.Conv2DResidual(out, x, k, y, s, K, b) },
			func() error {
				if err := d.Conv2D(out, x, k, s, K, b); err != nil {
					return err
				}
				return d.Axpby(out, -1, y, 1)
			}))
	}
	fromY := func() error { return d.Copy(out, y) }
	for _, b := range []float64{0.7, 0} {
		errs = append(errs, c.pair("GradAdjointAxpby", fromY, []gpu.Buffer{out},
			func() error { return d.GradAdjointAxpby(out, -1.3, field, b, s) },
			func() error {
				if err := d.GradAdjoint(t, field, s); err != nil {
					return err
				}
				return d.Axpby(out, -1.3, t, b)
			}))
	}
	return errors.Join(errs...)
}

func (c *opsCheck) fusedReadout() error {
	d, s := c.d, c.s
	const eps = 0.3
	_, x, err := c.random(s.Len())
	if err != nil {
		return err
	}
	g, err := c.zeros(2 * s.Len())
	if err != nil {
		return err
	}
	r, err := d.AllocReadout(0, 2)
	if err != nil {
		return err
	}
	defer d.Free(r)
	sums := make([]float64, 2)
	readSums := func() error {
		if err := d.ReadOut(nil, sums, r); err != nil {
			return err
		}
		return d.CopyIn(g, append(make([]float64, 2*s.Len()-2), sums...))
	}
	// Sum 0 holds a value before each run (SetDot must drop it, the
	// Huber value add to it); the sums come back through g's last values.
	seed := func() error {
		if err := d.ZeroSums(r); err != nil {
			return err
		}
		if err := d.AddDot(r, 0, 1, x, x); err != nil {
			return err
		}
		return d.AddDot(r, 1, -1, x, x)
	}
	errs := []error{c.pair("SetDot", seed, []gpu.Buffer{g},
		func() error {
			if err := d.SetDot(r, 0, 0.5, x, x); err != nil {
				return err
			}
			return readSums()
		},
		func() error {
			if err := d.ZeroSums(r); err != nil {
				return err
			}
			if err := d.AddDot(r, 1, -1, x, x); err != nil {
				return err
			}
			if err := d.AddDot(r, 0, 0.5, x, x); err != nil {
				return err
			}
			return readSums()
		})}
	got, want := make([]float64, 2), make([]float64, 2)
	errs = append(errs, c.pair("AddHuberTV (derivative)", seed, []gpu.Buffer{g},
		func() error {
			if err := d.AddHuberTV(r, 0, 2.5, g, x, s, eps); err != nil {
				return err
			}
			return d.ReadOut(nil, got, r)
		},
		func() error {
			if err := d.Grad(g, x, s); err != nil {
				return err
			}
			if err := d.AddHuberValue(r, 0, 2.5, g, s, eps); err != nil {
				return err
			}
			if err := d.HuberDerivative(g, g, s, eps); err != nil {
				return err
			}
			return d.ReadOut(nil, want, r)
		}))
	errs = append(errs, c.closeVec("AddHuberTV (value) against AddHuberValue", got, want))
	return errors.Join(errs...)
}

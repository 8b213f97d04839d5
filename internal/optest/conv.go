package optest

import (
	"errors"
	"fmt"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/gpu/gputest"
	"github.com/greedyl2o/greedyl2o/mconv"
)

// CheckConv tests the multi-channel convolution conv on device d on random
// data of shape s, to relative tolerance tol (1e-12 for float64 devices,
// 1e-5 for float32): Forward against mconv.Forward (with and without bias),
// the adjoint identities ⟨y, w⋆x⟩ = ⟨AdjointInput(y), x⟩ =
// ⟨AdjointWeights(x, y), w⟩, the bias adjoint against the channel sums, and
// the refusals of a short output and of aliased operands. conv is
// mconv.NewDeviceConv(d) unless a test hands in another. It returns every
// failure, joined, or nil.
func CheckConv(d gpu.Ops, conv mconv.DeviceConv, s mconv.Shape, tol float64) error {
	if err := s.Validate(); err != nil {
		return fmt.Errorf("optest: check conv: %w", err)
	}
	c := gputest.NewChecker(d, tol, 11, uint64(s.InputLen()))
	defer c.Free()
	x, xb, err := c.Random(s.InputLen())
	if err != nil {
		return err
	}
	w, wb, err := c.Random(s.WeightLen())
	if err != nil {
		return err
	}
	bias, bb, err := c.Random(s.Cout)
	if err != nil {
		return err
	}
	y, yb, err := c.Random(s.OutputLen())
	if err != nil {
		return err
	}
	out, err := c.Zeros(s.OutputLen())
	if err != nil {
		return err
	}
	var errs []error
	for _, withBias := range []bool{true, false} {
		want := make([]float64, s.OutputLen())
		var bv []float64
		var bbuf gpu.Buffer
		if withBias {
			bv, bbuf = bias, bb
		}
		if err := mconv.Forward(want, x, w, bv, s); err != nil {
			return err
		}
		if err := conv.Forward(out, xb, wb, bbuf, s); err != nil {
			return fmt.Errorf("mconv forward: %w", err)
		}
		got, err := c.Read(out)
		if err != nil {
			return err
		}
		errs = append(errs, c.CloseVec(fmt.Sprintf("mconv (bias %v) against mconv.Forward", withBias), got, want))
	}
	wx, err := c.Read(out) // w ⋆ x without bias
	if err != nil {
		return err
	}
	xa, err := c.Zeros(s.InputLen())
	if err != nil {
		return err
	}
	if err := conv.AdjointInput(xa, yb, wb, s); err != nil {
		return fmt.Errorf("mconv adjoint input: %w", err)
	}
	aty, err := c.Read(xa)
	if err != nil {
		return err
	}
	errs = append(errs, c.Adjoint("mconv and its input adjoint", y, wx, aty, x))
	gw, err := c.Zeros(s.WeightLen())
	if err != nil {
		return err
	}
	gb, err := c.Zeros(s.Cout)
	if err != nil {
		return err
	}
	if err := conv.AdjointWeights(gw, gb, xb, yb, s); err != nil {
		return fmt.Errorf("mconv adjoint weights: %w", err)
	}
	gwv, err := c.Read(gw)
	if err != nil {
		return err
	}
	errs = append(errs, c.Adjoint("mconv and its weight adjoint", y, wx, gwv, w))
	gbv, err := c.Read(gb)
	if err != nil {
		return err
	}
	errs = append(errs, c.CloseVec("mconv bias adjoint against channel sums", gbv, channelSums(y, s)))
	short, err := c.Zeros(s.H * s.W)
	if err != nil {
		return err
	}
	for name, err := range map[string]error{
		"mconv with a short output":          conv.Forward(short, xb, wb, nil, s),
		"mconv with the input as output":     conv.Forward(xb, xb, wb, nil, s),
		"mconv adjoint input onto its input": conv.AdjointInput(yb, yb, wb, s),
	} {
		if err == nil {
			errs = append(errs, fmt.Errorf("%s: accepted, want an error", name))
		}
	}
	return errors.Join(errs...)
}

// channelSums returns the sum of each output channel of y over the batch.
func channelSums(y []float64, s mconv.Shape) []float64 {
	hw := s.H * s.W
	sums := make([]float64, s.Cout)
	for n := 0; n < s.N; n++ {
		for o := 0; o < s.Cout; o++ {
			for _, v := range y[(n*s.Cout+o)*hw : (n*s.Cout+o+1)*hw] {
				sums[o] += v
			}
		}
	}
	return sums
}

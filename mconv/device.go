package mconv

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/kernels"
)

// DeviceConv is the multi-channel convolution of this package on the
// buffers of a device (stride 1, zero "same" padding, activations
// [N,C,H,W], weights [Cout,Cin,K,K]): the convolutions of Banert's network
// and of the WCRR regularizer when they run on a device. The input, output
// and weights of a call must be three different buffers.
type DeviceConv interface {
	// Forward writes y = w ⋆ x + bias (Forward); bias may be nil.
	Forward(y, x, w, bias gpu.Buffer, s Shape) error
	// AdjointInput writes x, the adjoint of Forward in its input
	// (AdjointInput).
	AdjointInput(x, y, w gpu.Buffer, s Shape) error
	// AdjointWeights writes gw, the adjoint of Forward in its weights at
	// input x and output direction y, and gb (if not nil) the bias's: the
	// sums of each output channel of y (AdjointWeights).
	AdjointWeights(gw, gb, x, y gpu.Buffer, s Shape) error
}

// NewDeviceConv returns the multi-channel convolution on device d: on the
// host devices (gpu.OnHost: gpu.CPU, gpu.Host32 and devices that embed
// them) ForwardT and its adjoints on the buffers' values in their
// precision; on a device that runs kernels (gpu.Launcher: the CUDA device)
// the l2o_mconv_* kernels of package gpu/cudasrc, in float32 with float32
// sums.
func NewDeviceConv(d gpu.Device) (DeviceConv, error) {
	switch d := d.(type) {
	case gpu.OnHost[float64]:
		return hostConv[float64]{name: d.Name()}, nil
	case gpu.OnHost[float32]:
		return hostConv[float32]{name: d.Name()}, nil
	case gpu.Launcher:
		return kernelConv{d: d}, nil
	}
	return nil, fmt.Errorf("mconv: device %s runs no multi-channel convolutions (it is neither a host device nor a gpu.Launcher); use --device cpu", d.Name())
}

// CheckAliasing refuses a convolution (or adjoint) whose input, output and
// weights are not three different buffers: every device writes its output
// while it reads the others. op names the call.
func CheckAliasing(op string, x, y, w gpu.Buffer) error {
	if x == y || x == w || y == w {
		return fmt.Errorf("mconv: %s: the input, output and weights must be three different buffers", op)
	}
	return nil
}

// checkCall checks the shape and the aliasing of a call on any device.
func checkCall(device, op string, s Shape, x, y, w gpu.Buffer) error {
	if err := CheckAliasing(device+" "+op, x, y, w); err != nil {
		return err
	}
	if err := s.Validate(); err != nil {
		return fmt.Errorf("mconv: %s %s: %w", device, op, err)
	}
	return nil
}

// hostConv is the convolution of a host device whose values are F.
type hostConv[F kernels.Float] struct{ name string }

// operands returns the values of the input, output and weights.
func (c hostConv[F]) operands(op string, s Shape, x, y, w gpu.Buffer) (xv, yv, wv []F, err error) {
	if err := checkCall(c.name, op, s, x, y, w); err != nil {
		return nil, nil, nil, err
	}
	where := func(what string) string { return fmt.Sprintf("%s mconv %s: %s", c.name, op, what) }
	if xv, err = gpu.HostValues[F](x, s.InputLen(), where("the input")); err != nil {
		return nil, nil, nil, err
	}
	if yv, err = gpu.HostValues[F](y, s.OutputLen(), where("the output")); err != nil {
		return nil, nil, nil, err
	}
	wv, err = gpu.HostValues[F](w, s.WeightLen(), where("the weights"))
	return xv, yv, wv, err
}

// bias returns the values of the bias (or its gradient) b, nil for nil.
func (c hostConv[F]) bias(op string, b gpu.Buffer, s Shape) ([]F, error) {
	if b == nil {
		return nil, nil
	}
	return gpu.HostValues[F](b, s.Cout, fmt.Sprintf("%s mconv %s: the bias", c.name, op))
}

// Forward implements DeviceConv.
func (c hostConv[F]) Forward(y, x, w, bias gpu.Buffer, s Shape) error {
	xv, yv, wv, err := c.operands("forward", s, x, y, w)
	if err != nil {
		return err
	}
	if bias != nil && bias == y {
		return fmt.Errorf("mconv: %s forward: the bias must not be the output", c.name)
	}
	bv, err := c.bias("forward", bias, s)
	if err != nil {
		return err
	}
	return ForwardT(yv, xv, wv, bv, s)
}

// AdjointInput implements DeviceConv.
func (c hostConv[F]) AdjointInput(x, y, w gpu.Buffer, s Shape) error {
	xv, yv, wv, err := c.operands("adjoint input", s, x, y, w)
	if err != nil {
		return err
	}
	return AdjointInputT(xv, yv, wv, s)
}

// AdjointWeights implements DeviceConv.
func (c hostConv[F]) AdjointWeights(gw, gb, x, y gpu.Buffer, s Shape) error {
	xv, yv, wv, err := c.operands("adjoint weights", s, x, y, gw)
	if err != nil {
		return err
	}
	if gb != nil && (gb == x || gb == y || gb == gw) {
		return fmt.Errorf("mconv: %s adjoint weights: the bias gradient must be its own buffer", c.name)
	}
	bv, err := c.bias("adjoint weights", gb, s)
	if err != nil {
		return err
	}
	return AdjointWeightsT(wv, bv, xv, yv, s)
}

// kernelConv is the convolution of a device that runs the l2o_mconv_*
// kernels.
type kernelConv struct{ d gpu.Launcher }

// check checks the operands' lengths.
func (c kernelConv) check(op string, operands ...gpu.Operand) error {
	return gpu.CheckOperands(fmt.Sprintf("mconv: %s %s", c.d.Name(), op), operands...)
}

func shapeArgs(s Shape) []gpu.KernelArg {
	return []gpu.KernelArg{gpu.IntArg(s.N), gpu.IntArg(s.Cin), gpu.IntArg(s.Cout), gpu.IntArg(s.H), gpu.IntArg(s.W), gpu.IntArg(s.K)}
}

func buffers(bs ...gpu.Buffer) []gpu.KernelArg {
	args := make([]gpu.KernelArg, len(bs))
	for i, b := range bs {
		args[i] = gpu.OptionalBufferArg(b)
	}
	return args
}

// Forward implements DeviceConv.
func (c kernelConv) Forward(y, x, w, bias gpu.Buffer, s Shape) error {
	if err := checkCall(c.d.Name(), "forward", s, x, y, w); err != nil {
		return err
	}
	if bias != nil && bias == y {
		return fmt.Errorf("mconv: %s forward: the bias must not be the output", c.d.Name())
	}
	if err := c.check("forward", gpu.Operand{Name: "y", Buf: y, Len: s.OutputLen()}, gpu.Operand{Name: "x", Buf: x, Len: s.InputLen()}, gpu.Operand{Name: "w", Buf: w, Len: s.WeightLen()}); err != nil {
		return err
	}
	if bias != nil {
		if err := c.check("forward", gpu.Operand{Name: "the bias", Buf: bias, Len: s.Cout}); err != nil {
			return err
		}
	}
	return c.d.LaunchEach("l2o_mconv_forward", s.OutputLen(), append(buffers(y, x, w, bias), shapeArgs(s)...)...)
}

// AdjointInput implements DeviceConv.
func (c kernelConv) AdjointInput(x, y, w gpu.Buffer, s Shape) error {
	if err := checkCall(c.d.Name(), "adjoint input", s, x, y, w); err != nil {
		return err
	}
	if err := c.check("adjoint input", gpu.Operand{Name: "x", Buf: x, Len: s.InputLen()}, gpu.Operand{Name: "y", Buf: y, Len: s.OutputLen()}, gpu.Operand{Name: "w", Buf: w, Len: s.WeightLen()}); err != nil {
		return err
	}
	return c.d.LaunchEach("l2o_mconv_adjoint_input", s.InputLen(), append(buffers(x, y, w), shapeArgs(s)...)...)
}

// AdjointWeights implements DeviceConv.
func (c kernelConv) AdjointWeights(gw, gb, x, y gpu.Buffer, s Shape) error {
	if err := checkCall(c.d.Name(), "adjoint weights", s, x, y, gw); err != nil {
		return err
	}
	if gb != nil && (gb == x || gb == y || gb == gw) {
		return fmt.Errorf("mconv: %s adjoint weights: the bias gradient must be its own buffer", c.d.Name())
	}
	if err := c.check("adjoint weights", gpu.Operand{Name: "gw", Buf: gw, Len: s.WeightLen()}, gpu.Operand{Name: "x", Buf: x, Len: s.InputLen()}, gpu.Operand{Name: "y", Buf: y, Len: s.OutputLen()}); err != nil {
		return err
	}
	if gb != nil {
		if err := c.check("adjoint weights", gpu.Operand{Name: "gb", Buf: gb, Len: s.Cout}); err != nil {
			return err
		}
	}
	if s.K == 3 {
		// The nine taps of an (output, input) channel pair a block.
		args := append(buffers(gw, x, y), gpu.IntArg(s.N), gpu.IntArg(s.Cin), gpu.IntArg(s.Cout), gpu.IntArg(s.H), gpu.IntArg(s.W))
		if err := c.d.LaunchBlocks("l2o_mconv_adjoint_weights3", s.Cout*s.Cin, args...); err != nil {
			return err
		}
	} else if err := c.d.LaunchBlocks("l2o_mconv_adjoint_weights", s.WeightLen(), append(buffers(gw, x, y), shapeArgs(s)...)...); err != nil {
		return err
	}
	if gb == nil {
		return nil
	}
	return c.d.LaunchBlocks("l2o_mconv_adjoint_bias", s.Cout, gpu.BufferArg(gb), gpu.BufferArg(y), gpu.IntArg(s.N), gpu.IntArg(s.Cout), gpu.IntArg(s.H*s.W))
}

//go:build l2ocuda

package cuda

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/kernels"
	"gorgonia.org/tensor"
)

var (
	_ graph.LinearMap   = (*FixedConv)(nil)
	_ graph.LinearMap   = Diff{}
	_ graph.BilinearMap = SmallConv{}
	_ graph.Potential   = HuberTV{}
)

// roundTrip uploads the inputs, allocates an output of len(dst) values, runs
// fn, copies the output into dst and frees everything.
func (d *Device) roundTrip(dst []float64, fn func(out *Buffer, in []*Buffer) error, inputs ...[]float64) error {
	bufs := make([]*Buffer, 0, len(inputs)+1)
	defer func() {
		for _, b := range bufs {
			d.Free(b)
		}
	}()
	in := make([]*Buffer, len(inputs))
	for i, x := range inputs {
		b, err := d.Upload(x)
		if err != nil {
			return err
		}
		bufs = append(bufs, b)
		in[i] = b
	}
	out, err := d.NewBuffer(len(dst))
	if err != nil {
		return err
	}
	bufs = append(bufs, out)
	if err := fn(out, in); err != nil {
		return err
	}
	return d.CopyOut(dst, out)
}

// imageBatch returns N, H, W of a shape [N,H,W] (or [H,W] as N = 1).
func imageBatch(s tensor.Shape) (n, h, w int, err error) {
	switch s.Dims() {
	case 2:
		return 1, s[0], s[1], nil
	case 3:
		return s[0], s[1], s[2], nil
	}
	return 0, 0, 0, fmt.Errorf("want an image batch [N,H,W], got shape %v", s)
}

// Diff is graph.Diff (forward differences, [N,H,W] → [N,2,H,W]) on the device.
type Diff struct{ Dev *Device }

func (Diff) String() string { return "cuda:D" }

// OutShape implements graph.LinearMap.
func (Diff) OutShape(in tensor.Shape) (tensor.Shape, error) { return graph.Diff{}.OutShape(in) }

// Apply implements graph.LinearMap.
func (m Diff) Apply(dst, src []float64, in tensor.Shape) error {
	n, h, w, err := imageBatch(in)
	if err != nil {
		return err
	}
	return m.Dev.roundTrip(dst, func(out *Buffer, x []*Buffer) error { return m.Dev.grad(out, x[0], n, h, w) }, src)
}

// Adjoint implements graph.LinearMap.
func (m Diff) Adjoint(dst, src []float64, in tensor.Shape) error {
	n, h, w, err := imageBatch(in)
	if err != nil {
		return err
	}
	return m.Dev.roundTrip(dst, func(out *Buffer, d []*Buffer) error { return m.Dev.gradAdjoint(out, d[0], n, h, w) }, src)
}

// FixedConv is graph.FixedConv (a fixed small kernel) on the device.
type FixedConv struct {
	Dev      *Device
	Kernel   []float64 // K×K, row-major
	K        int
	Boundary kernels.Boundary
	Name     string // identifies the kernel in graph hashes
}

func (c *FixedConv) String() string {
	return fmt.Sprintf("cuda:conv(%s,%d,%v)", c.Name, c.K, c.Boundary)
}

func (c *FixedConv) conv(in tensor.Shape) (kernels.Conv, error) {
	n, h, w, err := imageBatch(in)
	if err != nil {
		return kernels.Conv{}, err
	}
	kc := kernels.Conv{N: n, H: h, W: w, K: c.K, Boundary: c.Boundary}
	if err := kc.Validate(); err != nil {
		return kc, err
	}
	if len(c.Kernel) != c.K*c.K {
		return kc, fmt.Errorf("kernel %s has %d values, want %d", c.Name, len(c.Kernel), c.K*c.K)
	}
	return kc, nil
}

// OutShape implements graph.LinearMap.
func (c *FixedConv) OutShape(in tensor.Shape) (tensor.Shape, error) {
	if _, err := c.conv(in); err != nil {
		return nil, err
	}
	return in.Clone(), nil
}

// Apply implements graph.LinearMap.
func (c *FixedConv) Apply(dst, src []float64, in tensor.Shape) error {
	kc, err := c.conv(in)
	if err != nil {
		return err
	}
	return c.Dev.roundTrip(dst, func(out *Buffer, b []*Buffer) error { return c.Dev.conv2D(out, b[0], b[1], kc) }, src, c.Kernel)
}

// Adjoint implements graph.LinearMap.
func (c *FixedConv) Adjoint(dst, src []float64, in tensor.Shape) error {
	kc, err := c.conv(in)
	if err != nil {
		return err
	}
	return c.Dev.roundTrip(dst, func(out *Buffer, b []*Buffer) error { return c.Dev.conv2DAdjointImage(out, b[0], b[1], kc) }, src, c.Kernel)
}

// SmallConv is graph.SmallConv, (k, x) ↦ k ⋆ x, on the device.
type SmallConv struct {
	Dev      *Device
	Boundary kernels.Boundary
}

func (c SmallConv) String() string { return fmt.Sprintf("cuda:smallconv(%v)", c.Boundary) }

// conv checks the shapes exactly as the CPU map does and returns the sizes.
func (c SmallConv) conv(sa, sb tensor.Shape) (kernels.Conv, error) {
	if _, err := (graph.SmallConv{Boundary: c.Boundary}).OutShape(sa, sb); err != nil {
		return kernels.Conv{}, err
	}
	n, h, w, err := imageBatch(sb)
	return kernels.Conv{N: n, H: h, W: w, K: sa[0], Boundary: c.Boundary}, err
}

// OutShape implements graph.BilinearMap.
func (c SmallConv) OutShape(sa, sb tensor.Shape) (tensor.Shape, error) {
	return graph.SmallConv{Boundary: c.Boundary}.OutShape(sa, sb)
}

// Apply implements graph.BilinearMap.
func (c SmallConv) Apply(dst, a, b []float64, sa, sb tensor.Shape) error {
	kc, err := c.conv(sa, sb)
	if err != nil {
		return err
	}
	return c.Dev.roundTrip(dst, func(out *Buffer, in []*Buffer) error { return c.Dev.conv2D(out, in[1], in[0], kc) }, a, b)
}

// AdjointA implements graph.BilinearMap: the kernel gradient.
func (c SmallConv) AdjointA(dst, out, b []float64, sa, sb tensor.Shape) error {
	kc, err := c.conv(sa, sb)
	if err != nil {
		return err
	}
	return c.Dev.roundTrip(dst, func(g *Buffer, in []*Buffer) error { return c.Dev.conv2DAdjointKernel(g, in[1], in[0], kc) }, out, b)
}

// AdjointB implements graph.BilinearMap: the image adjoint.
func (c SmallConv) AdjointB(dst, a, out []float64, sa, sb tensor.Shape) error {
	kc, err := c.conv(sa, sb)
	if err != nil {
		return err
	}
	return c.Dev.roundTrip(dst, func(x *Buffer, in []*Buffer) error { return c.Dev.conv2DAdjointImage(x, in[1], in[0], kc) }, a, out)
}

// HuberTV is graph.HuberTV, the isotropic Huber potential of a gradient
// field [N,2,H,W], on the device.
type HuberTV struct {
	Dev *Device
	Eps float64
}

func (p HuberTV) String() string { return fmt.Sprintf("cuda:huber(%g)", p.Eps) }

func (p HuberTV) dims(s tensor.Shape) (n, hw int, err error) {
	if s.Dims() != 4 || s[1] != 2 {
		return 0, 0, fmt.Errorf("gradient field must have shape [N,2,H,W], got %v", s)
	}
	return s[0], s[2] * s[3], nil
}

// Value implements graph.Potential.
func (p HuberTV) Value(z []float64, s tensor.Shape) (float64, error) {
	n, hw, err := p.dims(s)
	if err != nil {
		return 0, err
	}
	f, err := p.Dev.Upload(z)
	if err != nil {
		return 0, err
	}
	defer p.Dev.Free(f)
	vals := make([]float64, n)
	if err := p.Dev.huberValue(vals, f, n, hw, p.Eps); err != nil {
		return 0, err
	}
	var sum float64
	for _, v := range vals {
		sum += v
	}
	return sum, nil
}

// Derivative implements graph.Potential.
func (p HuberTV) Derivative(dst, z []float64, s tensor.Shape) error {
	n, hw, err := p.dims(s)
	if err != nil {
		return err
	}
	return p.Dev.roundTrip(dst, func(g *Buffer, in []*Buffer) error { return p.Dev.huberDerivative(g, in[0], n, hw, p.Eps) }, z)
}

// HessVec implements graph.Potential.
func (p HuberTV) HessVec(dst, z, u []float64, s tensor.Shape) error {
	n, hw, err := p.dims(s)
	if err != nil {
		return err
	}
	return p.Dev.roundTrip(dst, func(o *Buffer, in []*Buffer) error { return p.Dev.huberHessVec(o, in[0], in[1], n, hw, p.Eps) }, z, u)
}

// PiecewiseQuadratic implements graph.Potential: the isotropic Huber
// potential is not.
func (HuberTV) PiecewiseQuadratic() bool { return false }

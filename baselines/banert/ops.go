package banert

import (
	"errors"
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/mconv"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// ---- the multi-channel convolution as a bilinear map ----

// Conv is the bilinear map (w, x) ↦ w ⋆ x of a filter bank w [Cout,Cin,K,K]
// with a batch x [N,Cin,H,W] (cross-correlation, stride 1, zero "same"
// padding), computed by the mconv kernels. Its adjoint in w is
// mconv.AdjointWeights and its adjoint in x is mconv.AdjointInput.
type Conv struct{}

func (Conv) String() string { return "mconv" }

func (Conv) shape(sa, sb tensor.Shape) (mconv.Shape, error) {
	if sa.Dims() != 4 || sb.Dims() != 4 {
		return mconv.Shape{}, fmt.Errorf("mconv: want weights [Cout,Cin,K,K] and input [N,Cin,H,W], got %v and %v", sa, sb)
	}
	if sa[1] != sb[1] || sa[2] != sa[3] {
		return mconv.Shape{}, fmt.Errorf("mconv: weights %v do not fit input %v (square kernels, equal input channels)", sa, sb)
	}
	s := mconv.Shape{N: sb[0], Cin: sb[1], Cout: sa[0], H: sb[2], W: sb[3], K: sa[2]}
	return s, s.Validate()
}

// OutShape implements graph.BilinearMap.
func (c Conv) OutShape(sa, sb tensor.Shape) (tensor.Shape, error) {
	s, err := c.shape(sa, sb)
	if err != nil {
		return nil, err
	}
	return tensor.Shape{s.N, s.Cout, s.H, s.W}, nil
}

// Apply implements graph.BilinearMap.
func (c Conv) Apply(dst, a, b []float64, sa, sb tensor.Shape) error {
	s, err := c.shape(sa, sb)
	if err != nil {
		return err
	}
	return mconv.Forward(dst, b, a, nil, s)
}

// AdjointA implements graph.BilinearMap.
func (c Conv) AdjointA(dst, out, b []float64, sa, sb tensor.Shape) error {
	s, err := c.shape(sa, sb)
	if err != nil {
		return err
	}
	return mconv.AdjointWeights(dst, nil, b, out, s)
}

// AdjointB implements graph.BilinearMap.
func (c Conv) AdjointB(dst, a, out []float64, sa, sb tensor.Shape) error {
	s, err := c.shape(sa, sb)
	if err != nil {
		return err
	}
	return mconv.AdjointInput(dst, out, a, s)
}

// ---- linear maps ----

// broadcast maps per-channel values b [C] to [N,C,H,W] (b[c] on every pixel
// of channel c); its adjoint sums each channel.
type broadcast struct{ n, h, w int }

func (m broadcast) String() string { return fmt.Sprintf("broadcast(%d,%d,%d)", m.n, m.h, m.w) }

func (m broadcast) OutShape(in tensor.Shape) (tensor.Shape, error) {
	if in.Dims() != 1 {
		return nil, fmt.Errorf("broadcast: want per-channel values [C], got %v", in)
	}
	return tensor.Shape{m.n, in[0], m.h, m.w}, nil
}

func (m broadcast) Apply(dst, src []float64, in tensor.Shape) error {
	c, hw := in[0], m.h*m.w
	for k := 0; k < m.n; k++ {
		for ch := 0; ch < c; ch++ {
			p := (k*c + ch) * hw
			for i := p; i < p+hw; i++ {
				dst[i] = src[ch]
			}
		}
	}
	return nil
}

func (m broadcast) Adjoint(dst, src []float64, in tensor.Shape) error {
	channelSums(dst, src, m.n, in[0], m.h*m.w)
	return nil
}

// embed maps a batch [N,H,W] into channel c of a zero [N,C,H,W] tensor; its
// adjoint extracts channel c. With C = 1 it is a reshape.
type embed struct{ c, channels int }

func (m embed) String() string { return fmt.Sprintf("embed(%d/%d)", m.c, m.channels) }

func (m embed) OutShape(in tensor.Shape) (tensor.Shape, error) {
	if in.Dims() != 3 {
		return nil, fmt.Errorf("embed: want an image batch [N,H,W], got %v", in)
	}
	return tensor.Shape{in[0], m.channels, in[1], in[2]}, nil
}

func (m embed) Apply(dst, src []float64, in tensor.Shape) error {
	clear(dst)
	hw := in[1] * in[2]
	for k := 0; k < in[0]; k++ {
		copy(dst[(k*m.channels+m.c)*hw:(k*m.channels+m.c+1)*hw], src[k*hw:(k+1)*hw])
	}
	return nil
}

func (m embed) Adjoint(dst, src []float64, in tensor.Shape) error {
	hw := in[1] * in[2]
	for k := 0; k < in[0]; k++ {
		copy(dst[k*hw:(k+1)*hw], src[(k*m.channels+m.c)*hw:(k*m.channels+m.c+1)*hw])
	}
	return nil
}

// scaling is x ↦ s·x, self-adjoint.
type scaling struct{ s float64 }

func (m scaling) String() string                                 { return fmt.Sprintf("scale(%v)", m.s) }
func (m scaling) OutShape(in tensor.Shape) (tensor.Shape, error) { return in.Clone(), nil }
func (m scaling) Apply(dst, src []float64, _ tensor.Shape) error {
	for i, v := range src {
		dst[i] = m.s * v
	}
	return nil
}
func (m scaling) Adjoint(dst, src []float64, in tensor.Shape) error { return m.Apply(dst, src, in) }

// channelScale is the bilinear map (γ [C], z [N,C,H,W]) ↦ γ_c z.
type channelScale struct{}

func (channelScale) String() string { return "channelscale" }

func (channelScale) OutShape(sa, sb tensor.Shape) (tensor.Shape, error) {
	if sa.Dims() != 1 || sb.Dims() != 4 || sa[0] != sb[1] {
		return nil, fmt.Errorf("channel scale: want [C] and [N,C,H,W], got %v and %v", sa, sb)
	}
	return sb.Clone(), nil
}

func (channelScale) Apply(dst, a, b []float64, sa, sb tensor.Shape) error {
	channelAffine(dst, b, a, nil, sb[0], sb[1], sb[2]*sb[3])
	return nil
}

func (channelScale) AdjointA(dst, c, b []float64, sa, sb tensor.Shape) error {
	channelDots(dst, c, b, sb[0], sb[1], sb[2]*sb[3])
	return nil
}

func (channelScale) AdjointB(dst, a, c []float64, sa, sb tensor.Shape) error {
	channelAffine(dst, c, a, nil, sb[0], sb[1], sb[2]*sb[3])
	return nil
}

// ---- custom operations on plain-Go kernels ----

// errNoSecondDerivative is returned by the backward operations, which are
// never differentiated: the network is not inside ∇f.
var errNoSecondDerivative = errors.New("banert: second derivatives of the network are not available (differentiate the training loss once)")

// kernelOp is a gorgonia operation computed by a plain-Go function, with a
// symbolic derivative given as a function that builds gradient nodes.
type kernelOp struct {
	name string // identifies the operation and all of its parameters
	in   []tensor.Shape
	out  tensor.Shape
	do   func(dst []float64, in [][]float64) error
	// diff returns the gradient nodes of the inputs given the output's
	// gradient; nil means the op is not differentiable (second derivative).
	diff func(inputs G.Nodes, grad *G.Node) (G.Nodes, error)
	val  G.Value
}

func (op *kernelOp) Arity() int { return len(op.in) }
func (op *kernelOp) Type() hm.Type {
	ts := make([]hm.Type, 0, len(op.in)+1)
	for _, s := range op.in {
		ts = append(ts, &G.TensorType{Dims: s.Dims(), Of: hm.TypeVariable('a')})
	}
	ts = append(ts, &G.TensorType{Dims: op.out.Dims(), Of: hm.TypeVariable('a')})
	return hm.NewFnType(ts...)
}
func (op *kernelOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.out.Clone(), nil }
func (op *kernelOp) Do(vals ...G.Value) (G.Value, error) {
	in := make([][]float64, len(vals))
	for i, v := range vals {
		d, ok := v.Data().([]float64)
		if !ok || len(d) != op.in[i].TotalSize() {
			return nil, fmt.Errorf("%s: argument %d is not %v float64 data", op.name, i, op.in[i])
		}
		in[i] = d
	}
	if op.val == nil {
		op.val = tensor.New(tensor.Of(tensor.Float64), tensor.WithShape(op.out.Clone()...))
	}
	if err := op.do(op.val.Data().([]float64), in); err != nil {
		return nil, fmt.Errorf("%s: %w", op.name, err)
	}
	return op.val, nil
}
func (op *kernelOp) ReturnsPtr() bool      { return false }
func (op *kernelOp) CallsExtern() bool     { return false }
func (op *kernelOp) OverwritesInput() int  { return -1 }
func (op *kernelOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op *kernelOp) Hashcode() uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}
func (op *kernelOp) String() string { return fmt.Sprintf("%s%v", op.name, op.in) }
func (op *kernelOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	for i := range d {
		d[i] = op.diff != nil
	}
	return d
}
func (op *kernelOp) SymDiff(inputs G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	if op.diff == nil {
		return nil, fmt.Errorf("%s: %w", op.name, errNoSecondDerivative)
	}
	return op.diff(inputs, grad)
}

func apply(op *kernelOp, args ...*G.Node) (*G.Node, error) {
	if len(args) != len(op.in) {
		return nil, fmt.Errorf("%s: %d arguments, want %d", op.name, len(args), len(op.in))
	}
	for i, a := range args {
		if !a.Shape().Eq(op.in[i]) {
			return nil, fmt.Errorf("%s: argument %d has shape %v, want %v", op.name, i, a.Shape(), op.in[i])
		}
	}
	return G.ApplyOp(op, args...)
}

// planes returns N·C and H·W of a 4-D shape [N,C,H,W] (or N and H·W of [N,H,W]).
func planes(s tensor.Shape) (int, int) {
	if s.Dims() == 3 {
		return s[0], s[1] * s[2]
	}
	return s[0] * s[1], s[2] * s[3]
}

// instanceNormNode returns the instance normalisation of x [N,C,H,W] without
// scale and offset.
func instanceNormNode(x *G.Node) (*G.Node, error) {
	s := tensor.Shape(x.Shape()).Clone()
	p, hw := planes(s)
	return apply(&kernelOp{
		name: "instancenorm", in: []tensor.Shape{s}, out: s,
		do: func(dst []float64, in [][]float64) error {
			instanceNorm(dst, in[0], p, hw)
			return nil
		},
		diff: func(inputs G.Nodes, grad *G.Node) (G.Nodes, error) {
			d, err := apply(&kernelOp{
				name: "instancenorm-backward", in: []tensor.Shape{s, s}, out: s,
				do: func(dst []float64, in [][]float64) error {
					instanceNormBackward(dst, in[0], in[1], p, hw)
					return nil
				},
			}, inputs[0], grad)
			return G.Nodes{d}, err
		},
	}, x)
}

// affineNode returns γ_c z + β_c for z [N,C,H,W] and per-channel γ, β.
func affineNode(z, gamma, beta *G.Node) (*G.Node, error) {
	s := tensor.Shape(z.Shape()).Clone()
	c := tensor.Shape{s[1]}
	n, hw := s[0], s[2]*s[3]
	return apply(&kernelOp{
		name: "affine", in: []tensor.Shape{s, c, c}, out: s,
		do: func(dst []float64, in [][]float64) error {
			channelAffine(dst, in[0], in[1], in[2], n, s[1], hw)
			return nil
		},
		diff: func(inputs G.Nodes, grad *G.Node) (G.Nodes, error) {
			dz, err := graph.BilinearAdjointB(channelScale{}, inputs[1], grad, s)
			if err != nil {
				return nil, err
			}
			dg, err := graph.BilinearAdjointA(channelScale{}, grad, inputs[0], c)
			if err != nil {
				return nil, err
			}
			db, err := graph.LinearAdjoint(broadcast{n: n, h: s[2], w: s[3]}, grad, c)
			if err != nil {
				return nil, err
			}
			return G.Nodes{dz, dg, db}, nil
		},
	}, z, gamma, beta)
}

// biasNode returns x + b_c for x [N,C,H,W] and per-channel b.
func biasNode(x, b *G.Node) (*G.Node, error) {
	s := tensor.Shape(x.Shape()).Clone()
	c := tensor.Shape{s[1]}
	n, hw := s[0], s[2]*s[3]
	return apply(&kernelOp{
		name: "bias", in: []tensor.Shape{s, c}, out: s,
		do: func(dst []float64, in [][]float64) error {
			addChannelBias(dst, in[0], in[1], n, s[1], hw)
			return nil
		},
		diff: func(inputs G.Nodes, grad *G.Node) (G.Nodes, error) {
			db, err := graph.LinearAdjoint(broadcast{n: n, h: s[2], w: s[3]}, grad, c)
			if err != nil {
				return nil, err
			}
			return G.Nodes{grad, db}, nil
		},
	}, x, b)
}

// normLayerNode returns leaky(γ_c·norm(x + b_c) + β_c) for a convolution's
// output x [N,C,H,W] and per-channel b, γ, β: the bias, the instance norm,
// the affine map and the leaky ReLU as one operation (normLayer), bitwise
// their chain, holding only its output. Its backward operation
// (normLayerBackward) recomputes the forward values from x and gives the
// gradient in x; it also leaves the gradients in b, γ and β in a buffer of
// its own, which three operations on its output copy out: they run after it,
// since they take its output.
func normLayerNode(x, b, gamma, beta *G.Node) (*G.Node, error) {
	s := tensor.Shape(x.Shape()).Clone()
	if s.Dims() != 4 {
		return nil, fmt.Errorf("normlayer: want a batch [N,C,H,W], got %v", s)
	}
	c := tensor.Shape{s[1]}
	n, ch, hw := s[0], s[1], s[2]*s[3]
	return apply(&kernelOp{
		name: "normlayer", in: []tensor.Shape{s, c, c, c}, out: s,
		do: func(dst []float64, in [][]float64) error {
			normLayer(dst, in[0], in[1], in[2], in[3], n, ch, hw)
			return nil
		},
		diff: func(inputs G.Nodes, grad *G.Node) (G.Nodes, error) {
			sums := make([]float64, 3*ch) // ∂γ, ∂β, ∂b
			back := &kernelOp{
				name: "normlayer-backward", in: []tensor.Shape{s, s, c, c, c}, out: s,
				do: func(dst []float64, in [][]float64) error {
					normLayerBackward(dst, sums, in[0], in[1], in[2], in[3], in[4], n, ch, hw)
					return nil
				},
			}
			dx, err := apply(back, inputs[0], grad, inputs[1], inputs[2], inputs[3])
			if err != nil {
				return nil, err
			}
			if dx.Op() != G.Op(back) {
				return nil, errors.New("normlayer: its backward operation was merged with another node")
			}
			part := func(name string, k int) (*G.Node, error) {
				return apply(&kernelOp{
					name: "normlayer-grad-" + name, in: []tensor.Shape{s}, out: c,
					do: func(dst []float64, _ [][]float64) error {
						copy(dst, sums[k*ch:(k+1)*ch])
						return nil
					},
				}, dx)
			}
			ds := G.Nodes{dx}
			for _, p := range []struct {
				name string
				k    int
			}{{"bias", 2}, {"scale", 0}, {"offset", 1}} {
				d, err := part(p.name, p.k)
				if err != nil {
					return nil, err
				}
				ds = append(ds, d)
			}
			return ds, nil
		},
	}, x, b, gamma, beta)
}

// safeguardNode returns Δ = α·h·‖g‖/√(1 + ‖h‖²) per image, for h [N,1,H,W]
// and g [N,H,W]; Δ has g's shape.
func safeguardNode(h, g *G.Node) (*G.Node, error) {
	sh := tensor.Shape(h.Shape()).Clone()
	sg := tensor.Shape(g.Shape()).Clone()
	n, hw := planes(sg)
	if sh.TotalSize() != sg.TotalSize() {
		return nil, fmt.Errorf("safeguard: network output %v does not match gradient %v", sh, sg)
	}
	return apply(&kernelOp{
		name: "safeguard", in: []tensor.Shape{sh, sg}, out: sg,
		do: func(dst []float64, in [][]float64) error {
			safeguard(dst, in[0], in[1], n, hw, nil, nil)
			return nil
		},
		diff: func(inputs G.Nodes, grad *G.Node) (G.Nodes, error) {
			dh, err := apply(&kernelOp{
				name: "safeguard-backward-h", in: []tensor.Shape{sh, sg, sg}, out: sh,
				do: func(dst []float64, in [][]float64) error {
					safeguardBackwardH(dst, in[0], in[1], in[2], n, hw)
					return nil
				},
			}, inputs[0], inputs[1], grad)
			if err != nil {
				return nil, err
			}
			dg, err := apply(&kernelOp{
				name: "safeguard-backward-g", in: []tensor.Shape{sh, sg, sg}, out: sg,
				do: func(dst []float64, in [][]float64) error {
					safeguardBackwardG(dst, in[0], in[1], in[2], n, hw)
					return nil
				},
			}, inputs[0], inputs[1], grad)
			if err != nil {
				return nil, err
			}
			return G.Nodes{dh, dg}, nil
		},
	}, h, g)
}

// updateNode returns x − c·(g + Δ) for equally shaped x, g, Δ.
func updateNode(x, g, delta *G.Node, c float64) (*G.Node, error) {
	s := tensor.Shape(x.Shape()).Clone()
	return apply(&kernelOp{
		name: fmt.Sprintf("update(%v)", c), in: []tensor.Shape{s, s, s}, out: s,
		do: func(dst []float64, in [][]float64) error {
			xs, gs, ds := in[0], in[1], in[2]
			for i, v := range xs {
				dst[i] = v - c*(gs[i]+ds[i])
			}
			return nil
		},
		diff: func(inputs G.Nodes, grad *G.Node) (G.Nodes, error) {
			d, err := graph.Linear(scaling{-c}, grad)
			if err != nil {
				return nil, err
			}
			return G.Nodes{grad, d, d}, nil
		},
	}, x, g, delta)
}

// stackNode returns the channels [N,H,W] stacked into [N,C,H,W].
func stackNode(channels ...*G.Node) (*G.Node, error) {
	s := tensor.Shape(channels[0].Shape()).Clone()
	if s.Dims() != 3 {
		return nil, fmt.Errorf("stack: want image batches [N,H,W], got %v", s)
	}
	k := len(channels)
	in := make([]tensor.Shape, k)
	for i := range in {
		in[i] = s
	}
	n, hw := s[0], s[1]*s[2]
	return apply(&kernelOp{
		name: "stack", in: in, out: tensor.Shape{n, k, s[1], s[2]},
		do: func(dst []float64, in [][]float64) error {
			stackChannels(dst, in, n, hw)
			return nil
		},
		diff: func(inputs G.Nodes, grad *G.Node) (G.Nodes, error) {
			ds := make(G.Nodes, k)
			for c := range ds {
				var err error
				if ds[c], err = graph.LinearAdjoint(embed{c: c, channels: k}, grad, s); err != nil {
					return nil, err
				}
			}
			return ds, nil
		},
	}, channels...)
}

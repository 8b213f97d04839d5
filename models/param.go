package models

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/kernels"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Parametrization is a family of linear operators G_θ acting on batches of
// H×W images. It is written only as a forward graph expression: gradients
// with respect to θ (and v) come from gorgonia.
type Parametrization interface {
	// Name is the short name used on the command line (ps, pp, pc, pc5, pf, …).
	Name() string
	// ParamShape is the shape of θ for h×w images.
	ParamShape(h, w int) tensor.Shape
	// Apply returns the node G_θ v for a parameter node θ and a batch node v [N,H,W].
	Apply(theta, v *G.Node) (*G.Node, error)
	// Reference returns the parameters of G = τI (τ = 0 gives G = 0).
	Reference(tau float64, h, w int) []float64
}

// Normer is implemented by parametrizations that compute the operator norm
// ‖G_θ‖ (on h×w images) exactly. Others are measured by power iteration.
type Normer interface {
	OpNorm(theta []float64, h, w int) (float64, error)
}

// Scalar is PS: G_θ = θ·I with one scalar θ.
type Scalar struct{}

// Name implements Parametrization.
func (Scalar) Name() string { return "ps" }

// ParamShape implements Parametrization.
func (Scalar) ParamShape(h, w int) tensor.Shape { return tensor.Shape{1} }

// Apply implements Parametrization.
func (Scalar) Apply(theta, v *G.Node) (*G.Node, error) {
	return graph.Bilinear(graph.Scale{}, theta, v)
}

// Reference implements Parametrization.
func (Scalar) Reference(tau float64, h, w int) []float64 { return []float64{tau} }

// OpNorm implements Normer.
func (Scalar) OpNorm(theta []float64, h, w int) (float64, error) { return math.Abs(theta[0]), nil }

// Pointwise is PP: (G_θ v)[i,j] = θ[i,j]·v[i,j] with an image-sized θ.
type Pointwise struct{}

// Name implements Parametrization.
func (Pointwise) Name() string { return "pp" }

// ParamShape implements Parametrization.
func (Pointwise) ParamShape(h, w int) tensor.Shape { return tensor.Shape{h, w} }

// Apply implements Parametrization.
func (Pointwise) Apply(theta, v *G.Node) (*G.Node, error) {
	return graph.Bilinear(graph.Pointwise{}, theta, v)
}

// Reference implements Parametrization.
func (Pointwise) Reference(tau float64, h, w int) []float64 { return filled(h*w, tau) }

// OpNorm implements Normer: max |θ|.
func (Pointwise) OpNorm(theta []float64, h, w int) (float64, error) {
	var m float64
	for _, v := range theta {
		m = math.Max(m, math.Abs(v))
	}
	return m, nil
}

// SmallConv is PC-k: G_θ v = θ ⋆ v with a K×K kernel θ and a boundary rule.
type SmallConv struct {
	K        int
	Boundary kernels.Boundary
}

// Name implements Parametrization.
func (c SmallConv) Name() string {
	if c.Boundary == kernels.Circular {
		return fmt.Sprintf("pc%d", c.K)
	}
	return fmt.Sprintf("pc%d-%v", c.K, c.Boundary)
}

// ParamShape implements Parametrization.
func (c SmallConv) ParamShape(h, w int) tensor.Shape { return tensor.Shape{c.K, c.K} }

// Apply implements Parametrization.
func (c SmallConv) Apply(theta, v *G.Node) (*G.Node, error) {
	return graph.Bilinear(graph.SmallConv{Boundary: c.Boundary}, theta, v)
}

// Reference implements Parametrization.
func (c SmallConv) Reference(tau float64, h, w int) []float64 {
	p := make([]float64, c.K*c.K)
	p[(c.K/2)*c.K+c.K/2] = tau
	return p
}

// OpNorm implements Normer exactly for the circular boundary (the largest
// magnitude of the kernel's spectrum on h×w); other boundaries use power iteration.
func (c SmallConv) OpNorm(theta []float64, h, w int) (float64, error) {
	if c.Boundary != kernels.Circular {
		return PowerNorm(c, theta, h, w)
	}
	full := make([]float64, h*w)
	r := c.K / 2
	for u := 0; u < c.K; u++ {
		for v := 0; v < c.K; v++ {
			// correlation with θ is convolution with the flipped kernel at offset (r−u, r−v)
			i, j := ((r-u)%h+h)%h, ((r-v)%w+w)%w
			full[i*w+j] += theta[u*c.K+v]
		}
	}
	return spectralMax(full, h, w), nil
}

// FullConv is PC: G_θ v = θ ⊛ v, circular convolution with an image-sized
// kernel (origin at pixel (0,0)), applied by FFT.
type FullConv struct {
	conv *graph.FFTConv
}

// NewFullConv returns a PC parametrization with its own FFT spectrum cache.
func NewFullConv() *FullConv { return &FullConv{conv: graph.NewFFTConv()} }

// Name implements Parametrization.
func (*FullConv) Name() string { return "pc" }

// ParamShape implements Parametrization.
func (*FullConv) ParamShape(h, w int) tensor.Shape { return tensor.Shape{h, w} }

// Apply implements Parametrization.
func (c *FullConv) Apply(theta, v *G.Node) (*G.Node, error) {
	return graph.Bilinear(c.conv, theta, v)
}

// Reference implements Parametrization.
func (*FullConv) Reference(tau float64, h, w int) []float64 {
	p := make([]float64, h*w)
	p[0] = tau
	return p
}

// OpNorm implements Normer: the largest magnitude of θ's spectrum.
func (*FullConv) OpNorm(theta []float64, h, w int) (float64, error) {
	return spectralMax(theta, h, w), nil
}

func spectralMax(k []float64, h, w int) float64 {
	f := kernels.NewFFT2(h, w)
	s := make([]complex128, f.SpectrumLen())
	f.Forward(s, k)
	var m float64
	for _, c := range s {
		m = math.Max(m, math.Hypot(real(c), imag(c)))
	}
	return m
}

// Full is PF: G_θ vec(v) = θ vec(v) with a full (H·W)×(H·W) matrix θ; for small
// images only.
type Full struct{}

// Name implements Parametrization.
func (Full) Name() string { return "pf" }

// ParamShape implements Parametrization.
func (Full) ParamShape(h, w int) tensor.Shape { return tensor.Shape{h * w, h * w} }

// Apply implements Parametrization.
func (Full) Apply(theta, v *G.Node) (*G.Node, error) { return graph.Bilinear(graph.Matrix{}, theta, v) }

// Reference implements Parametrization.
func (Full) Reference(tau float64, h, w int) []float64 {
	n := h * w
	p := make([]float64, n*n)
	for i := 0; i < n; i++ {
		p[i*n+i] = tau
	}
	return p
}

func filled(n int, v float64) []float64 {
	p := make([]float64, n)
	for i := range p {
		p[i] = v
	}
	return p
}

// newConv builds the family pc from its arguments: "" gives the
// image-sized PC, "K" or "K-BOUNDARY" a K×K kernel (odd K).
func newConv(args string) (Parametrization, error) {
	if args == "" {
		return NewFullConv(), nil
	}
	ks, bs, hasB := strings.Cut(args, "-")
	k, err := strconv.Atoi(ks)
	if err != nil || k < 1 || k%2 == 0 {
		return nil, fmt.Errorf("pc%s: write pcK with an odd kernel size K ≥ 1 (pc3, pc5), a boundary after it (pc5-reflect: zero, circular or reflect), or pc alone for the image-sized kernel", args)
	}
	b := kernels.Circular
	if hasB {
		if b, err = kernels.ParseBoundary(bs); err != nil {
			return nil, err
		}
	}
	return SmallConv{K: k, Boundary: b}, nil
}

// Method is a learned-optimizer design: the parametrization of G and, for
// methods with momentum (the M- variants), of H.
type Method struct {
	G Parametrization
	H Parametrization // nil: H = 0
}

// MaxStepParamBytes caps the parameters of one step (θ and φ, float64) that
// CheckSize accepts: PF's (HW)² grow past any memory long before the images
// are large (34 GB a step at 256×256).
const MaxStepParamBytes = 4 << 30

// CheckSize reports whether m can run on h×w images: every k×k kernel fits
// the image, and one step's parameters stay within MaxStepParamBytes. It
// allocates nothing, so that callers can check before any parameter exists.
func (m Method) CheckSize(h, w int) error {
	var total int64
	for _, p := range []Parametrization{m.G, m.H} {
		if p == nil {
			continue
		}
		var k int
		switch c := p.(type) {
		case SmallConv:
			k = c.K
		case *SmallConv:
			k = c.K
		}
		if k > h || k > w {
			return fmt.Errorf("%s: a %d×%d kernel does not fit %d×%d images; use a kernel of at most %d×%d", p.Name(), k, k, h, w, min(h, w), min(h, w))
		}
		total += int64(p.ParamShape(h, w).TotalSize())
	}
	if total*8 > MaxStepParamBytes {
		return fmt.Errorf("%s on %d×%d images has %d parameters a step (%.3g GB in float64), more than the %d GB allowed: use smaller images or a parametrization with fewer parameters",
			m.Name(), h, w, total, float64(total*8)/1e9, MaxStepParamBytes>>30)
	}
	return nil
}

// Name is the method's name as accepted by ParseMethod (e.g. m-pc, ps, pc:ps).
func (m Method) Name() string {
	if m.H == nil {
		return m.G.Name()
	}
	if m.H.Name() == m.G.Name() {
		return "m-" + m.G.Name()
	}
	return m.G.Name() + ":" + m.H.Name()
}

// ParseMethod parses ps, pp, pc, pcK, pf (H = 0), their M- variants (m-pc: H of
// the same type), or G:H for different types (pc:ps).
func ParseMethod(s string) (Method, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if gs, hs, ok := strings.Cut(s, ":"); ok {
		g, err := ParseParametrization(gs)
		if err != nil {
			return Method{}, err
		}
		h, err := ParseParametrization(hs)
		if err != nil {
			return Method{}, err
		}
		return Method{G: g, H: h}, nil
	}
	if rest, ok := strings.CutPrefix(s, "m-"); ok {
		g, err := ParseParametrization(rest)
		if err != nil {
			return Method{}, err
		}
		h, _ := ParseParametrization(rest)
		return Method{G: g, H: h}, nil
	}
	g, err := ParseParametrization(s)
	if err != nil {
		return Method{}, err
	}
	return Method{G: g}, nil
}

// OpNorm returns ‖G_θ‖ on h×w images: exact where the parametrization
// implements Normer, by power iteration otherwise.
func OpNorm(p Parametrization, theta []float64, h, w int) (float64, error) {
	if n, ok := p.(Normer); ok {
		return n.OpNorm(theta, h, w)
	}
	return PowerNorm(p, theta, h, w)
}

// PowerNorm estimates ‖G_θ‖ by power iteration on G_θᵀG_θ, using the
// parametrization's graph expression and gorgonia for the adjoint.
func PowerNorm(p Parametrization, theta []float64, h, w int) (float64, error) {
	g := G.NewGraph()
	th := graph.Input(g, "theta", p.ParamShape(h, w)...)
	v := graph.Input(g, "v", 1, h, w)
	out, err := p.Apply(th, v)
	if err != nil {
		return 0, fmt.Errorf("norm of %s: %w", p.Name(), err)
	}
	// ½‖G v‖² has gradient GᵀG v with respect to v.
	half, err := G.Mul(G.Must(G.Sum(G.Must(G.Square(out)))), G.NewConstant(0.5))
	if err != nil {
		return 0, err
	}
	if _, err := G.Grad(half, v); err != nil {
		return 0, fmt.Errorf("norm of %s: %w", p.Name(), err)
	}
	m := graph.NewMachine(g, v)
	defer m.Close()
	if err := graph.Set(th, theta); err != nil {
		return 0, err
	}
	return powerNorm(h*w, graph.GradMap(m, v))
}

// powerNorm returns √λ for the largest eigenvalue λ of the symmetric
// positive semidefinite map that apply computes in place (x ← GᵀG x), by
// power iteration from a fixed random start to a relative change of 1e-10
// (at most 500 iterations): the operator norm ‖G‖.
func powerNorm(size int, apply func(x []float64) error) (float64, error) {
	lam, _, err := normIteration.Largest(size, apply)
	return math.Sqrt(lam), err
}

var normIteration = kernels.PowerIteration{Seed: [2]uint64{7, 7}, MaxIter: 500, MinIter: 10, RelTol: 1e-10}

// SizeFree reports whether p's parameters do not depend on the image size
// (PS and PC-k: a scalar, a k×k kernel), so parameters learned on one size
// apply unchanged to another; PP, image-sized PC and PF are bound to theirs.
// It compares p's parameter shapes at two unrelated sizes.
func SizeFree(p Parametrization) bool {
	if p == nil {
		return true
	}
	a, b := p.ParamShape(16, 16), p.ParamShape(23, 37)
	return a.Eq(b)
}

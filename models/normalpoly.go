package models

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/kernels"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// NormalPoly ("npolyD", e.g. npoly3) is an operator-aware parametrization:
// a polynomial of degree D−1 in the normal operator of the problem's forward
// operator A,
//
//	G_θ = Σ_{j<D} θ_j (AᵀA)^j,
//
// linear in θ (so the greedy step stays as convex as PS's), D parameters
// whatever the image size, and defined for any linear A (deblurring, CT).
// Because G is built from the operator of the functions it is applied to,
// parameters learned for one operator carry over to another by
// construction: evaluated on a wider blur, G_θ uses the wider blur. npoly1
// is PS. The reference τI is θ = (τ, 0, …, 0).
//
// The operator is not part of the name: a NormalPoly from the registry has
// none until the step loss, Algorithm 2 or unrolled training bind it to
// their functions' operator (OperatorAware, Method.ForOperator); using one
// without an operator is an error naming the way out.
type NormalPoly struct {
	D  int
	Op graph.LinearMap // A; nil until WithOperator
}

// ErrNoOperator is returned by an operator-aware parametrization used
// before it was given the problem's operator.
var ErrNoOperator = errors.New("the parametrization needs the problem's forward operator: bind it with models.Method.ForOperator (the step loss, Algorithm 2 and unrolled training do)")

// OperatorAware is implemented by parametrizations built from the problem's
// forward operator A (NormalPoly): WithOperator returns the parametrization
// for A. Method.ForOperator applies it to a method's terms.
type OperatorAware interface {
	WithOperator(A graph.LinearMap) Parametrization
}

// ForOperator returns m with its operator-aware terms bound to A (m itself
// if it has none).
func (m Method) ForOperator(A graph.LinearMap) Method {
	if oa, ok := m.G.(OperatorAware); ok {
		m.G = oa.WithOperator(A)
	}
	if oa, ok := m.H.(OperatorAware); ok && m.H != nil {
		m.H = oa.WithOperator(A)
	}
	return m
}

// Name implements Parametrization.
func (p NormalPoly) Name() string { return "npoly" + strconv.Itoa(p.D) }

// ParamShape implements Parametrization.
func (p NormalPoly) ParamShape(h, w int) tensor.Shape { return tensor.Shape{p.D} }

// Reference implements Parametrization: G = τI.
func (p NormalPoly) Reference(tau float64, h, w int) []float64 {
	theta := make([]float64, p.D)
	theta[0] = tau
	return theta
}

// WithOperator implements OperatorAware.
func (p NormalPoly) WithOperator(A graph.LinearMap) Parametrization {
	p.Op = A
	return p
}

// Apply implements Parametrization: Σ_j θ_j u_j with u_0 = v and
// u_j = Aᵀ(A u_{j−1}), all in the graph.
func (p NormalPoly) Apply(theta, v *G.Node) (*G.Node, error) {
	if p.Op == nil {
		return nil, fmt.Errorf("%s: %w", p.Name(), ErrNoOperator)
	}
	u, in := v, v.Shape()
	var out *G.Node
	for j := range p.D {
		if j > 0 {
			au, err := graph.Linear(p.Op, u)
			if err != nil {
				return nil, fmt.Errorf("%s: A u: %w", p.Name(), err)
			}
			if u, err = graph.LinearAdjoint(p.Op, au, in); err != nil {
				return nil, fmt.Errorf("%s: Aᵀ A u: %w", p.Name(), err)
			}
		}
		tj, err := graph.Linear(coefficient{j: j, d: p.D}, theta)
		if err != nil {
			return nil, err
		}
		term, err := graph.Bilinear(graph.Scale{}, tj, u)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = term
		} else if out, err = G.Add(out, term); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// coefficient is the linear map θ ↦ θ_j from R^d to R^1 (graph.LinearMap).
type coefficient struct{ j, d int }

func (c coefficient) String() string { return fmt.Sprintf("coefficient(%d of %d)", c.j, c.d) }

func (c coefficient) OutShape(in tensor.Shape) (tensor.Shape, error) {
	if in.TotalSize() != c.d {
		return nil, fmt.Errorf("%s: input of shape %v", c, in)
	}
	return tensor.Shape{1}, nil
}

func (c coefficient) Apply(dst, src []float64, _ tensor.Shape) error {
	dst[0] = src[c.j]
	return nil
}

func (c coefficient) Adjoint(dst, src []float64, _ tensor.Shape) error {
	clear(dst)
	dst[c.j] = src[0]
	return nil
}

// Bind implements Binder: the Krylov vectors K_j = (AᵀA)^j v, j < D, are
// computed once (D−1 applications of AᵀA); the bound map is then
// θ ↦ Σ θ_j K_j and its adjoint r ↦ (⟨K_j, r⟩)_j.
func (p NormalPoly) Bind(v []float64, n, h, w int) (Bound, error) {
	if err := checkBatch(p.Name(), v, n, h, w); err != nil {
		return nil, err
	}
	if p.Op == nil {
		return nil, fmt.Errorf("%s: %w", p.Name(), ErrNoOperator)
	}
	b := &boundNormalPoly{p: p, in: tensor.Shape{n, h, w}, ks: make([][]float64, p.D)}
	for j := range b.ks {
		b.ks[j] = make([]float64, len(v))
	}
	if err := b.Rebind(v); err != nil {
		return nil, err
	}
	return b, nil
}

type boundNormalPoly struct {
	p   NormalPoly
	in  tensor.Shape
	ks  [][]float64 // (AᵀA)^j v
	tmp []float64   // A u
}

// Rebind implements Rebinder.
func (b *boundNormalPoly) Rebind(v []float64) error {
	if len(v) != len(b.ks[0]) {
		return fmt.Errorf("%s: rebinding %d values to a bound operator of %d", b.p.Name(), len(v), len(b.ks[0]))
	}
	copy(b.ks[0], v)
	if b.p.D == 1 {
		return nil
	}
	out, err := b.p.Op.OutShape(b.in)
	if err != nil {
		return fmt.Errorf("%s: %w", b.p.Name(), err)
	}
	b.tmp = growSlice(b.tmp, out.TotalSize())
	for j := 1; j < b.p.D; j++ {
		if err := b.p.Op.Apply(b.tmp, b.ks[j-1], b.in); err != nil {
			return fmt.Errorf("%s: A u: %w", b.p.Name(), err)
		}
		if err := b.p.Op.Adjoint(b.ks[j], b.tmp, b.in); err != nil {
			return fmt.Errorf("%s: Aᵀ A u: %w", b.p.Name(), err)
		}
	}
	return nil
}

// AddApply adds c·Σ θ_j K_j to dst, coefficient by coefficient.
func (b *boundNormalPoly) AddApply(dst, theta []float64, c float64) error {
	if err := checkLens(b.p.Name(), len(dst), len(theta), len(b.ks[0]), b.p.D); err != nil {
		return err
	}
	kernels.ParallelFor(len(dst), func(lo, hi int) {
		d := dst[lo:hi]
		for j, k := range b.ks {
			s, kj := c*theta[j], k[lo:hi]
			for i := range d {
				d[i] += s * kj[i]
			}
		}
	})
	return nil
}

func (b *boundNormalPoly) Bytes() int64 { return int64(8 * (len(b.ks)*len(b.ks[0]) + len(b.tmp))) }

// growSlice returns s with length n, reallocated if too small.
func growSlice(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

func newNormalPoly(args string) (Parametrization, error) {
	d, err := strconv.Atoi(args)
	if err != nil || d < 1 || d > 16 {
		return nil, fmt.Errorf("npoly%s: write npolyD with the number of coefficients D from 1 to 16 (npoly3: θ0 + θ1 AᵀA + θ2 (AᵀA)²)", args)
	}
	return NormalPoly{D: d}, nil
}

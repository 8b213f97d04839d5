package problem

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"slices"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Weighted is the regularizer of a family of regularisation weights
// (Options.AlphaRange): function k's is C[k]·S, so that with the
// objective's α its weight is α·C[k]. Everything that takes a Regularizer
// takes it (the general evaluation path, graphs, the affine form when S is
// an Analysis); the fused and float32 evaluations recognise Huber-TV and
// refuse it with their own errors, as they refuse a family of operators.
type Weighted struct {
	S Regularizer
	C []float64
}

func (r *Weighted) String() string {
	h := sha256.New()
	for _, c := range r.C {
		binary.Write(h, binary.LittleEndian, c)
	}
	return fmt.Sprintf("weighted(%s, %d weights in [%.6g, %.6g], %s)", r.S, len(r.C), slices.Min(r.C), slices.Max(r.C), hex.EncodeToString(h.Sum(nil))[:12])
}

// check refuses a batch of other than len(C) images.
func (r *Weighted) check(n int) error {
	if n != len(r.C) {
		return fmt.Errorf("%s: a batch of %d images for %d weights", r, n, len(r.C))
	}
	return nil
}

// ValueGrad implements Regularizer: C[k]·S(x_k) and C[k]·∇S(x_k).
func (r *Weighted) ValueGrad(vals, grad, x []float64, n, h, w int) error {
	if err := r.check(n); err != nil {
		return err
	}
	if err := r.S.ValueGrad(vals, grad, x, n, h, w); err != nil {
		return err
	}
	r.scale(vals, grad, h*w)
	return nil
}

// scale multiplies vals[k] and grad's block k (of length m) by C[k].
func (r *Weighted) scale(vals, grad []float64, m int) {
	for k, c := range r.C {
		if vals != nil {
			vals[k] *= c
		}
		if grad != nil {
			for i := k * m; i < (k+1)*m; i++ {
				grad[i] *= c
			}
		}
	}
}

// GraphValue implements Regularizer: Σ_k C[k]·S(x_k), one slice of x a
// function.
func (r *Weighted) GraphValue(x *G.Node) (*G.Node, error) {
	if err := r.check(x.Shape()[0]); err != nil {
		return nil, err
	}
	var sum *G.Node
	for k, c := range r.C {
		xk, err := G.Slice(x, G.S(k, k+1))
		if err != nil {
			return nil, err
		}
		v, err := r.S.GraphValue(xk)
		if err != nil {
			return nil, err
		}
		if v, err = G.Mul(v, G.NewConstant(c)); err != nil {
			return nil, err
		}
		if sum == nil {
			sum = v
		} else if sum, err = G.Add(sum, v); err != nil {
			return nil, err
		}
	}
	return sum, nil
}

// GraphGrad implements Regularizer: ∇S(x) times C[k] on image k.
func (r *Weighted) GraphGrad(x *G.Node) (*G.Node, error) {
	shape := tensor.Shape(x.Shape()).Clone()
	if err := r.check(shape[0]); err != nil {
		return nil, err
	}
	g, err := r.S.GraphGrad(x)
	if err != nil {
		return nil, err
	}
	m := shape.TotalSize() / shape[0]
	c := make([]float64, shape.TotalSize())
	for k, v := range r.C {
		for i := k * m; i < (k+1)*m; i++ {
			c[i] = v
		}
	}
	return G.HadamardProd(g, G.NewConstant(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(c))))
}

// Lipschitz implements Regularizer: the largest C[k]·Lip(∇S).
func (r *Weighted) Lipschitz() float64 { return slices.Max(r.C) * r.S.Lipschitz() }

// Zero implements Regularizer.
func (r *Weighted) Zero() bool { return r.S.Zero() || slices.Max(r.C) == 0 }

// FunctionWeight returns C[k], the weight of function k's regularizer
// relative to the objective's α.
func (r *Weighted) FunctionWeight(k int) float64 { return r.C[k] }

// Unweighted returns S.
func (r *Weighted) Unweighted() Regularizer { return r.S }

// FunctionWeights is a regularizer whose weight differs by function
// (Weighted): function k's is FunctionWeight(k)·Unweighted(). Code that
// evaluates one function at a time (the affine step loss) applies the
// weight itself.
type FunctionWeights interface {
	Regularizer
	FunctionWeight(k int) float64
	Unweighted() Regularizer
}

// NewWeighted returns the regularizer C[k]·S of function k: a *Weighted,
// or when S is an Analysis a *WeightedAnalysis, which is one too.
func NewWeighted(s Regularizer, c []float64) Regularizer {
	w := &Weighted{S: s, C: c}
	if an, ok := s.(Analysis); ok {
		return &WeightedAnalysis{Weighted: w, an: an}
	}
	return w
}

// subsetWeights returns the regularizer of the functions idx
// (Objective.Subset).
func (r *Weighted) subsetWeights(idx []int) Regularizer {
	c := make([]float64, len(idx))
	for i, k := range idx {
		c[i] = r.C[k]
	}
	return NewWeighted(r.S, c)
}

// WeightedAnalysis is a Weighted regularizer whose S is an Analysis: the
// analysis operator is S's, the potential of image k S's times C[k].
type WeightedAnalysis struct {
	*Weighted
	an Analysis
}

// AnalysisLen implements Analysis.
func (r *WeightedAnalysis) AnalysisLen(h, w int) int { return r.an.AnalysisLen(h, w) }

// Analyze implements Analysis.
func (r *WeightedAnalysis) Analyze(dst, x []float64, n, h, w int) error {
	return r.an.Analyze(dst, x, n, h, w)
}

// Potential implements Analysis.
func (r *WeightedAnalysis) Potential(vals, deriv, z []float64, n, h, w int) error {
	if err := r.check(n); err != nil {
		return err
	}
	if err := r.an.Potential(vals, deriv, z, n, h, w); err != nil {
		return err
	}
	r.scale(vals, deriv, r.an.AnalysisLen(h, w))
	return nil
}

// alphaFamily draws each of n functions' weight log-uniformly from
// [lo, hi] and returns it relative to hi (Options.AlphaRange).
func alphaFamily(n int, lo, hi float64, draw func() float64) []float64 {
	c := make([]float64, n)
	for k := range c {
		c[k] = math.Exp(math.Log(lo)+(math.Log(hi)-math.Log(lo))*draw()) / hi
	}
	return c
}

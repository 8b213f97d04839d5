package problem

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"gorgonia.org/tensor"
)

// PerFunction is the forward operator of a family of functions that do not
// share one: image k of a batch goes through Ops[k] (each with the same
// data shape). Training over a family of operators (Options.BlurSigmaRange)
// gives its objectives one; everything that takes an Operator takes it
// (graph.LinearMap), the step loss and the operator-aware parametrizations
// (models.NormalPoly) included, on the general evaluation path (the fused
// single-blur kernels, float32 and the device forms recognise one blur and
// refuse a family with their own errors).
type PerFunction struct {
	Ops  []Operator
	name string
}

// NewPerFunction returns the operator applying ops[k] to image k; label
// names the family in String (with a hash of every member, so that two
// families differ in String whenever a member does).
func NewPerFunction(label string, ops []Operator) *PerFunction {
	h := sha256.New()
	for _, op := range ops {
		fmt.Fprintln(h, op)
	}
	return &PerFunction{Ops: ops, name: fmt.Sprintf("%s(%d operators, %s)", label, len(ops), hex.EncodeToString(h.Sum(nil))[:12])}
}

func (p *PerFunction) String() string { return p.name }

// DataShape implements Operator (the members share it).
func (p *PerFunction) DataShape(h, w int) []int { return p.Ops[0].DataShape(h, w) }

// OutShape implements graph.LinearMap for [n,H,W] with n = len(Ops).
func (p *PerFunction) OutShape(in tensor.Shape) (tensor.Shape, error) {
	if len(in) != 3 {
		return nil, fmt.Errorf("%s: input of shape %v, want [N,H,W]", p.name, in)
	}
	return batchShape(in[0], p.Ops[0].DataShape(in[1], in[2])...), nil
}

// Apply implements graph.LinearMap: dst_k = Ops[k] src_k.
func (p *PerFunction) Apply(dst, src []float64, in tensor.Shape) error {
	return p.each(dst, src, in, func(op Operator, d, s []float64, one tensor.Shape) error { return op.Apply(d, s, one) })
}

// Adjoint implements graph.LinearMap: dst_k = Ops[k]ᵀ src_k.
func (p *PerFunction) Adjoint(dst, src []float64, in tensor.Shape) error {
	return p.each(src, dst, in, func(op Operator, d, s []float64, one tensor.Shape) error { return op.Adjoint(s, d, one) })
}

// each calls f on every image k with its data slice d_k and image slice
// s_k (Apply's dst and src; Adjoint swaps them back).
func (p *PerFunction) each(data, img []float64, in tensor.Shape, f func(op Operator, d, s []float64, one tensor.Shape) error) error {
	if len(in) != 3 || in[0] != len(p.Ops) {
		return fmt.Errorf("%s: a batch of shape %v for %d operators", p.name, in, len(p.Ops))
	}
	one := tensor.Shape{1, in[1], in[2]}
	hw, m := in[1]*in[2], len(data)/in[0]
	for k, op := range p.Ops {
		if err := f(op, data[k*m:(k+1)*m], img[k*hw:(k+1)*hw], one); err != nil {
			return fmt.Errorf("%s, function %d: %w", p.name, k, err)
		}
	}
	return nil
}

// Subset returns the operators of the functions idx (Objective.Subset).
func (p *PerFunction) Subset(idx []int) *PerFunction {
	ops := make([]Operator, len(idx))
	for i, k := range idx {
		ops[i] = p.Ops[k]
	}
	return NewPerFunction(strings.SplitN(p.name, "(", 2)[0], ops)
}

// operatorFamily gives each instantiated function its own operator
// (Options.BlurSigmaRange, Options.Angles): a function draws a value v of
// the family's parameter (a blur width, a number of angles) and gets the
// operator build(v).
type operatorFamily struct {
	label  string                     // names the family (PerFunction's String)
	stream uint64                     // the generator's stream, beside the seed
	draw   func(r *rand.Rand) float64 // one function's value
	build  func(v float64) (Operator, error)
	one    bool // every function draws the same value: the family is that operator
}

// blurFamily draws each function's Gaussian blur width uniformly from
// [lo, hi] (Options.BlurSigmaRange); build returns the normalised blur of
// width σ.
func blurFamily(lo, hi float64, build func(sigma float64) (Operator, error)) *operatorFamily {
	return &operatorFamily{
		label:  "gauss5-σ∈[" + sigmaRangeLabel([2]float64{lo, hi}) + "]",
		stream: 0x7369676d61,
		draw: func(r *rand.Rand) float64 {
			s := lo + (hi-lo)*r.Float64()
			return math.Round(s*1e6) / 1e6 // a width that prints exactly in the operator's name
		},
		build: build, one: lo == hi,
	}
}

// operators returns the family's operators for n functions and the values
// drawn, from a generator seeded by seed and seedOffset (the noise's).
func (f *operatorFamily) operators(n int, seed, seedOffset uint64) ([]Operator, []float64, error) {
	r := rand.New(rand.NewPCG(seed, f.stream+seedOffset))
	ops, vals := make([]Operator, n), make([]float64, n)
	built := map[float64]Operator{}
	for k := range n {
		v := f.draw(r)
		op, ok := built[v]
		if !ok {
			var err error
			if op, err = f.build(v); err != nil {
				return nil, nil, err
			}
			built[v] = op
		}
		ops[k], vals[k] = op, v
	}
	return ops, vals, nil
}

// checkSigmaRange checks a σ range [lo, hi] (lo = hi: a family of one).
func checkSigmaRange(r [2]float64) error {
	lo, hi := r[0], r[1]
	if !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 0) {
		return fmt.Errorf("blur width range σ ∈ [%g, %g] must have 0 < low ≤ high < ∞", lo, hi)
	}
	// The kernel's sum falls with σ: the smallest width is the one that
	// may not be sampled.
	return CheckGaussianWidth(5, lo)
}

// sigmaRangeLabel names a range as written on the command line (1:2).
func sigmaRangeLabel(r [2]float64) string {
	return strconv.FormatFloat(r[0], 'g', -1, 64) + ":" + strconv.FormatFloat(r[1], 'g', -1, 64)
}

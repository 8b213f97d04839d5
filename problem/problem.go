package problem

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/greedyl2o/greedyl2o/kernels"
	"gorgonia.org/tensor"
)

// Start says where the iterations start.
type Start int

const (
	// FromObservation starts at x⁰ = y (only when A maps images to images).
	FromObservation Start = iota
	// FromZero starts at x⁰ = 0.
	FromZero
)

func (s Start) String() string {
	if s == FromZero {
		return "zero"
	}
	return "observation"
}

// Problem is a family of inverse problems: an operator, a regularizer with
// weight α, additive Gaussian noise of standard deviation Noise and a rule
// for the starting point. Instantiate turns ground truths into an Objective.
type Problem struct {
	Name  string
	H, W  int
	A     Operator // normalised so that ‖A‖ = NormA (1 for the built-in problems)
	NormA float64
	Reg   Regularizer
	Alpha float64
	Noise float64
	Start Start
	Seed  uint64
	// Conventions name the problem's unstated choices (e.g. the blur's
	// boundary); every objective, checkpoint and curve file records them.
	Conventions Conventions
	// Describe lists human-readable facts (blur kernel, geometry, …).
	Describe []string

	// blurSigma is the Gaussian blur's σ of a deblurring problem (0 for
	// others): Lookup refuses Options.BlurSigma for a problem that did not
	// set it, so a width is never silently ignored.
	blurSigma float64
	// anglesSet: the problem took Options.Angles (the CT problems), so
	// Lookup does not refuse them.
	anglesSet bool
	// family, if set, gives each instantiated function its own operator
	// (Options.BlurSigmaRange, Options.Angles).
	family *operatorFamily
	// noiseRange, if set, gives each instantiated function its own noise
	// level (Options.NoiseRange).
	noiseRange [2]float64
	// alphaRange, if set, gives each instantiated function its own weight
	// α_k ∈ [alphaRange[0], alphaRange[1]] (Options.AlphaRange); Alpha is
	// then alphaRange[1], so L is the family's largest.
	alphaRange [2]float64
}

// L is the smoothness constant ‖A‖² + α Lip(∇S) of every function.
func (p *Problem) L() float64 {
	return p.NormA*p.NormA + p.Alpha*p.Reg.Lipschitz()
}

// Instantiate builds the objective for n ground-truth images truth ([n,H,W]):
// y_k = A x_k + Noise·ξ_k with ξ_k standard normal from a generator seeded by
// Seed and seedOffset (use different offsets for training and test sets).
func (p *Problem) Instantiate(truth []float64, n int, seedOffset uint64) (*Objective, error) {
	hw := p.H * p.W
	if n < 1 || len(truth) != n*hw {
		return nil, fmt.Errorf("problem %s: %d ground-truth values for %d images of %d×%d (want %d)", p.Name, len(truth), n, p.H, p.W, n*hw)
	}
	return p.instantiate(truth, n, 0, n, seedOffset)
}

// BlockImages returns the images [glo, ghi) of n whose ground truths the
// data of functions [lo, hi) are computed from (InstantiateBlock): the
// block itself, or for an operator that applies images in groups
// (BatchGroup) the whole groups that hold it, as Instantiate applies the
// operator to all n.
func (p *Problem) BlockImages(n, lo, hi int) (glo, ghi int) {
	g := p.BatchGroup()
	if p.family != nil && !p.family.one {
		g = 1 // one operator a function (PerFunction): each image on its own
	}
	return groupRange(g, n, lo, hi)
}

// groupRange widens images [lo, hi) of n to the whole groups of g images
// (from the first) that hold them; the images past the last whole group
// are applied together.
func groupRange(g, n, lo, hi int) (glo, ghi int) {
	glo, ghi = lo, hi
	if g > 1 && hi-lo < n {
		full := n / g * g
		if lo < full {
			glo = lo / g * g
		}
		if hi <= full {
			ghi = (hi + g - 1) / g * g
		}
	}
	return glo, ghi
}

// InstantiateBlock is Instantiate for one of several processes that each
// hold a block of the functions: the objective of functions [lo, hi) of
// the n alone (hi − lo functions), with the observations, starting points,
// operators and weights Instantiate gives them, bit for bit, from truth,
// the ground truths of images BlockImages(n, lo, hi) alone (the generators
// advanced past the functions before the block). Family gives every
// function's operators and weights.
func (p *Problem) InstantiateBlock(truth []float64, n, lo, hi int, seedOffset uint64) (*Objective, error) {
	if lo < 0 || hi > n || lo >= hi {
		return nil, fmt.Errorf("problem %s: block [%d, %d) of %d functions", p.Name, lo, hi, n)
	}
	glo, ghi := p.BlockImages(n, lo, hi)
	if want := (ghi - glo) * p.H * p.W; len(truth) != want {
		return nil, fmt.Errorf("problem %s: %d ground-truth values for functions [%d, %d) of %d: want those of images [%d, %d) (BlockImages), %d values", p.Name, len(truth), lo, hi, n, glo, ghi, want)
	}
	return p.instantiate(truth, n, lo, hi, seedOffset)
}

// BatchGroup is Objective.BatchGroup of the problem's functions.
func (p *Problem) BatchGroup() int { return batchGroup(p.A) }

// Family returns the objective of n instantiated functions without their
// data (no observations, starting points or ground truths): their
// operators and weights as Instantiate gives them, for what takes every
// function's where a process holds a block of them (InstantiateBlock).
func (p *Problem) Family(n int, seedOffset uint64) (*Objective, error) {
	a, err := p.operatorFor(n, seedOffset)
	if err != nil {
		return nil, err
	}
	reg := p.Reg
	if p.alphaRange[1] > 0 {
		r := rand.New(rand.NewPCG(p.Seed, 0x616c706861+seedOffset))
		reg = NewWeighted(p.Reg, alphaFamily(n, p.alphaRange[0], p.alphaRange[1], r.Float64))
	}
	return &Objective{
		A: a, Reg: reg, Alpha: p.Alpha, N: n, H: p.H, W: p.W, Noise: p.noiseName(),
		L: p.L(), NormA: p.NormA,
		Problem: p.Name, Conventions: maps.Clone(p.Conventions),
	}, nil
}

// instantiate builds functions [lo, hi) of n from truth, the ground truths
// of images BlockImages(n, lo, hi).
func (p *Problem) instantiate(truth []float64, n, lo, hi int, seedOffset uint64) (*Objective, error) {
	hw := p.H * p.W
	glo, ghi := p.BlockImages(n, lo, hi)
	for i, v := range truth {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("problem %s: ground truth image %d has a non-finite pixel (%v)", p.Name, glo+i/hw, v)
		}
	}
	o, err := p.Family(n, seedOffset)
	if err != nil {
		return nil, err
	}
	out, err := o.A.OutShape(tensor.Shape{n, p.H, p.W})
	if err != nil {
		return nil, fmt.Errorf("problem %s: %w", p.Name, err)
	}
	m := out.TotalSize() / n
	if hi-lo < n {
		idx := blockIndices(lo, hi)
		if pf, ok := o.A.(*PerFunction); ok {
			o.A = pf.Subset(idx)
		}
		if w, ok := o.Reg.(interface{ subsetWeights([]int) Regularizer }); ok {
			o.Reg = w.subsetWeights(idx)
		}
	}
	y := make([]float64, (hi-lo)*m)
	if err := applyGroups(o.A, y, truth, ghi-glo, lo-glo, hi-lo, p.H, p.W); err != nil {
		return nil, fmt.Errorf("problem %s: simulating data: %w", p.Name, err)
	}
	levels := p.noiseLevels(n, seedOffset)
	r := rand.New(rand.NewPCG(p.Seed, 0x6e6f697365+seedOffset))
	for range lo * m { // the draws of the functions before the block
		r.NormFloat64()
	}
	for i := range y {
		y[i] += levels[lo+i/m] * r.NormFloat64()
	}
	if pf, ok := o.A.(*PerFunction); ok {
		pf.clearUnmeasured(y) // a scan's unmeasured angles hold no data (PaddedRows)
	}
	x0 := make([]float64, (hi-lo)*hw)
	if p.Start == FromObservation {
		if m != hw {
			return nil, fmt.Errorf("problem %s: cannot start at the observation: data are not images", p.Name)
		}
		copy(x0, y)
	}
	o.N, o.Y, o.X0 = hi-lo, y, x0
	o.Truth = append([]float64(nil), truth[(lo-glo)*hw:(hi-glo)*hw]...)
	return o, nil
}

// grouped is an operator whose result for an image depends on the images
// applied with it, in groups of batchGroup images from the batch's first
// (RayTransform: the projector's lanes).
type grouped interface{ batchGroup() int }

// BatchGroup returns the number of images the operator applies together,
// from a batch's first (1: each on its own; the CT projector's lanes): a
// block of the functions is computed as in the whole batch when it starts
// at a multiple of it and ends at one or at the batch's end.
func (o *Objective) BatchGroup() int { return batchGroup(o.A) }

// batchGroup returns a's group (1: every image on its own).
func batchGroup(a Operator) int {
	switch op := a.(type) {
	case grouped:
		return op.batchGroup()
	case *Scaled:
		return batchGroup(op.Op)
	}
	return 1
}

// applyGroups writes into y the data of the nb images from image at of
// the g images of truth, a applying all g together (the whole groups that
// hold a block: BlockImages).
func applyGroups(a Operator, y, truth []float64, g, at, nb, h, w int) error {
	if at == 0 && nb == g {
		return a.Apply(y, truth, tensor.Shape{g, h, w})
	}
	m := len(y) / nb
	tmp := make([]float64, g*m)
	if err := a.Apply(tmp, truth, tensor.Shape{g, h, w}); err != nil {
		return err
	}
	copy(y, tmp[at*m:])
	return nil
}

// blockIndices returns lo, lo+1, …, hi−1.
func blockIndices(lo, hi int) []int {
	idx := make([]int, 0, hi-lo)
	for k := lo; k < hi; k++ {
		idx = append(idx, k)
	}
	return idx
}

// noiseName is Objective.Noise for the functions of p.
func (p *Problem) noiseName() string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	if p.noiseRange[1] != 0 {
		return g(p.noiseRange[0]) + ":" + g(p.noiseRange[1])
	}
	return g(p.Noise)
}

// noiseLevels returns the noise level of each of n instantiated functions:
// Noise, or for a family of noise levels (Options.NoiseRange) one drawn
// uniformly a function from a generator seeded by Seed and seedOffset.
func (p *Problem) noiseLevels(n int, seedOffset uint64) []float64 {
	levels := make([]float64, n)
	lo, hi := p.noiseRange[0], p.noiseRange[1]
	if hi == 0 {
		for k := range levels {
			levels[k] = p.Noise
		}
		return levels
	}
	r := rand.New(rand.NewPCG(p.Seed, 0x6c6576656c+seedOffset))
	for k := range levels {
		levels[k] = lo + (hi-lo)*r.Float64()
	}
	return levels
}

// operatorFor returns the forward operator of n instantiated functions:
// the problem's A, or for a family (Options.BlurSigmaRange) one operator a
// function, drawn from a generator seeded by Seed and seedOffset.
func (p *Problem) operatorFor(n int, seedOffset uint64) (Operator, error) {
	if p.family == nil {
		return p.A, nil
	}
	ops, _, err := p.family.operators(n, p.Seed, seedOffset)
	if err != nil {
		return nil, fmt.Errorf("problem %s: %w", p.Name, err)
	}
	if p.family.one {
		return ops[0], nil // a family of one operator is that operator
	}
	return NewPerFunction(p.family.label, ops), nil
}

// Options adjust a built-in problem.
type Options struct {
	// H, W override the image size (0 keeps the problem's default).
	H, W int
	// Seed for the noise (0 keeps the default, 1).
	Seed uint64
	// WCRRWeights is the path of the weakly convex ridge regularizer's weights,
	// for problems that need them.
	WCRRWeights string
	// BlurBoundary is the blur's boundary condition for the deblurring
	// problems: "zero", "circular" or "reflect" ("" keeps
	// DefaultBlurBoundary). Problems without a blur refuse it.
	BlurBoundary string
	// Alpha overrides the regularizer's weight α (0 keeps the problem's);
	// L follows it.
	Alpha float64
	// BlurSigma overrides the Gaussian blur's standard deviation in pixels
	// for the deblurring problems (0 keeps theirs, 1.5); the blur stays 5×5
	// and normalised to ‖A‖ = 1, so L does not change. Problems without a
	// Gaussian blur refuse it. Out-of-distribution tests use it (l2o eval
	// --shift).
	BlurSigma float64
	// BlurSigmaRange, if set, makes deblur a family of operators: each
	// function draws its own Gaussian blur width σ uniformly from
	// [BlurSigmaRange[0], BlurSigmaRange[1]] (seeded as the noise is), each
	// blur 5×5 and normalised to ‖A‖ = 1 (so L is the family's), and the
	// objectives' A applies each function's own blur (PerFunction).
	BlurSigmaRange [2]float64
	// AlphaRange, if set, makes a family of regularisation weights: each
	// function draws its α_k log-uniformly from [AlphaRange[0],
	// AlphaRange[1]] (seeded as the noise is); the objective's α is the
	// largest, AlphaRange[1], its regularizer α_k/α·S (Weighted), and L the
	// family's largest. The operator and the data do not change.
	AlphaRange [2]float64
	// Noise overrides the standard deviation of the additive Gaussian noise
	// (0 keeps the problem's).
	Noise float64
	// Angles sets the number of projection angles of the CT problems (over
	// [0, π), nil keeps theirs): one value is that scan; several make a
	// family of operators (sparse-view CT), each function drawing one of
	// them uniformly (seeded as the noise is), each ray transform normalised
	// to ‖A‖ = 1 and its data padded to the largest number of angles with
	// unmeasured, zero rows (PaddedRows). Other problems refuse it.
	Angles []int
	// NoiseRange, if set, makes a family of noise levels: each function
	// draws its own standard deviation uniformly from [NoiseRange[0],
	// NoiseRange[1]] (seeded as the noise is). The operator and L do not
	// change.
	NoiseRange [2]float64
}

// Constructor builds a Problem from options.
type Constructor func(Options) (*Problem, error)

var registry = map[string]struct {
	build   Constructor
	summary string
}{}

// Register adds a named problem to the list that Lookup knows.
func Register(name, summary string, build Constructor) {
	registry[name] = struct {
		build   Constructor
		summary string
	}{build, summary}
}

// Lookup builds the named problem.
func Lookup(name string, opt Options) (*Problem, error) {
	if err := CheckOptions(name, opt); err != nil {
		return nil, err
	}
	p, err := registry[name].build(opt)
	if err != nil {
		return nil, err
	}
	if opt.Alpha > 0 {
		p.Describe = append(p.Describe, fmt.Sprintf("α set to %g (the problem's own: %g)", opt.Alpha, p.Alpha))
		p.Alpha = opt.Alpha
	}
	if opt.BlurSigmaRange != ([2]float64{}) && p.family == nil {
		return nil, fmt.Errorf("problem %s: a family of blur widths σ ∈ [%g, %g] was asked for, but only deblur draws its blur per function", name, opt.BlurSigmaRange[0], opt.BlurSigmaRange[1])
	}
	if opt.AlphaRange != ([2]float64{}) {
		lo, hi := opt.AlphaRange[0], opt.AlphaRange[1]
		if p.Reg.Zero() {
			return nil, fmt.Errorf("problem %s: regularisation weights [%g, %g] were asked for, but the problem has no regularizer to weigh", name, lo, hi)
		}
		if lo < hi {
			p.Describe = append(p.Describe, fmt.Sprintf("α drawn log-uniformly from [%g, %g] for each function (the problem's own: %g); L is the family's largest", lo, hi, p.Alpha))
			p.alphaRange = opt.AlphaRange
		} else {
			p.Describe = append(p.Describe, fmt.Sprintf("α set to %g (the problem's own: %g)", hi, p.Alpha))
		}
		p.Alpha = hi // a family of one weight is that weight
	}
	if len(opt.Angles) > 0 && !p.anglesSet {
		return nil, fmt.Errorf("problem %s: a number of angles (%v) was asked for, but only the CT problems (ct, ct-small) have projection angles", name, opt.Angles)
	}
	if opt.BlurSigma != 0 && p.blurSigma != opt.BlurSigma {
		return nil, fmt.Errorf("problem %s: a blur width σ = %g was asked for but the problem has no Gaussian blur whose width can be set (deblur and deblur-wcrr do)", name, opt.BlurSigma)
	}
	if opt.Noise > 0 {
		p.Describe = append(p.Describe, fmt.Sprintf("noise level set to %g (the problem's own: %g)", opt.Noise, p.Noise))
		p.Noise = opt.Noise
	}
	if opt.NoiseRange != ([2]float64{}) {
		lo, hi := opt.NoiseRange[0], opt.NoiseRange[1]
		p.noiseRange = opt.NoiseRange
		p.Describe = append(p.Describe, fmt.Sprintf("noise level drawn uniformly from [%g, %g] for each function (the problem's own: %g)", lo, hi, p.Noise))
	}
	return p, nil
}

// CheckOptions checks what Lookup can check of opt without building the
// problem (no operator, no data, no norm): the problem's name, α, the noise
// level, the blur width and their ranges. Lookup calls it first.
func CheckOptions(name string, opt Options) error {
	if _, ok := registry[name]; !ok {
		return fmt.Errorf("unknown problem %q: choose one of %s", name, strings.Join(Names(), ", "))
	}
	if opt.Alpha < 0 || math.IsNaN(opt.Alpha) || math.IsInf(opt.Alpha, 0) {
		return fmt.Errorf("problem %s: α = %g must be a finite value ≥ 0", name, opt.Alpha)
	}
	if opt.AlphaRange != ([2]float64{}) {
		lo, hi := opt.AlphaRange[0], opt.AlphaRange[1]
		if opt.Alpha != 0 || !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 0) {
			return fmt.Errorf("problem %s: regularisation weights [%g, %g] must have 0 < low ≤ high < ∞, no single α beside them, and a regularizer to weigh", name, lo, hi)
		}
	}
	if opt.Noise < 0 || math.IsNaN(opt.Noise) || math.IsInf(opt.Noise, 0) {
		return fmt.Errorf("problem %s: noise level %g must be a finite value ≥ 0", name, opt.Noise)
	}
	if opt.NoiseRange != ([2]float64{}) {
		lo, hi := opt.NoiseRange[0], opt.NoiseRange[1]
		if opt.Noise != 0 || !(lo >= 0) || !(hi >= lo) || math.IsInf(hi, 0) || hi == 0 {
			return fmt.Errorf("problem %s: noise levels [%g, %g] must have 0 ≤ low ≤ high < ∞, high > 0, and no single noise level beside them", name, lo, hi)
		}
	}
	if opt.BlurSigma != 0 {
		if err := CheckGaussianWidth(5, opt.BlurSigma); err != nil {
			return fmt.Errorf("problem %s: %w", name, err)
		}
	}
	if opt.BlurSigmaRange != ([2]float64{}) {
		if opt.BlurSigma != 0 {
			return fmt.Errorf("problem %s: a blur width σ = %g and a range %s: give one", name, opt.BlurSigma, sigmaRangeLabel(opt.BlurSigmaRange))
		}
		if err := checkSigmaRange(opt.BlurSigmaRange); err != nil {
			return fmt.Errorf("problem %s: %w", name, err)
		}
	}
	return nil
}

// Names lists the registered problems, sorted.
func Names() []string {
	var out []string
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Summary is the one-line description of a registered problem.
func Summary(name string) string { return registry[name].summary }

func init() {
	Register("deblur", "Problem 1: Huber-TV deblurring, 5×5 Gaussian blur σ=1.5 (zero, circular or reflect boundary), 96×96, noise 0.01, α=2e-4, ε=0.005, x0 = y", Deblur)
}

// Deblur is Problem 1 of the paper: Huber-TV deblurring with a 5×5 Gaussian
// blur of σ = 1.5 normalised to ‖A‖ = 1, 96×96 images, noise 0.01,
// α = 2e-4, Huber ε = 0.005 (so L = 1 + 8α/ε = 1.32), x⁰ = y. The paper does
// not state the blur's boundary; opt.BlurBoundary chooses it (zero padding by
// default, DefaultBlurBoundary) and the problem records it as a convention.
// "reflect" is the half-sample symmetric extension (… b a | a b …).
func Deblur(opt Options) (*Problem, error) {
	h, w := sizeOr(opt, 96, 96)
	bnd, err := blurBoundary(opt)
	if err != nil {
		return nil, fmt.Errorf("problem deblur: %w", err)
	}
	sigma := 1.5
	var family *operatorFamily
	if opt.BlurSigmaRange != ([2]float64{}) {
		if opt.BlurSigma != 0 {
			return nil, fmt.Errorf("problem deblur: a blur width σ = %g and a range %s: give one", opt.BlurSigma, sigmaRangeLabel(opt.BlurSigmaRange))
		}
		if err := checkSigmaRange(opt.BlurSigmaRange); err != nil {
			return nil, fmt.Errorf("problem deblur: %w", err)
		}
		lo, hi := opt.BlurSigmaRange[0], opt.BlurSigmaRange[1]
		family = blurFamily(lo, hi, func(s float64) (Operator, error) { return normalisedGaussian(s, bnd, h, w) })
		sigma = (lo + hi) / 2 // the problem's own A, for what needs one operator
	}
	if opt.BlurSigma != 0 {
		if err := CheckGaussianWidth(5, opt.BlurSigma); err != nil {
			return nil, fmt.Errorf("problem deblur: %w", err)
		}
		sigma = opt.BlurSigma
	}
	a, nrm, err := gaussianBlur(sigma, bnd, h, w)
	if err != nil {
		return nil, err
	}
	p := &Problem{
		Name: "deblur", H: h, W: w, A: a, NormA: 1,
		Reg: HuberTV{Eps: 0.005}, Alpha: 2e-4, Noise: 0.01, Start: FromObservation, Seed: seedOr(opt),
		Conventions: Conventions{ConventionBlurBoundary: bnd.String()},
		blurSigma:   opt.BlurSigma,
		family:      family,
		Describe: []string{
			fmt.Sprintf("operator: 5×5 Gaussian blur, σ = %g, %s boundary", sigma, bnd),
			fmt.Sprintf("‖blur‖ before normalisation: %.12g", nrm),
		},
	}
	if family != nil {
		p.Describe[0] = fmt.Sprintf("operator: 5×5 Gaussian blur of a width σ drawn uniformly from [%g, %g] for each function (normalised to ‖A‖ = 1 each), %s boundary", opt.BlurSigmaRange[0], opt.BlurSigmaRange[1], bnd)
		p.Describe[1] = fmt.Sprintf("‖blur‖ before normalisation at the middle width σ = %g: %.12g", sigma, nrm)
	}
	return p, nil
}

// gaussianBlur is the 5×5 Gaussian blur of width σ on h×w images with
// boundary bnd, normalised to ‖A‖ = 1, and its norm before normalising.
func gaussianBlur(sigma float64, bnd kernels.Boundary, h, w int) (Operator, float64, error) {
	blur, err := NewBlur("gauss5-"+strconv.FormatFloat(sigma, 'g', -1, 64), GaussianKernel(5, sigma), 5, bnd)
	if err != nil {
		return nil, 0, err
	}
	if err := blur.Validate(h, w); err != nil {
		return nil, 0, fmt.Errorf("problem deblur: %w", err)
	}
	a, nrm, err := Normalize(blur, h, w)
	if err != nil {
		return nil, 0, fmt.Errorf("problem deblur: %w", err)
	}
	return a, nrm, nil
}

// normalisedGaussian is gaussianBlur's operator (a family member).
func normalisedGaussian(sigma float64, bnd kernels.Boundary, h, w int) (Operator, error) {
	a, _, err := gaussianBlur(sigma, bnd, h, w)
	return a, err
}

// Validate checks that the blur can act on h×w images.
func (b *Blur) Validate(h, w int) error {
	return kernels.Conv{N: 1, H: h, W: w, K: b.K, Boundary: b.Boundary}.Validate()
}

func sizeOr(opt Options, h, w int) (int, int) {
	if opt.H > 0 {
		h = opt.H
	}
	if opt.W > 0 {
		w = opt.W
	} else if opt.H > 0 {
		w = opt.H
	}
	return h, w
}

func seedOr(opt Options) uint64 {
	if opt.Seed != 0 {
		return opt.Seed
	}
	return 1
}

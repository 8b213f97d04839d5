package problem

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/greedyl2o/greedyl2o/tomo"
	"gorgonia.org/tensor"
)

// RayTransform is the parallel-beam ray transform (Joseph's model, matrix-free,
// with an exactly matched adjoint) as an Operator: [N,n,n] → [N,angles,det].
type RayTransform struct {
	P *tomo.Projector
}

// NewRayTransform returns the ray transform for n×n images, the given number of
// angles over [0, π) and detector bins (det ≤ 0: ⌈n√2⌉).
func NewRayTransform(n, angles, det int) (*RayTransform, error) {
	g, err := tomo.NewGeometry(n, angles, det)
	if err != nil {
		return nil, err
	}
	p, err := tomo.NewProjector(g)
	if err != nil {
		return nil, err
	}
	return &RayTransform{P: p}, nil
}

// batchGroup implements grouped: the projector's lanes.
func (r *RayTransform) batchGroup() int { return tomo.Lanes }

func (r *RayTransform) String() string {
	g := r.P.Geometry()
	return fmt.Sprintf("raytransform(%d,%d,%d)", g.N, g.Angles, g.Det)
}

// DataShape implements Operator.
func (r *RayTransform) DataShape(h, w int) []int {
	g := r.P.Geometry()
	return []int{g.Angles, g.Det}
}

func (r *RayTransform) batch(in tensor.Shape) (int, error) {
	n, h, w, err := batchDims(in)
	if err != nil {
		return 0, err
	}
	if g := r.P.Geometry(); h != g.N || w != g.N {
		return 0, fmt.Errorf("ray transform for %d×%d images applied to %d×%d", g.N, g.N, h, w)
	}
	return n, nil
}

// OutShape implements graph.LinearMap.
func (r *RayTransform) OutShape(in tensor.Shape) (tensor.Shape, error) {
	n, err := r.batch(in)
	if err != nil {
		return nil, err
	}
	g := r.P.Geometry()
	return tensor.Shape{n, g.Angles, g.Det}, nil
}

// Apply implements graph.LinearMap.
func (r *RayTransform) Apply(dst, src []float64, in tensor.Shape) error {
	n, err := r.batch(in)
	if err != nil {
		return err
	}
	return r.P.Forward(dst, src, n)
}

// Adjoint implements graph.LinearMap.
func (r *RayTransform) Adjoint(dst, src []float64, in tensor.Shape) error {
	n, err := r.batch(in)
	if err != nil {
		return err
	}
	return r.P.Adjoint(dst, src, n)
}

func batchDims(s tensor.Shape) (n, h, w int, err error) {
	switch s.Dims() {
	case 2:
		return 1, s[0], s[1], nil
	case 3:
		return s[0], s[1], s[2], nil
	}
	return 0, 0, 0, fmt.Errorf("want an image batch [N,H,W], got shape %v", s)
}

func init() {
	Register("ct", "Problem 2: Huber-TV CT, parallel beam, 180 angles, 256×256, 363 bins, noise 0.01, α=3e-4, ε=0.01, x0 = 0", CT)
	Register("ct-small", "Problem 2, small: 40×40, 90 angles, 57 bins, α=1e-4, ε=0.01, x0 = 0 (PF feasible)", CTSmall)
}

// CT is Problem 2: Huber-TV tomography with a parallel-beam ray transform
// (180 angles over 180°, ⌈n√2⌉ detector bins) normalised to ‖A‖ = 1, 256×256
// images, noise 0.01, α = 3e-4, ε = 0.01 (L = 1.24), x⁰ = 0.
func CT(opt Options) (*Problem, error) {
	n, _ := sizeOr(opt, 256, 256)
	return ctProblem("ct", n, 180, 3e-4, opt)
}

// CTSmall is the 40×40 variant of Problem 2 with 90 angles and α = 1e-4 (L = 1.08).
func CTSmall(opt Options) (*Problem, error) {
	n, _ := sizeOr(opt, 40, 40)
	return ctProblem("ct-small", n, 90, 1e-4, opt)
}

func ctProblem(name string, n, angles int, alpha float64, opt Options) (*Problem, error) {
	if err := noBlur(name, opt); err != nil {
		return nil, err
	}
	if opt.W > 0 && opt.W != n {
		return nil, fmt.Errorf("problem %s needs square images, got %d×%d", name, n, opt.W)
	}
	list, err := checkAngles(name, opt.Angles)
	if err != nil {
		return nil, err
	}
	if len(list) > 0 {
		angles = list[len(list)-1] // one scan, or the family's largest, for what needs one operator
	}
	rt, a, nrm, err := normalisedRayTransform(n, angles)
	if err != nil {
		return nil, fmt.Errorf("problem %s: %w", name, err)
	}
	g := rt.P.Geometry()
	p := &Problem{
		Name: name, H: n, W: n, A: a, NormA: 1,
		Reg: HuberTV{Eps: 0.01}, Alpha: alpha, Noise: 0.01, Start: FromZero, Seed: seedOr(opt),
		anglesSet: true,
		Describe: []string{
			fmt.Sprintf("operator: parallel-beam ray transform (Joseph), %d angles over [0, π), %d detector bins", g.Angles, g.Det),
			fmt.Sprintf("‖ray transform‖ before normalisation: %.12g (√(AᵀA) top eigenvalue, Lanczos)", nrm),
			fmt.Sprintf("matrix-free: %.1f MiB of per-ray tables", float64(g.Angles*g.Det*16)/math.Exp2(20)),
		},
	}
	if len(list) > 1 {
		p.family = angleFamily(list, func(k int) (Operator, error) {
			_, a, _, err := normalisedRayTransform(n, k)
			if err != nil {
				return nil, fmt.Errorf("problem %s: %w", name, err)
			}
			if k == angles {
				return a, nil
			}
			return NewPaddedRows(a, n, n, angles)
		})
		p.Describe[0] = fmt.Sprintf("operator: parallel-beam ray transform (Joseph) with %s angles over [0, π), one drawn uniformly for each function (sparse view; each normalised to ‖A‖ = 1, its data padded to %d angles with unmeasured zero rows), %d detector bins",
			anglesLabel(list), angles, g.Det)
		p.Describe[1] = fmt.Sprintf("‖ray transform‖ before normalisation at %d angles: %.12g", angles, nrm)
	}
	return p, nil
}

// normalisedRayTransform is the ray transform of n×n images with the given
// number of angles normalised to ‖A‖ = 1, and its norm before.
func normalisedRayTransform(n, angles int) (*RayTransform, Operator, float64, error) {
	rt, err := NewRayTransform(n, angles, 0)
	if err != nil {
		return nil, nil, 0, err
	}
	a, nrm, err := Normalize(rt, n, n)
	if err != nil {
		return nil, nil, 0, err
	}
	return rt, a, nrm, nil
}

// checkAngles checks and sorts Options.Angles: numbers of angles in [1,
// 4096], each at most once.
func checkAngles(name string, angles []int) ([]int, error) {
	list := slices.Clone(angles)
	slices.Sort(list)
	for i, k := range list {
		if k < 1 || k > 4096 {
			return nil, fmt.Errorf("problem %s: %d angles: give numbers of angles in [1, 4096]", name, k)
		}
		if i > 0 && list[i-1] == k {
			return nil, fmt.Errorf("problem %s: %d angles given twice: give each number of angles once (the family draws each with equal probability)", name, k)
		}
	}
	return list, nil
}

// angleFamily draws each function's number of angles uniformly from list
// (sorted, several values); build returns that scan's operator.
func angleFamily(list []int, build func(angles int) (Operator, error)) *operatorFamily {
	return &operatorFamily{
		label:  "raytransform-angles∈{" + anglesLabel(list) + "}",
		stream: 0x616e676c6573,
		draw:   func(r *rand.Rand) float64 { return float64(list[r.IntN(len(list))]) },
		build:  func(v float64) (Operator, error) { return build(int(v)) },
	}
}

// anglesLabel writes a list of numbers of angles as on the command line.
func anglesLabel(list []int) string {
	s := make([]string, len(list))
	for i, k := range list {
		s[i] = strconv.Itoa(k)
	}
	return strings.Join(s, ",")
}

package models

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/greedyl2o/greedyl2o/graph"
	G "gorgonia.org/gorgonia"
)

// ErrUndeclared marks a parametrization that is not what the Parametrization
// interface declares (CheckDeclared). Test with errors.Is.
var ErrUndeclared = errors.New("parametrization is not what it declares")

// declaredProbe is the image size CheckDeclared probes at when a
// parametrization is parsed, and declaredMaxParams the parameters above
// which it is not probed there (a PF of a large image, a kernel larger than
// the probe: Method.CheckSize refuses those on the real size).
const (
	declaredProbe     = 8
	declaredMaxParams = 1 << 13
)

// CheckDeclared checks that p is what it declares on h×w images: Reference
// gives ParamShape's number of parameters, and Apply is a linear map of v
// (G_θ(a u + b v) = a G_θ u + b G_θ v to 1e-9, at θ = Reference(1) plus a
// perturbation, on batches of two images), of v's shape. Certificates and
// power-iteration norms assume linearity; a parametrization that is not
// linear in v (θ·v², say) would train without complaint and certify wrongly.
func CheckDeclared(p Parametrization, h, w int) error {
	shape := p.ParamShape(h, w)
	nParams := shape.TotalSize()
	ref := p.Reference(1, h, w)
	if len(ref) != nParams {
		return fmt.Errorf("%w: %s: Reference gives %d parameters on %d×%d images, ParamShape %v holds %d; make them agree", ErrUndeclared, p.Name(), len(ref), h, w, shape, nParams)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	theta := make([]float64, nParams)
	for i, r := range ref {
		theta[i] = r + 0.3*rng.NormFloat64()
	}
	const n = 2
	u, v, comb := make([]float64, n*h*w), make([]float64, n*h*w), make([]float64, n*h*w)
	const a, b = 0.7, -1.3
	for i := range u {
		u[i], v[i] = rng.NormFloat64(), rng.NormFloat64()
		comb[i] = a*u[i] + b*v[i]
	}
	g := G.NewGraph()
	th := graph.InputOn(g, "theta", theta, shape...)
	var outs [3]*G.Node
	for i, in := range [][]float64{u, v, comb} {
		x := graph.InputOn(g, fmt.Sprintf("v%d", i), in, n, h, w)
		out, err := p.Apply(th, x)
		if err != nil {
			return fmt.Errorf("%s: Apply on %d×%d images: %w", p.Name(), h, w, err)
		}
		if !out.Shape().Eq(x.Shape()) {
			return fmt.Errorf("%w: %s: Apply gives shape %v for v of shape %v; G_θ v has v's shape", ErrUndeclared, p.Name(), out.Shape(), x.Shape())
		}
		outs[i] = out
	}
	m := graph.NewMachine(g)
	defer m.Close()
	if err := m.Run(); err != nil {
		return fmt.Errorf("%s: Apply on %d×%d images: %w", p.Name(), h, w, err)
	}
	gu, err1 := graph.Value(outs[0])
	gv, err2 := graph.Value(outs[1])
	gc, err3 := graph.Value(outs[2])
	if err := errors.Join(err1, err2, err3); err != nil {
		return fmt.Errorf("%s: %w", p.Name(), err)
	}
	var diff, scale float64
	for i := range gc {
		want := a*gu[i] + b*gv[i]
		diff = math.Max(diff, math.Abs(gc[i]-want))
		scale = math.Max(scale, math.Abs(want))
	}
	if !(diff <= 1e-9*math.Max(scale, 1e-300)) {
		return fmt.Errorf("%w: %s: Apply is not linear in v: G_θ(a u + b v) differs from a G_θ u + b G_θ v by %.3g (relative %.3g); "+
			"a parametrization is a linear operator G_θ (certificates and norms assume it)", ErrUndeclared, p.Name(), diff, diff/math.Max(scale, 1e-300))
	}
	return nil
}

// declared caches CheckDeclared at the probe size by parametrization name.
var declared sync.Map // name → error

// checkDeclaredOnce runs CheckDeclared on declaredProbe² images once per
// name, where the probe holds p's parameters (see declaredMaxParams), and
// returns what it found p is not (ErrUndeclared). Apply failing at the
// probe's size (a kernel larger than it, an operator to bind first) is no
// such evidence: the real size is checked where p is bound.
func checkDeclaredOnce(p Parametrization) (err error) {
	if e, ok := declared.Load(p.Name()); ok {
		err, _ = e.(error)
		return err
	}
	defer func() {
		if recover() != nil || !errors.Is(err, ErrUndeclared) {
			err = nil
		}
		declared.Store(p.Name(), err)
	}()
	if n := p.ParamShape(declaredProbe, declaredProbe).TotalSize(); n > 0 && n <= declaredMaxParams {
		return CheckDeclared(p, declaredProbe, declaredProbe)
	}
	return nil
}

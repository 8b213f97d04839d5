package models

import (
	"errors"
	"fmt"

	G "gorgonia.org/gorgonia"
)

// The learned update of a Method is
//
//	x⁺ = x − G_θ g + H_φ p,  g = ∇f(x), p = x − x⁻,
//
// defined here once, in the two forms its users need: GraphUpdate builds it
// into a gorgonia graph (unrolled training, the whole-graph oracle of the
// greedy step loss), and BoundUpdate applies it to arrays through the terms'
// bound operators (Updater: Algorithm 2, the learned optimizer), tested
// against GraphUpdate.

// GraphUpdate returns the node x − G_θ g + H_φ p for batch nodes x, g, p
// [N,H,W] and parameter nodes θ, φ. Without H (m.H nil), or with p or φ nil,
// there is no momentum term.
func (m Method) GraphUpdate(theta, phi, x, g, p *G.Node) (*G.Node, error) {
	gv, err := m.G.Apply(theta, g)
	if err != nil {
		return nil, fmt.Errorf("update: G = %s: %w", m.G.Name(), err)
	}
	next, err := G.Sub(x, gv)
	if err != nil {
		return nil, fmt.Errorf("update: x − G g: %w", err)
	}
	if m.H == nil || phi == nil || p == nil {
		return next, nil
	}
	hv, err := m.H.Apply(phi, p)
	if err != nil {
		return nil, fmt.Errorf("update: H = %s: %w", m.H.Name(), err)
	}
	if next, err = G.Add(next, hv); err != nil {
		return nil, fmt.Errorf("update: + H p: %w", err)
	}
	return next, nil
}

// BoundUpdate writes x − G_θ g + H_φ p into dst, with gb = θ ↦ G_θ g and
// hb = φ ↦ H_φ p bound to the batches g and p (Binder); hb nil: no momentum
// term.
func BoundUpdate(dst, x []float64, gb Bound, theta []float64, hb Bound, phi []float64) error {
	if len(dst) != len(x) {
		return fmt.Errorf("update: %d output values for %d iterate values", len(dst), len(x))
	}
	copy(dst, x)
	if err := gb.AddApply(dst, theta, -1); err != nil {
		return fmt.Errorf("update: G: %w", err)
	}
	if hb != nil {
		if err := hb.AddApply(dst, phi, 1); err != nil {
			return fmt.Errorf("update: H: %w", err)
		}
	}
	return nil
}

// Updater applies the update of a Method to batches of n images of h×w held
// in arrays, through the terms' bound operators: each family's own Binder,
// or its graph (GraphBinder) for a family without one, exactly as the
// greedy step loss applies them (BoundUpdate). Parameters stay set between
// steps until SetParams changes them. An Updater is not safe for concurrent
// use; Close releases it.
type Updater struct {
	m          Method
	n, h, w    int
	binders    []Binder // G, then H if any
	bounds     []Bound  // the last step's, rebound in place where they can
	theta, phi []float64
}

// NewUpdater returns the updater of m for n images of h×w.
func NewUpdater(m Method, n, h, w int) (*Updater, error) {
	if m.G == nil {
		return nil, fmt.Errorf("update: the method has no parametrization of G")
	}
	if n < 1 || h < 1 || w < 1 {
		return nil, fmt.Errorf("update: batch of %d images of %d×%d: all must be at least 1", n, h, w)
	}
	u := &Updater{m: m, n: n, h: h, w: w}
	for _, p := range []Parametrization{m.G, m.H} {
		if p == nil {
			continue
		}
		b, ok := p.(Binder)
		if !ok {
			b = NewGraphBinder(p)
		}
		u.binders = append(u.binders, b)
	}
	return u, nil
}

// SetParams sets θ and φ (φ is ignored without H).
func (u *Updater) SetParams(theta, phi []float64) error {
	if want := u.m.G.ParamShape(u.h, u.w).TotalSize(); len(theta) != want {
		return fmt.Errorf("update: θ has %d values, %s takes %d", len(theta), u.m.G.Name(), want)
	}
	u.theta = append(u.theta[:0], theta...)
	if u.m.H != nil {
		if want := u.m.H.ParamShape(u.h, u.w).TotalSize(); len(phi) != want {
			return fmt.Errorf("update: φ has %d values, %s takes %d", len(phi), u.m.H.Name(), want)
		}
		u.phi = append(u.phi[:0], phi...)
	}
	return nil
}

// Step writes x − G_θ g + H_φ p into dst for the parameters last set; p is
// ignored without H. The terms bind g and p (copying what they need) before
// dst is written, so dst may alias p.
func (u *Updater) Step(dst, x, g, p []float64) error {
	if u.theta == nil {
		return fmt.Errorf("update: SetParams was not called")
	}
	if u.bounds == nil {
		u.bounds = make([]Bound, len(u.binders))
	}
	for i, v := range [][]float64{g, p}[:len(u.binders)] {
		if err := u.bind(i, v); err != nil {
			return fmt.Errorf("update: %s: %w", [2]string{"G", "H"}[i], err)
		}
	}
	var hb Bound
	if len(u.bounds) > 1 {
		hb = u.bounds[1]
	}
	return BoundUpdate(dst, x, u.bounds[0], u.theta, hb, u.phi)
}

// bind binds term i to v: in place if its last bound operator can
// (Rebinder), otherwise by its binder.
func (u *Updater) bind(i int, v []float64) error {
	if rb, ok := u.bounds[i].(Rebinder); ok {
		return rb.Rebind(v)
	}
	b, err := u.binders[i].Bind(v, u.n, u.h, u.w)
	if err != nil {
		return err
	}
	u.bounds[i] = b
	return nil
}

// Close releases the terms' graphs, if any.
func (u *Updater) Close() error {
	var errs []error
	for _, b := range u.binders {
		if g, ok := b.(*GraphBinder); ok {
			errs = append(errs, g.Close())
		}
	}
	return errors.Join(errs...)
}

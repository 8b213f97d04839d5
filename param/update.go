package param

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/graph"
	G "gorgonia.org/gorgonia"
)

// The learned update of a Method is
//
//	x⁺ = x − G_θ g + H_φ p,  g = ∇f(x), p = x − x⁻,
//
// defined here once, in the two forms its users need: GraphUpdate builds it
// into a gorgonia graph (the greedy step loss, unrolled training), and
// Updater applies it to arrays (Algorithm 2, the learned optimizer).
// BoundUpdate is the same update through bound operators (the greedy step
// loss's fast path), tested against GraphUpdate.

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
// in arrays. It compiles GraphUpdate once; parameters stay set between
// steps until SetParams changes them. An Updater is not safe for concurrent
// use; Close releases it.
type Updater struct {
	m                   Method
	machine             *graph.Machine
	theta, phi, x, g, p *G.Node
	out                 *G.Node
}

// NewUpdater compiles the update of m for n images of h×w.
func NewUpdater(m Method, n, h, w int) (*Updater, error) {
	if m.G == nil {
		return nil, fmt.Errorf("update: the method has no parametrization of G")
	}
	if n < 1 || h < 1 || w < 1 {
		return nil, fmt.Errorf("update: batch of %d images of %d×%d: all must be at least 1", n, h, w)
	}
	gr := G.NewGraph()
	u := &Updater{m: m}
	u.theta = graph.Input(gr, "theta", m.G.ParamShape(h, w)...)
	u.x = graph.Input(gr, "x", n, h, w)
	u.g = graph.Input(gr, "grad", n, h, w)
	if m.H != nil {
		u.phi = graph.Input(gr, "phi", m.H.ParamShape(h, w)...)
		u.p = graph.Input(gr, "momentum", n, h, w)
	}
	out, err := m.GraphUpdate(u.theta, u.phi, u.x, u.g, u.p)
	if err != nil {
		return nil, err
	}
	u.out = out
	u.machine = graph.NewMachine(gr)
	return u, nil
}

// SetParams sets θ and φ (φ is ignored without H).
func (u *Updater) SetParams(theta, phi []float64) error {
	if err := graph.Set(u.theta, theta); err != nil {
		return fmt.Errorf("update: θ: %w", err)
	}
	if u.phi != nil {
		if err := graph.Set(u.phi, phi); err != nil {
			return fmt.Errorf("update: φ: %w", err)
		}
	}
	return nil
}

// Step writes x − G_θ g + H_φ p into dst for the parameters last set; p is
// ignored without H. dst may alias none of the inputs' later use: the values
// are copied out of the graph.
func (u *Updater) Step(dst, x, g, p []float64) error {
	if err := graph.Set(u.x, x); err != nil {
		return fmt.Errorf("update: x: %w", err)
	}
	if err := graph.Set(u.g, g); err != nil {
		return fmt.Errorf("update: ∇f: %w", err)
	}
	if u.p != nil {
		if err := graph.Set(u.p, p); err != nil {
			return fmt.Errorf("update: momentum: %w", err)
		}
	}
	if err := u.machine.Run(); err != nil {
		return fmt.Errorf("update: %w", err)
	}
	v, err := graph.Value(u.out)
	if err != nil {
		return err
	}
	if len(dst) != len(v) {
		return fmt.Errorf("update: %d output values, the update has %d", len(dst), len(v))
	}
	copy(dst, v)
	return nil
}

// Close releases the compiled graph.
func (u *Updater) Close() error {
	if u.machine == nil {
		return nil
	}
	err := u.machine.Close()
	u.machine = nil
	return err
}

package problem

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/graph"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// ValueExpr returns WCRR's value S(x) = Σ_c Σ_ij ψ_c((Wx)_c[i,j]) as a value
// expression for NewAutoRegularizer: the three convolution layers W as one
// linear graph op, and the potentials ψ_c(z) = (μ+1)·hub(z; h_c) − hub(z; T_c)
// from gorgonia's elementwise operations, with hub(z; a) = m(|z| − m/2),
// m = min(|z|, a), the integral of clip(·, ±a). No derivative of ψ is
// written: ∇S comes from autodiff (NewAutoWCRR), where WCRR.ValueGrad uses
// the hand-derived ψ′.
func (r *WCRR) ValueExpr() func(x *G.Node) (*G.Node, error) {
	return func(x *G.Node) (*G.Node, error) {
		wx, err := graph.Linear(wcrrOperator{r}, x)
		if err != nil {
			return nil, err
		}
		s := wx.Shape()
		thresholds := func(name string, per []float64) *G.Node {
			v := make([]float64, s.TotalSize())
			plane := s[2] * s[3]
			for off := 0; off < len(v); off += plane {
				c := (off / plane) % s[1]
				for i := range plane {
					v[off+i] = per[c]
				}
			}
			return G.NewTensor(x.Graph(), G.Float64, 4, G.WithShape(s...), G.WithName(name+r.String()),
				G.WithValue(tensor.New(tensor.WithShape(s...), tensor.WithBacking(v))))
		}
		az, err := G.Abs(wx)
		if err != nil {
			return nil, err
		}
		hub := func(a *G.Node) (*G.Node, error) {
			m, err := G.MinBetween(az, a)
			if err != nil {
				return nil, err
			}
			return G.HadamardProd(m, G.Must(G.Sub(az, G.Must(G.Mul(m, G.NewConstant(0.5))))))
		}
		hh, err := hub(thresholds("h", r.Model.H))
		if err != nil {
			return nil, fmt.Errorf("wcrr value: hub(z; h): %w", err)
		}
		ht, err := hub(thresholds("T", r.Model.T))
		if err != nil {
			return nil, fmt.Errorf("wcrr value: hub(z; T): %w", err)
		}
		psi, err := G.Sub(G.Must(G.Mul(hh, G.NewConstant(r.Model.Mu+1))), ht)
		if err != nil {
			return nil, err
		}
		return G.Sum(psi)
	}
}

// NewAutoWCRR returns WCRR through the autodiff door: an AutoRegularizer
// on h×w images with WCRR's value expression and its Lipschitz bound.
func NewAutoWCRR(r *WCRR, h, w int) (*AutoRegularizer, error) {
	return NewAutoRegularizer("auto-"+r.String(), r.ValueExpr(), h, w, r.Lipschitz())
}

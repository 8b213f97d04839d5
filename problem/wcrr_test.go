package problem

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/wcrr"
	G "gorgonia.org/gorgonia"
)

func TestWCRRObjectiveGraphMatchesDirectAndSecondOrder(t *testing.T) {
	m := wcrr.Random(3, [3]int{2, 3, 4}, 10)
	p, err := deblurWithWCRR(Options{H: 10}, m, "random")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DeblurWCRR(Options{H: 10}); err == nil {
		t.Error("deblur-wcrr without weights was accepted")
	}
	r := rand.New(rand.NewPCG(5, 5))
	truth := randVec(r, 2*100, 0.3)
	for i := range truth {
		truth[i] += 0.5
	}
	o, err := p.Instantiate(truth, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]float64, 2)
	grad := make([]float64, 200)
	if err := o.Eval(vals, grad, o.X0, nil); err != nil {
		t.Fatal(err)
	}
	g := G.NewGraph()
	xn := graph.Input(g, "x", 2, 10, 10)
	yn := graph.Input(g, "y", o.DataShape(2)...)
	fv, _ := o.GraphValue(xn, yn)
	gv, _ := o.GraphGrad(xn, yn)
	sq := G.Must(graph.PotentialValue(graph.SquaredNorm{}, gv))
	if _, err := G.Grad(sq, xn); err != nil {
		t.Fatal(err)
	}
	mc := graph.NewMachine(g, xn)
	defer mc.Close()
	_ = graph.Set(yn, o.Y)
	run := func(x []float64) float64 {
		_ = graph.Set(xn, x)
		if err := mc.Run(); err != nil {
			t.Fatal(err)
		}
		v, _ := graph.Scalar(sq)
		return v
	}
	run(o.X0)
	f, _ := graph.Scalar(fv)
	if d := relDiff(f, vals[0]+vals[1]); d > 1e-12 {
		t.Errorf("graph f %g vs direct %g", f, vals[0]+vals[1])
	}
	gg, _ := graph.Value(gv)
	for i := range grad {
		if math.Abs(gg[i]-grad[i]) > 1e-12*(1+math.Abs(grad[i])) {
			t.Fatalf("graph ∇f[%d] = %g, direct %g", i, gg[i], grad[i])
		}
	}
	gx, _ := graph.Grad(xn)
	an0 := append([]float64(nil), gx...)
	d := randVec(r, 200, 1)
	const step = 1e-7
	xp, xm := make([]float64, 200), make([]float64, 200)
	for i := range xp {
		xp[i], xm[i] = o.X0[i]+step*d[i], o.X0[i]-step*d[i]
	}
	fd := (run(xp) - run(xm)) / (2 * step)
	if rd := relDiff(fd, kernels.Dot(an0, d)); rd > 1e-4 {
		t.Errorf("second-order derivative through the WCRR gradient %g, finite differences %g", kernels.Dot(an0, d), fd)
	}
}

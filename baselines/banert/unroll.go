package banert

import (
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/problem"
	G "gorgonia.org/gorgonia"
)

// TrainingGraph is the unrolled training computation for one function at a
// time (batch size 1): T safeguarded iterations from x⁰ with the network in
// the loop, the loss f(x^T) and its gradient with respect to every network
// parameter, all in one gorgonia graph that is built once and run many times.
type TrainingGraph struct {
	// Graph is the gorgonia graph; graph.HeldBytes(Graph) after Run is the
	// memory the unrolled computation holds.
	Graph *G.ExprGraph
	// T is the number of unrolled iterations and Inputs the number of input
	// channels of the network.
	T, Inputs int

	o       *problem.Objective
	machine *graph.Machine
	x0, y   *G.Node
	params  []*G.Node
	loss    *G.Node
	deltas  []*G.Node // Δ_t, t = 0..T−1
	grads   []*G.Node // ∇f(x^t), t = 0..T−1
}

// BuildTrainingGraph builds the unrolled computation of T iterations of the
// Banert method on the functions of o (one at a time; choose one with
// SetFunction) with a network of the given number of input channels (3 or 4).
// ∇f is written as forward operations, so the gradient of f(x^T) with respect
// to the network parameters is exact. The graph is ready to Run: it starts at
// function 0 with a He-normal network (seed 1); SetFunction and SetParams
// change them.
func BuildTrainingGraph(o *problem.Objective, T, inputs int) (*TrainingGraph, error) {
	if o == nil || o.N < 1 {
		return nil, fmt.Errorf("banert: training graph needs an objective with at least one function")
	}
	if T < 1 {
		return nil, fmt.Errorf("banert: training graph with T = %d unrolled iterations: T must be at least 1", T)
	}
	if err := checkInputs(inputs); err != nil {
		return nil, err
	}
	if !(o.L > 0) || math.IsInf(o.L, 0) {
		return nil, fmt.Errorf("banert: objective's smoothness constant L = %g is not positive and finite", o.L)
	}
	g := G.NewGraph()
	tg := &TrainingGraph{Graph: g, T: T, Inputs: inputs, o: o}
	h, w := o.H, o.W
	tg.x0 = graph.Input(g, "x0", 1, h, w)
	tg.y = graph.Input(g, "y", o.DataShape(1)...)
	for _, b := range Layout(inputs) {
		tg.params = append(tg.params, graph.Input(g, b.Name, b.Shape...))
	}
	zero := graph.Input(g, "zero", 1, h, w)
	x, prev := tg.x0, zero
	for t := 0; t < T; t++ {
		gd, gr, err := o.GraphGradParts(x, tg.y)
		if err != nil {
			return nil, fmt.Errorf("banert: iteration %d: %w", t, err)
		}
		grad := gd
		if gr != nil {
			if grad, err = G.Add(gd, gr); err != nil {
				return nil, fmt.Errorf("banert: iteration %d: ∇f: %w", t, err)
			}
		} else {
			gr = zero
		}
		channels := []*G.Node{x, grad, prev}
		if inputs == 4 {
			channels = []*G.Node{x, gd, gr, prev}
		}
		in, err := stackNode(channels...)
		if err != nil {
			return nil, err
		}
		out, err := networkNode(tg.params, in)
		if err != nil {
			return nil, fmt.Errorf("banert: iteration %d: network: %w", t, err)
		}
		delta, err := safeguardNode(out, grad)
		if err != nil {
			return nil, err
		}
		if x, err = updateNode(x, grad, delta, 1/o.L); err != nil {
			return nil, err
		}
		tg.deltas = append(tg.deltas, delta)
		tg.grads = append(tg.grads, grad)
		prev = delta
	}
	loss, err := o.GraphValue(x, tg.y)
	if err != nil {
		return nil, fmt.Errorf("banert: loss: %w", err)
	}
	tg.loss = loss
	if _, err := G.Grad(loss, tg.params...); err != nil {
		return nil, fmt.Errorf("banert: differentiating the unrolled loss: %w", err)
	}
	tg.machine = graph.NewMachine(g, tg.params...)
	net, err := NewNetwork(inputs, 1)
	if err != nil {
		return nil, err
	}
	if err := tg.SetParams(net.Theta); err != nil {
		return nil, err
	}
	if err := tg.SetFunction(0); err != nil {
		return nil, err
	}
	return tg, nil
}

// networkNode builds the network on the stacked input in [N,C,H,W] with the
// parameter nodes of Layout; the result is [N,1,H,W].
func networkNode(p []*G.Node, in *G.Node) (*G.Node, error) {
	z, err := instanceNormNode(in)
	if err != nil {
		return nil, err
	}
	if z, err = affineNode(z, p[0], p[1]); err != nil {
		return nil, err
	}
	for l := 0; l < 2; l++ {
		w, b, gamma, beta := p[2+4*l], p[3+4*l], p[4+4*l], p[5+4*l]
		if z, err = graph.Bilinear(Conv{}, w, z); err != nil {
			return nil, err
		}
		if z, err = normLayerNode(z, b, gamma, beta); err != nil {
			return nil, err
		}
	}
	if z, err = graph.Bilinear(Conv{}, p[10], z); err != nil {
		return nil, err
	}
	return biasNode(z, p[11])
}

// SetFunction makes the graph unroll from the starting point of function k
// of the objective, with its data.
func (tg *TrainingGraph) SetFunction(k int) error {
	o := tg.o
	if k < 0 || k >= o.N {
		return fmt.Errorf("banert: function %d of %d does not exist", k, o.N)
	}
	hw, m := o.ImageLen(), o.DataLen()
	if err := graph.Set(tg.x0, o.X0[k*hw:(k+1)*hw]); err != nil {
		return err
	}
	return graph.Set(tg.y, o.Y[k*m:(k+1)*m])
}

// SetParams copies the network parameters theta (in the order of Layout) into the graph.
func (tg *TrainingGraph) SetParams(theta []float64) error {
	if len(theta) != NumParams(tg.Inputs) {
		return fmt.Errorf("banert: %d parameters, want %d for %d inputs", len(theta), NumParams(tg.Inputs), tg.Inputs)
	}
	off := 0
	for _, p := range tg.params {
		n := p.Shape().TotalSize()
		if err := graph.Set(p, theta[off:off+n]); err != nil {
			return err
		}
		off += n
	}
	return nil
}

// Run evaluates the loss f(x^T) and its gradient.
func (tg *TrainingGraph) Run() error { return tg.machine.Run() }

// Loss returns f(x^T) of the last Run.
func (tg *TrainingGraph) Loss() (float64, error) { return graph.Scalar(tg.loss) }

// Gradient writes the gradient of the loss of the last Run with respect to
// the parameters (in the order of Layout) into dst.
func (tg *TrainingGraph) Gradient(dst []float64) error {
	if len(dst) != NumParams(tg.Inputs) {
		return fmt.Errorf("banert: gradient has %d slots, want %d", len(dst), NumParams(tg.Inputs))
	}
	off := 0
	for _, p := range tg.params {
		g, err := graph.Grad(p)
		if err != nil {
			return err
		}
		off += copy(dst[off:], g)
	}
	return nil
}

// Close releases the machine.
func (tg *TrainingGraph) Close() error { return tg.machine.Close() }

package unroll

import (
	"errors"
	"testing"

	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/problem"
	G "gorgonia.org/gorgonia"
)

// TestRefusesFirstOrderRegularizer checks that unrolled training refuses a
// regularizer given by its value alone (its ∇S comes from gorgonia.Grad, and
// unrolling would differentiate it a second time, which gorgonia gets
// silently wrong), naming problem.ErrFirstOrderOnly, while the objective
// itself evaluates (greedy training, which needs ∇f only, can use it).
func TestRefusesFirstOrderRegularizer(t *testing.T) {
	o := deblurSet(t, 2, 12, 1)
	reg, err := problem.NewAutoRegularizer("auto-tv", func(x *G.Node) (*G.Node, error) {
		d, err := graph.Linear(graph.Diff{}, x)
		if err != nil {
			return nil, err
		}
		return graph.PotentialValue(graph.HuberTV{Eps: 0.005}, d)
	}, 12, 12, 1600)
	if err != nil {
		t.Fatal(err)
	}
	auto := *o
	auto.Reg = reg
	g := make([]float64, len(auto.X0))
	if err := auto.Eval(nil, g, auto.X0, nil); err != nil {
		t.Fatalf("the objective does not evaluate: %v", err)
	}
	_, err = NewLoss(method(t, "m-ps"), &auto, 3, 2, 1/o.L, nil)
	if !errors.Is(err, problem.ErrFirstOrderOnly) {
		t.Fatalf("unrolled loss on a first-order-only regularizer: %v, want ErrFirstOrderOnly", err)
	}
	t.Log(err)
}

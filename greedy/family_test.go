package greedy

import (
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
)

// TestFamilyNormsAreTheLargest: on a family of operators, the certificate's
// norms of an operator-aware method are the largest of its members' (so it
// holds for each), and differ from a single member's.
func TestFamilyNormsAreTheLargest(t *testing.T) {
	const n, h = 3, 12
	p, err := problem.Lookup("deblur", problem.Options{H: h, BlurSigmaRange: [2]float64{1, 2.5}})
	if err != nil {
		t.Fatal(err)
	}
	truth := make([]float64, n*h*h)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range truth {
		truth[i] = r.Float64()
	}
	o, err := p.Instantiate(truth, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := models.ParseMethod("m-npoly3")
	if err != nil {
		t.Fatal(err)
	}
	theta, phi := []float64{0.7, -0.4, 0.3}, []float64{0.2, 0.1, -0.05}
	tau := 1 / o.L
	e1, e2, err := familyNorms(m.ForOperator(o.A), o, theta, phi, tau)
	if err != nil {
		t.Fatal(err)
	}
	var w1, w2 float64
	var each []float64
	for _, a := range o.A.(*problem.PerFunction).Ops {
		a1, a2, err := learned.ParamNorms(m.ForOperator(a), theta, phi, tau, h, h)
		if err != nil {
			t.Fatal(err)
		}
		w1, w2, each = max(w1, a1), max(w2, a2), append(each, a1)
	}
	if e1 != w1 || e2 != w2 {
		t.Errorf("family norms %g, %g; the members' largest %g, %g", e1, e2, w1, w2)
	}
	if each[0] == each[1] && each[1] == each[2] {
		t.Errorf("the members' ε1 are all %g: the family's operators do not differ", each[0])
	}
}

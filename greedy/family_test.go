package greedy

import (
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
)

// TestFamilyNormsAreTheLargest: on a family of operators an operator-aware
// method has no norm of its own (binding it to the family as a whole
// fails); the certificate's norms are the largest of its members' (so it
// holds for each), which differ from one another.
func TestFamilyNormsAreTheLargest(t *testing.T) {
	const n, h = 3, 12
	o := testproblems.BlurFamily(t, n, h, 1, 2.5, 1)
	m, err := models.ParseMethod("m-npoly3")
	if err != nil {
		t.Fatal(err)
	}
	theta, phi := []float64{0.7, -0.4, 0.3}, []float64{0.2, 0.1, -0.05}
	tau := 1 / o.L
	// ‖G − τI‖ has no single operator to take on the family as a whole.
	if _, _, err := learned.ParamNorms(m.ForOperator(o.A), theta, phi, tau, h, h); err == nil {
		t.Error("the norms of an npoly bound to the whole family were computed: familyNorms would not be needed")
	}
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

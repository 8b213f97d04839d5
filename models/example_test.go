package models_test

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/models"
)

// A family's fast term (its Bind) is checked against its graph term
// (models.GraphBinder: Apply run in a small gorgonia graph, the adjoint from
// its vector–Jacobian product). Here PP, G_θ v = θ ⊙ v, on two 2×2 images:
// the update's term −G_θ v and the adjoint ∇_θ⟨G_θ v, r⟩ both ways.
func ExampleNewGraphBinder() {
	const n, h, w = 2, 2, 2
	v := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	r := []float64{1, -1, 0.5, 2, 0, 1, -2, 3}
	theta := []float64{0.1, 0.2, 0.3, 0.4}

	fast, err := models.Pointwise{}.Bind(v, n, h, w)
	if err != nil {
		panic(err)
	}
	gb := models.NewGraphBinder(models.Pointwise{})
	defer gb.Close()
	oracle, err := gb.Bind(v, n, h, w)
	if err != nil {
		panic(err)
	}
	for _, b := range []models.Bound{fast, oracle} {
		step := make([]float64, len(v)) // −G_θ v, as in x⁺ = x − G_θ g
		if err := b.AddApply(step, theta, -1); err != nil {
			panic(err)
		}
		grad := make([]float64, len(theta)) // (1/N)·∇_θ Σk⟨G_θ vk, rk⟩
		if err := b.AddAdjoint(grad, r, 1.0/n); err != nil {
			panic(err)
		}
		fmt.Printf("step %.2f\ngrad %.2f\n", step, grad)
	}
	// Output:
	// step [-0.10 -0.40 -0.90 -1.60 -0.50 -1.20 -2.10 -3.20]
	// grad [0.50 2.00 -6.25 16.00]
	// step [-0.10 -0.40 -0.90 -1.60 -0.50 -1.20 -2.10 -3.20]
	// grad [0.50 2.00 -6.25 16.00]
}

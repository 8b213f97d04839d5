package optim

import (
	"fmt"
	"math"
)

// Adam is the Adam method of Kingma and Ba over a flat parameter vector:
//
//	m ← β1 m + (1−β1) g,  v ← β2 v + (1−β2) g²,
//	u ← u − lr · m̂ / (√v̂ + ε),  m̂ = m/(1−β1^k), v̂ = v/(1−β2^k).
type Adam struct {
	LR, Beta1, Beta2, Eps float64
	// M and V are the first and second moment estimates; Step counts updates.
	M, V []float64
	Step int
}

// NewAdam returns Adam for n parameters with learning rate lr and the usual
// β1 = 0.9, β2 = 0.999, ε = 1e-8.
func NewAdam(n int, lr float64) *Adam {
	return &Adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, M: make([]float64, n), V: make([]float64, n)}
}

// Update takes one step on u with gradient grad.
func (a *Adam) Update(u, grad []float64) error {
	if len(u) != len(a.M) || len(grad) != len(a.M) {
		return fmt.Errorf("adam: %d parameters and %d gradient values, want %d", len(u), len(grad), len(a.M))
	}
	a.Step++
	c1 := 1 - math.Pow(a.Beta1, float64(a.Step))
	c2 := 1 - math.Pow(a.Beta2, float64(a.Step))
	for i, g := range grad {
		a.M[i] = a.Beta1*a.M[i] + (1-a.Beta1)*g
		a.V[i] = a.Beta2*a.V[i] + (1-a.Beta2)*g*g
		u[i] -= a.LR * (a.M[i] / c1) / (math.Sqrt(a.V[i]/c2) + a.Eps)
	}
	return nil
}

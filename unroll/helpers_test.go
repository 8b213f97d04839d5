package unroll

import (
	"testing"

	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
)

// deblurSet returns n synthetic Huber-TV deblurring functions of size×size.
func deblurSet(t testing.TB, n, size int, seed int64) *problem.Objective {
	t.Helper()
	p, err := problem.Deblur(problem.Options{H: size, BlurBoundary: "reflect"}) // the numbers these tests were tuned on
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, pix, err := data.Stack(data.Synthetic(n, size, size, seed))
	if err != nil {
		t.Fatal(err)
	}
	o, err := p.Instantiate(pix, n, uint64(seed))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// leastSquares returns the same functions without the regularizer.
func leastSquares(o *problem.Objective) *problem.Objective {
	c := *o
	c.Alpha = 0
	c.Reg = problem.NoRegularizer{}
	c.L = c.NormA * c.NormA
	return &c
}

func method(t testing.TB, name string) models.Method {
	t.Helper()
	m, err := models.ParseMethod(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

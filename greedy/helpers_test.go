package greedy

import (
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
)

// deblurSet returns n synthetic deblurring functions of size×size
// (testproblems.DeblurSet).
func deblurSet(t testing.TB, n, size int, seed int64) *problem.Objective {
	t.Helper()
	return testproblems.DeblurSet(t, n, size, seed)
}

// method parses a method name (testproblems.Method).
func method(t testing.TB, name string) models.Method {
	t.Helper()
	return testproblems.Method(t, name)
}

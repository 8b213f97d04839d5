// Package testproblems builds the small objectives that the tests of several
// packages run on (deblurring on synthetic images, ct-small on phantoms), so
// that each test states only its sizes and seed.
package testproblems

import (
	"testing"

	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/problem"
)

// Deblur returns n functions of Problem 1's kind on size×size synthetic
// images (seed for the images and the noise), with the blur boundary given
// ("" for the problem's default) and α replaced when alpha ≥ 0.
func Deblur(tb testing.TB, n, size int, boundary string, alpha float64, seed int64) *problem.Objective {
	tb.Helper()
	p, err := problem.Deblur(problem.Options{H: size, BlurBoundary: boundary})
	if err != nil {
		tb.Fatal(err)
	}
	return instantiate(tb, p, data.Synthetic(n, size, size, seed), n, seed, alpha)
}

// CTSmall returns n ct-small functions on size×size phantoms (seed for the
// phantoms and the noise).
func CTSmall(tb testing.TB, n, size int, seed int64) *problem.Objective {
	tb.Helper()
	p, err := problem.CTSmall(problem.Options{H: size})
	if err != nil {
		tb.Fatal(err)
	}
	return instantiate(tb, p, data.Phantoms(n, size, seed), n, seed, -1)
}

func instantiate(tb testing.TB, p *problem.Problem, images []*data.Image, n int, seed int64, alpha float64) *problem.Objective {
	tb.Helper()
	_, _, _, pix, err := data.Stack(images)
	if err != nil {
		tb.Fatal(err)
	}
	o, err := p.Instantiate(pix, n, uint64(seed))
	if err != nil {
		tb.Fatal(err)
	}
	if alpha >= 0 {
		o.Alpha = alpha
	}
	return o
}

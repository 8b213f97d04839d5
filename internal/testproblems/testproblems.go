// Package testproblems builds the small objectives that the tests of several
// packages run on (deblurring on synthetic images, ct-small on phantoms), so
// that each test states only its sizes and seed, and the methods, step data
// and user parametrizations that the tests of the step loss and of greedy
// training share.
package testproblems

import (
	"testing"

	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/wcrr"
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

// BlurFamily returns n deblurring functions on size×size synthetic images
// that each draw their blur width from [lo, hi] (a family of operators:
// the objective's A is a problem.PerFunction).
func BlurFamily(tb testing.TB, n, size int, lo, hi float64, seed int64) *problem.Objective {
	tb.Helper()
	p, err := problem.Deblur(problem.Options{H: size, BlurSigmaRange: [2]float64{lo, hi}})
	if err != nil {
		tb.Fatal(err)
	}
	return instantiate(tb, p, data.Synthetic(n, size, size, seed), n, seed, -1)
}

// AlphaFamily returns n deblurring functions on size×size synthetic images
// that each draw their regularisation weight from [lo, hi] (the objective's
// regularizer is a problem.Weighted).
func AlphaFamily(tb testing.TB, n, size int, lo, hi float64, seed int64) *problem.Objective {
	tb.Helper()
	p, err := problem.Lookup("deblur", problem.Options{H: size, AlphaRange: [2]float64{lo, hi}})
	if err != nil {
		tb.Fatal(err)
	}
	return instantiate(tb, p, data.Synthetic(n, size, size, seed), n, seed, -1)
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

// Mixed returns three 12×12 functions of each kind of objective the step
// losses and safeguards distinguish: Huber-TV deblurring, least squares
// (α = 0), ct-small on synthetic images, deblurring with a random WCRR, and
// deblurring with a family of weights α ∈ [2e-4, 2e-3] (problem.Weighted),
// and deblurring with a family of blurs σ ∈ [1, 2] (problem.PerFunction).
func Mixed(tb testing.TB) map[string]*problem.Objective {
	tb.Helper()
	out := map[string]*problem.Objective{"deblur": Deblur(tb, 3, 12, "", -1, 5), "least-squares": Deblur(tb, 3, 12, "", 0, 6)}
	ct, err := problem.CTSmall(problem.Options{H: 12})
	if err != nil {
		tb.Fatal(err)
	}
	out["ct-small"] = instantiate(tb, ct, data.Synthetic(3, 12, 12, 7), 3, 7, -1)
	w := Deblur(tb, 3, 12, "", 3e-3, 8)
	w.Reg = &problem.WCRR{Model: wcrr.Random(3, [3]int{2, 3, 4}, 9), Name: "random"}
	out["wcrr"] = w
	out["alpha-family"] = AlphaFamily(tb, 3, 12, 2e-4, 2e-3, 10)
	out["blur-family"] = BlurFamily(tb, 3, 12, 1, 2, 11)
	return out
}

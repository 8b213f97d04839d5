package baselines

import (
	"errors"
	"math"
)

// errLinesearch reports a line search that cannot make progress (a bracket
// narrower than rounding, or a step beyond the largest allowed one).
var errLinesearch = errors.New("line search failed")

// lsPoint is a trial step a with φ(a) and φ'(a).
type lsPoint struct{ a, f, g float64 }

// wolfeSearch finds a step a > 0 satisfying the strong Wolfe conditions
//
//	φ(a) ≤ φ(0) + c1 a φ'(0),   |φ'(a)| ≤ c2 |φ'(0)|
//
// for φ(a) = f(x + a d), by Algorithms 3.5 (bracketing) and 3.6 (zoom) of
// Nocedal and Wright, Numerical Optimization (2006), with safeguarded cubic
// interpolation. It is a state machine so that the line searches of many
// functions can share batched evaluations: init gives the first trial step,
// and each call to iterate takes φ and φ' at the last trial step and either
// accepts it (done) or returns the next trial step.
type wolfeSearch struct {
	c1, c2  float64
	maxStep float64

	start   lsPoint // a = 0
	prev    lsPoint // previous trial in the bracketing phase
	lo, hi  lsPoint // zoom interval: lo has the lowest φ satisfying Armijo
	cur     float64 // current trial step
	zooming bool
	trials  int
}

// init starts a search from φ(0) = f0 with slope g0 < 0 and first trial step.
func (w *wolfeSearch) init(f0, g0, step float64) {
	if w.maxStep == 0 {
		w.maxStep = 1e20
	}
	w.start = lsPoint{0, f0, g0}
	w.prev = w.start
	w.cur = math.Min(step, w.maxStep)
	w.zooming = false
	w.trials = 0
}

// iterate takes φ(cur) = f and φ'(cur) = g. It returns done = true when cur
// satisfies the strong Wolfe conditions, and otherwise the next trial step.
func (w *wolfeSearch) iterate(f, g float64) (done bool, next float64, err error) {
	p := lsPoint{w.cur, f, g}
	w.trials++
	armijo := f <= w.start.f+w.c1*p.a*w.start.g
	curvature := math.Abs(g) <= -w.c2*w.start.g
	if !w.zooming {
		switch {
		case !armijo || (w.trials > 1 && f >= w.prev.f):
			w.zooming, w.lo, w.hi = true, w.prev, p
		case curvature:
			return true, p.a, nil
		case g >= 0:
			w.zooming, w.lo, w.hi = true, p, w.prev
		default:
			if p.a >= w.maxStep {
				return false, 0, errLinesearch
			}
			// Extrapolate: cubic step, kept within [1.1, 4] times the last
			// increase beyond the current step.
			width := p.a - w.prev.a
			lower, upper := p.a+1.1*width, p.a+4*width
			c := cubicMin(w.prev, p)
			if math.IsNaN(c) || c < lower || c > upper {
				c = upper
			}
			w.prev = p
			w.cur = math.Min(c, w.maxStep)
			return false, w.cur, nil
		}
	} else {
		if !armijo || f >= w.lo.f {
			w.hi = p
		} else {
			if curvature {
				return true, p.a, nil
			}
			if g*(w.hi.a-w.lo.a) >= 0 {
				w.hi = w.lo
			}
			w.lo = p
		}
	}
	width := math.Abs(w.hi.a - w.lo.a)
	if width <= 1e-12*math.Max(w.lo.a, w.hi.a) {
		return false, 0, errLinesearch
	}
	// Cubic interpolation kept at least a tenth of the interval from its ends.
	left, right := math.Min(w.lo.a, w.hi.a), math.Max(w.lo.a, w.hi.a)
	c := cubicMin(w.lo, w.hi)
	if math.IsNaN(c) || c < left+0.1*width || c > right-0.1*width {
		c = (left + right) / 2
	}
	w.cur = c
	return false, c, nil
}

// cubicMin returns the minimiser of the cubic interpolating φ and φ' at p and
// q (Nocedal and Wright, eq. 3.59), or NaN when it does not exist.
func cubicMin(p, q lsPoint) float64 {
	if p.a == q.a {
		return math.NaN()
	}
	d1 := p.g + q.g - 3*(p.f-q.f)/(p.a-q.a)
	disc := d1*d1 - p.g*q.g
	if disc < 0 {
		return math.NaN()
	}
	d2 := math.Copysign(math.Sqrt(disc), q.a-p.a)
	den := q.g - p.g + 2*d2
	if den == 0 {
		return math.NaN()
	}
	return q.a - (q.a-p.a)*(q.g+d2-d1)/den
}

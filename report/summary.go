package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/greedyl2o/greedyl2o/eval"
)

// Winner states in one line which method reaches a mean optimality first in
// iterations and which in seconds, for the tightest of the tolerances tols
// (nil: eval.DefaultTolerances) that some method reaches; ties are named
// together. When no method reaches any tolerance it names the lowest final
// mean optimality instead.
func Winner(curves []*eval.Curve, tols []float64) string {
	if tols == nil {
		tols = eval.DefaultTolerances
	}
	sorted := slices.Clone(tols)
	slices.Sort(sorted)
	for _, tol := range sorted {
		bestIt, bestSec := math.MaxInt, math.Inf(1)
		var byIt, bySec []string
		for _, c := range curves {
			it := c.ItersTo(tol)
			if it < 0 {
				continue
			}
			switch {
			case it < bestIt:
				bestIt, byIt = it, []string{c.Method}
			case it == bestIt:
				byIt = append(byIt, c.Method)
			}
			switch sec := c.SecondsTo(tol); {
			case sec < bestSec:
				bestSec, bySec = sec, []string{c.Method}
			case sec == bestSec:
				bySec = append(bySec, c.Method)
			}
		}
		if byIt == nil {
			continue
		}
		return fmt.Sprintf("Fastest to mean optimality %s: in iterations %s (%d), in seconds %s (%s s).",
			formatTol(tol), strings.Join(byIt, " and "), bestIt, strings.Join(bySec, " and "), FormatSeconds(bestSec))
	}
	best, name := math.Inf(1), ""
	for _, c := range curves {
		if n := len(c.Mean); n > 0 && !c.Diverged() && c.Mean[n-1] < best {
			best, name = c.Mean[n-1], c.Method
		}
	}
	if name == "" {
		return "No method reaches any tolerance, and none ends with a finite optimality."
	}
	return fmt.Sprintf("No method reaches mean optimality %s; the lowest final mean optimality is %s's (%s).", formatTol(sorted[len(sorted)-1]), name, FormatOptimality(best))
}

// SafeguardLines says, for every curve of a safeguarded method that counted
// them, how often the safeguard replaced a learned step by a gradient step,
// and, where the curve has acceptance rates, which fraction of the test
// functions' learned steps it accepted at iterations 1, 10, 100, 1000 and
// the last one.
func SafeguardLines(curves []*eval.Curve) []string {
	var out []string
	for _, c := range curves {
		if _, suffix := cutSafeguard(c.Method); c.Steps == 0 || suffix == "" {
			continue
		}
		l := fmt.Sprintf("%s: the safeguard replaced %d of %d learned steps (%.1f%%) by gradient steps (steps counted over iterations and test functions).",
			c.Method, c.Rejected, c.Steps, 100*float64(c.Rejected)/float64(c.Steps))
		if a := AcceptanceAt(c); a != "" {
			l += " Learned steps accepted " + a + "."
		}
		out = append(out, l)
	}
	return out
}

// AcceptanceAt describes a safeguarded curve's acceptance rates
// (eval.Curve.Accepted) at iterations 1, 10, 100, 1000 and the last one, as
// "at iterations 1, 10, 100, 200: 100%, 100%, 62.5%, 40.0%"; "" when the curve
// has none.
func AcceptanceAt(c *eval.Curve) string {
	if len(c.Iter) < 2 || len(c.Accepted) != len(c.Iter) {
		return ""
	}
	last := c.Iter[len(c.Iter)-1]
	var its, rates []string
	for _, t := range []int{1, 10, 100, 1000, last} {
		if t > last || (len(its) > 0 && its[len(its)-1] == fmt.Sprint(t)) {
			continue
		}
		a := c.AcceptedAt(t)
		if math.IsNaN(a) {
			continue
		}
		its = append(its, fmt.Sprint(t))
		r := fmt.Sprintf("%.1f%%", 100*a)
		if a == 0 || a == 1 {
			r = fmt.Sprintf("%.0f%%", 100*a)
		}
		rates = append(rates, r)
	}
	if its == nil {
		return ""
	}
	word := "iterations"
	if len(its) == 1 {
		word = "iteration"
	}
	return fmt.Sprintf("at %s %s: %s", word, strings.Join(its, ", "), strings.Join(rates, ", "))
}

// FigureNotes explains what the optimality figures cannot show on their log
// axis: methods marked † whose optimality is ≤ 0 (from which iteration,
// and why), and methods that diverged.
func FigureNotes(curves []*eval.Curve) []string {
	var out []string
	for _, c := range curves {
		if j := belowFStar(c); j >= 0 {
			out = append(out, fmt.Sprintf("† %s: from iteration %d the optimality of some test function is ≤ 0 (lowest %s): the method found values at or below the estimate of f* "+
				"(the lowest value of the f* method's own iterations, not the exact minimum), or a function started at it; a log axis cannot show such values, so they are drawn at its bottom edge.",
				c.Method, c.Iter[j], FormatOptimality(slices.Min(c.Min))))
		}
		if c.Diverged() {
			out = append(out, fmt.Sprintf("%s diverged at iteration %d (an iterate, value or gradient left the finite numbers, or the mean optimality exceeded %g): its curve ends with a cross at iteration %d.",
				c.Method, c.DivergedAt, eval.DefaultDivergeAbove, c.DivergedAt-1))
		}
	}
	return out
}

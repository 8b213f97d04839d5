package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
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

// BestClassicalIters are the iterations at which BestClassicalLines compares
// mean optimalities (those that the curves reach).
var BestClassicalIters = []int{10, 100, 1000}

// BestClassicalLines compares every learned optimizer with the best classical
// method, per iteration and per second. Learned are the curves whose method
// name (without a safeguard suffix) contains "greedy", "learned", "unrolled"
// or "banert", as MethodStyle draws them solid; every other curve is
// classical (gd, nag, lbfgs(m=40), silver, …). For each tolerance of tols
// (nil: eval.DefaultTolerances), in the order given, it returns
//
//   - a line naming the classical method that reaches the mean optimality
//     tol in the fewest iterations and the one that reaches it in the least
//     time (ties named together; a method that diverged later is marked), or
//     saying that none does (with the lowest final mean optimality among them);
//   - for each learned curve, in the curves' order, a line with its
//     iterations and seconds to tol and its factor against those two bests
//     ("greedy m-pc reaches 1e-4 in 16 iterations, 2.5× fewer than the best
//     classical per iteration (lbfgs(m=40), 40); in 0.0307 s, 3.6× less than
//     the best classical per second (nag, 0.11 s)."), or that it does not
//     reach tol (it diverged before, or ends higher) beside what the best
//     classical methods need;
//
// then, for each iteration t of BestClassicalIters that some classical and
// some learned curve recorded, a line naming the classical method with the
// lowest mean optimality at t and each learned curve's value and factor
// against it (values ≤ 0 lie at or below the estimate of f* and get no
// factor). A curve that diverged before t has no value there and is named as
// such. It returns nil when there is no classical curve, and only the
// classical lines when there is no learned one.
func BestClassicalLines(curves []*eval.Curve, tols []float64) []string {
	if tols == nil {
		tols = eval.DefaultTolerances
	}
	var classical, learnedCurves []*eval.Curve
	for _, c := range curves {
		if base, _ := cutSafeguard(c.Method); learned(base) {
			learnedCurves = append(learnedCurves, c)
		} else {
			classical = append(classical, c)
		}
	}
	if len(classical) == 0 {
		return nil
	}
	var out []string
	for _, tol := range tols {
		tl := formatTol(tol)
		bestIt, bestSec := math.MaxInt, math.Inf(1)
		var byIt, bySec []*eval.Curve
		for _, c := range classical {
			it := c.ItersTo(tol)
			if it < 0 {
				continue
			}
			switch {
			case it < bestIt:
				bestIt, byIt = it, []*eval.Curve{c}
			case it == bestIt:
				byIt = append(byIt, c)
			}
			switch sec := c.SecondsTo(tol); {
			case sec < bestSec:
				bestSec, bySec = sec, []*eval.Curve{c}
			case sec == bestSec:
				bySec = append(bySec, c)
			}
		}
		if byIt == nil {
			out = append(out, fmt.Sprintf("No classical method reaches mean optimality %s%s.", tl, lowestFinal(classical)))
			for _, c := range learnedCurves {
				if it := c.ItersTo(tol); it >= 0 {
					out = append(out, fmt.Sprintf("%s reaches %s in %s and %s s; no classical method does.", c.Method, tl, iterations(it), FormatSeconds(c.SecondsTo(tol))))
				} else {
					out = append(out, fmt.Sprintf("%s does not reach %s either: %s.", c.Method, tl, shortfall(c)))
				}
			}
			continue
		}
		out = append(out, fmt.Sprintf("Best classical method to mean optimality %s: per iteration %s (%s), per second %s (%s s).",
			tl, curveNames(byIt, true), iterations(bestIt), curveNames(bySec, true), FormatSeconds(bestSec)))
		itRef := fmt.Sprintf("%s, %d", curveNames(byIt, false), bestIt)
		secRef := fmt.Sprintf("%s, %s s", curveNames(bySec, false), FormatSeconds(bestSec))
		for _, c := range learnedCurves {
			it := c.ItersTo(tol)
			if it < 0 {
				out = append(out, fmt.Sprintf("%s does not reach %s: %s; the best classical method per iteration needs %s (%s), per second %s s (%s).",
					c.Method, tl, shortfall(c), iterations(bestIt), curveNames(byIt, false), FormatSeconds(bestSec), curveNames(bySec, false)))
				continue
			}
			sec := c.SecondsTo(tol)
			out = append(out, fmt.Sprintf("%s reaches %s in %s, %s the best classical per iteration (%s); in %s s, %s the best classical per second (%s).",
				c.Method, tl, iterations(it), compare(float64(it), float64(bestIt), "fewer", "more", "as many as"), itRef,
				FormatSeconds(sec), compare(sec, bestSec, "less", "more", "as much as"), secRef))
		}
	}
	if len(learnedCurves) == 0 {
		return out
	}
	for _, t := range BestClassicalIters {
		best, bestVal := []*eval.Curve(nil), math.Inf(1)
		for _, c := range classical {
			v, ok := meanAt(c, t)
			switch {
			case !ok:
			case v < bestVal:
				best, bestVal = []*eval.Curve{c}, v
			case v == bestVal:
				best = append(best, c)
			}
		}
		var parts []string
		anyLearned := false
		for _, c := range learnedCurves {
			v, ok := meanAt(c, t)
			switch {
			case ok:
				anyLearned = true
				parts = append(parts, fmt.Sprintf("%s %s%s", c.Method, FormatOptimality(v), ratioNote(v, bestVal)))
			case c.Diverged() && c.DivergedAt <= t:
				parts = append(parts, fmt.Sprintf("%s diverged at iteration %d", c.Method, c.DivergedAt))
			}
		}
		if best == nil || !anyLearned {
			continue
		}
		val := FormatOptimality(bestVal)
		if bestVal <= 0 {
			val += ", at or below the estimate of f*"
		}
		out = append(out, fmt.Sprintf("At iteration %d the lowest classical mean optimality is %s (%s); %s.", t, curveNames(best, false), val, strings.Join(parts, "; ")))
	}
	return out
}

// iterations is "1 iteration" or "n iterations".
func iterations(n int) string {
	if n == 1 {
		return "1 iteration"
	}
	return fmt.Sprintf("%d iterations", n)
}

// curveNames joins the curves' method names with "and"; with marks, a curve
// that diverged is marked with the iteration at which it did.
func curveNames(cs []*eval.Curve, marks bool) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Method
		if marks && c.Diverged() {
			names[i] += fmt.Sprintf(" (which diverged later, at iteration %d)", c.DivergedAt)
		}
	}
	return strings.Join(names, " and ")
}

// compare states a learned method's count or time v against the best
// classical one's, ref: "3.1× fewer than", "1.5× more than" or same (as
// "as many as"); without a factor when one of them is 0.
func compare(v, ref float64, fewer, more, same string) string {
	switch {
	case v == ref:
		return same
	case v == 0 || ref == 0:
		if v < ref {
			return fewer + " than"
		}
		return more + " than"
	case v < ref:
		return formatFactor(ref/v) + " " + fewer + " than"
	}
	return formatFactor(v/ref) + " " + more + " than"
}

// formatFactor formats a ratio ≥ 1 as "3.1×" (below 10) or "23×".
func formatFactor(r float64) string {
	if r < 10 {
		return strconv.FormatFloat(r, 'f', 1, 64) + "×"
	}
	return strconv.FormatFloat(r, 'f', 0, 64) + "×"
}

// ratioNote is " (23× lower)" or " (1.7× higher)" for a learned mean
// optimality v against the best classical one ref, or a note when either is
// ≤ 0 (at or below the estimate of f*, where ratios mean nothing).
func ratioNote(v, ref float64) string {
	switch {
	case v <= 0 && ref <= 0:
		return " (also at or below the estimate of f*)"
	case v <= 0:
		return " (at or below the estimate of f*)"
	case ref <= 0:
		return " (higher)"
	case v == ref:
		return " (the same)"
	case v < ref:
		return " (" + formatFactor(ref/v) + " lower)"
	}
	return " (" + formatFactor(v/ref) + " higher)"
}

// meanAt returns a curve's mean optimality at iteration t, false when it has
// none there (the run was shorter or diverged before t).
func meanAt(c *eval.Curve, t int) (float64, bool) {
	if t < len(c.Iter) && t < len(c.Mean) && c.Iter[t] == t {
		return c.Mean[t], true
	}
	for i, it := range c.Iter {
		if it == t && i < len(c.Mean) {
			return c.Mean[i], true
		}
	}
	return 0, false
}

// shortfall says why a curve did not reach a tolerance: where it diverged,
// or its final mean optimality after its last iteration.
func shortfall(c *eval.Curve) string {
	if c.Diverged() {
		return fmt.Sprintf("it diverged at iteration %d", c.DivergedAt)
	}
	if n := len(c.Mean); n > 0 {
		return fmt.Sprintf("its mean optimality is %s at its last iteration, %d", FormatOptimality(c.Mean[n-1]), c.Iter[n-1])
	}
	return "it has no iterations"
}

// lowestFinal is ", the lowest final mean optimality among them is lbfgs's
// (3.1e-6)" for the classical curves that did not diverge ("" if none).
func lowestFinal(cs []*eval.Curve) string {
	best, name := math.Inf(1), ""
	for _, c := range cs {
		if n := len(c.Mean); n > 0 && !c.Diverged() && c.Mean[n-1] < best {
			best, name = c.Mean[n-1], c.Method
		}
	}
	if name == "" {
		return ""
	}
	return fmt.Sprintf("; the lowest final mean optimality among them is %s's (%s)", name, FormatOptimality(best))
}

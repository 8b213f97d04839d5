package report

import (
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/eval"
)

// classicalCurve is a hand-made curve: mean optimality per iteration,
// secPerIt seconds per iteration, diverged at divergedAt (0: not).
func classicalCurve(name string, mean []float64, secPerIt float64, divergedAt int) *eval.Curve {
	c := &eval.Curve{Method: name, DivergedAt: divergedAt}
	for i, m := range mean {
		c.Iter = append(c.Iter, i)
		c.Seconds = append(c.Seconds, secPerIt*float64(i))
		c.Mean, c.Min, c.Max = append(c.Mean, m), append(c.Min, m), append(c.Max, m)
	}
	return c
}

// bestClassicalCurves: L-BFGS(m=40) and silver reach 1e-4 at iteration 4,
// NAG at 6 but first in seconds (0.06 s); only L-BFGS(m=40) reaches 1e-6
// (iteration 8, 0.32 s); BB diverges at 3. Greedy M-PC reaches 1e-4 at 2
// (0.04 s) and 1e-6 at 4 (0.08 s); the safeguarded M-PS 1e-4 at 8 (0.04 s)
// and never 1e-6; unrolled M-PC diverges at 5.
func bestClassicalCurves() []*eval.Curve {
	return []*eval.Curve{
		classicalCurve("greedy m-pc", []float64{1, 1e-2, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 5e-10, 4e-10, 0}, 0.02, 0),
		classicalCurve("greedy m-ps (safeguarded)", []float64{1, .5, .2, .1, 1e-2, 5e-3, 1e-3, 5e-4, 1e-4, 5e-5, 3e-5, 2e-5}, 0.005, 0),
		classicalCurve("unrolled m-pc", []float64{1, .1, 1e-2, 1e-3, 1e5}, 0.01, 5),
		classicalCurve("lbfgs(m=40)", []float64{1, .1, 1e-2, 1e-3, 1e-4, 5e-5, 1e-5, 5e-6, 1e-6, 1e-7, 1e-8, 1e-9}, 0.04, 0),
		classicalCurve("silver", []float64{1, .1, 1e-2, 1e-3, 9e-5, 8e-5, 7e-5, 6e-5, 5e-5, 4e-5, 3e-5, 2e-5}, 0.05, 0),
		classicalCurve("nag", []float64{1, .5, .1, 1e-2, 1e-3, 5e-4, 1e-4, 8e-5, 5e-5, 3e-5, 2e-5, 1e-5}, 0.01, 0),
		classicalCurve("nag-restart", []float64{1, .5, .1, 1e-2, 1e-3, 5e-4, 1e-4, 8e-5, 5e-5, 3e-5, 2e-5, 1e-5}, 0.012, 0),
		classicalCurve("bb", []float64{1, 2, 5}, 0.01, 3),
	}
}

// TestBestClassicalLines: the best classical method per iteration and per
// second for each tolerance, every learned curve's factor against them (in
// either direction), what a learned curve that does not reach a tolerance
// gets, and the comparison at iteration 10; all against answers worked out
// by hand from bestClassicalCurves.
func TestBestClassicalLines(t *testing.T) {
	got := BestClassicalLines(bestClassicalCurves(), []float64{1e-4, 1e-6})
	want := []string{
		"Best classical method to mean optimality 1e-4: per iteration lbfgs(m=40) and silver (4 iterations), per second nag (0.06 s).",
		"greedy m-pc reaches 1e-4 in 2 iterations, 2.0× fewer than the best classical per iteration (lbfgs(m=40) and silver, 4); in 0.04 s, 1.5× less than the best classical per second (nag, 0.06 s).",
		"greedy m-ps (safeguarded) reaches 1e-4 in 8 iterations, 2.0× more than the best classical per iteration (lbfgs(m=40) and silver, 4); in 0.04 s, 1.5× less than the best classical per second (nag, 0.06 s).",
		"unrolled m-pc does not reach 1e-4: it diverged at iteration 5; the best classical method per iteration needs 4 iterations (lbfgs(m=40) and silver), per second 0.06 s (nag).",
		"Best classical method to mean optimality 1e-6: per iteration lbfgs(m=40) (8 iterations), per second lbfgs(m=40) (0.32 s).",
		"greedy m-pc reaches 1e-6 in 4 iterations, 2.0× fewer than the best classical per iteration (lbfgs(m=40), 8); in 0.08 s, 4.0× less than the best classical per second (lbfgs(m=40), 0.32 s).",
		"greedy m-ps (safeguarded) does not reach 1e-6: its mean optimality is 2.0e-05 at its last iteration, 11; the best classical method per iteration needs 8 iterations (lbfgs(m=40)), per second 0.32 s (lbfgs(m=40)).",
		"unrolled m-pc does not reach 1e-6: it diverged at iteration 5; the best classical method per iteration needs 8 iterations (lbfgs(m=40)), per second 0.32 s (lbfgs(m=40)).",
		"At iteration 10 the lowest classical mean optimality is lbfgs(m=40) (1.0e-08); greedy m-pc 4.0e-10 (25× lower); greedy m-ps (safeguarded) 3.0e-05 (3000× higher); unrolled m-pc diverged at iteration 5.",
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

// TestBestClassicalLinesEdgeCases: no classical curve gives nil; no learned
// curve only the classical lines; a tolerance no classical method reaches is
// said so, with the lowest final classical optimality, and a learned curve
// that reaches it is named; a classical best that diverged later is marked;
// optimality ≤ 0 gets no ratio.
func TestBestClassicalLinesEdgeCases(t *testing.T) {
	cs := bestClassicalCurves()
	learnedOnly, classicalOnly := cs[:3], cs[3:]
	if l := BestClassicalLines(learnedOnly, nil); l != nil {
		t.Errorf("no classical curves: %q, want nil", l)
	}
	if l := BestClassicalLines(nil, nil); l != nil {
		t.Errorf("no curves: %q, want nil", l)
	}
	if l := BestClassicalLines(classicalOnly, []float64{1e-4, 1e-6}); len(l) != 2 || !strings.HasPrefix(l[0], "Best classical method to mean optimality 1e-4") || !strings.HasPrefix(l[1], "Best classical method to mean optimality 1e-6") {
		t.Errorf("no learned curves: %q, want the two classical lines", l)
	}
	// Without L-BFGS no classical method reaches 1e-6 (nag and nag-restart
	// end lowest, 1e-5: the first is named); M-PC does.
	l := BestClassicalLines(append(learnedOnly, cs[4:]...), []float64{1e-6})
	for _, w := range []string{
		"No classical method reaches mean optimality 1e-6; the lowest final mean optimality among them is nag's (1.0e-05).",
		"greedy m-pc reaches 1e-6 in 4 iterations and 0.08 s; no classical method does.",
		"greedy m-ps (safeguarded) does not reach 1e-6 either: its mean optimality is 2.0e-05 at its last iteration, 11.",
		"unrolled m-pc does not reach 1e-6 either: it diverged at iteration 5.",
		"At iteration 10 the lowest classical mean optimality is nag and nag-restart (2.0e-05); greedy m-pc 4.0e-10 (50000× lower); greedy m-ps (safeguarded) 3.0e-05 (1.5× higher);",
	} {
		if !containsLine(l, w) {
			t.Errorf("lines lack %q:\n%s", w, strings.Join(l, "\n"))
		}
	}
	// BB reaches 1e-4 at iteration 1 (0.01 s) and diverges at 3: it is the
	// best classical method to 1e-4, marked, and M-PC is 2.0× slower.
	fast := classicalCurve("bb", []float64{1, 1e-5, 5}, 0.01, 3)
	l = BestClassicalLines([]*eval.Curve{cs[0], fast, cs[3]}, []float64{1e-4})
	for _, w := range []string{
		"Best classical method to mean optimality 1e-4: per iteration bb (which diverged later, at iteration 3) (1 iteration), per second bb (which diverged later, at iteration 3) (0.01 s).",
		"greedy m-pc reaches 1e-4 in 2 iterations, 2.0× more than the best classical per iteration (bb, 1); in 0.04 s, 4.0× more than the best classical per second (bb, 0.01 s).",
	} {
		if !containsLine(l, w) {
			t.Errorf("lines lack %q:\n%s", w, strings.Join(l, "\n"))
		}
	}
	// At iteration 10 a classical value at or below f*'s estimate.
	below := classicalCurve("lbfgs", []float64{1, .1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, -1e-12, -1e-12}, 0.04, 0)
	l = BestClassicalLines([]*eval.Curve{cs[0], cs[1], below}, []float64{1e-4})
	if w := "At iteration 10 the lowest classical mean optimality is lbfgs (-1.0e-12, at or below the estimate of f*); greedy m-pc 4.0e-10 (higher); greedy m-ps (safeguarded) 3.0e-05 (higher)."; !containsLine(l, w) {
		t.Errorf("lines lack %q:\n%s", w, strings.Join(l, "\n"))
	}
	cs[0].Mean[10] = 0
	if l := BestClassicalLines([]*eval.Curve{cs[0], below}, []float64{1e-4}); !strings.Contains(strings.Join(l, "\n"), "greedy m-pc 0.0e+00 (also at or below the estimate of f*)") {
		t.Errorf("both ≤ 0 at iteration 10:\n%s", strings.Join(l, "\n"))
	}
}

// containsLine reports whether one of lines starts with want.
func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, want) {
			return true
		}
	}
	return false
}

// TestPageStatesBestClassical: index.html lists the best-classical lines
// under the winner.
func TestPageStatesBestClassical(t *testing.T) {
	r := &Report{Curves: bestClassicalCurves(), Tols: []float64{1e-4, 1e-6}}
	pg := r.page()
	if len(pg.Classical) != 9 || pg.Classical[0] != BestClassicalLines(r.Curves, r.Tols)[0] {
		t.Fatalf("page has %d best-classical lines: %q", len(pg.Classical), pg.Classical)
	}
	var b strings.Builder
	if err := indexTemplate.Execute(&b, pg); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<li>greedy m-pc reaches 1e-4 in 2 iterations, 2.0× fewer than the best classical per iteration (lbfgs(m=40) and silver, 4);") {
		t.Errorf("index.html lacks the best-classical lines:\n%s", b.String())
	}
}

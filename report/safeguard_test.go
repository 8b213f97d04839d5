package report

import (
	"math"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/eval"
)

// Both safeguard rules keep the guarded optimizer's colour, with lines of
// their own; their summary lines give the acceptance rates.
func TestSafeguardRulesStylesAndAcceptance(t *testing.T) {
	plain, dec, bgd := MethodStyle("greedy m-pc"), MethodStyle("greedy m-pc (safeguarded)"), MethodStyle("greedy m-pc (safeguarded bgd)")
	if bgd.Hex() != plain.Hex() || len(bgd.Dashes) == len(dec.Dashes) || bgd.Dashes == nil {
		t.Errorf("BGD-safeguarded M-PC: %s %v; default safeguard %s %v", bgd.Hex(), bgd.Dashes, dec.Hex(), dec.Dashes)
	}
	T := 200
	c := &eval.Curve{Method: "greedy m-pc (safeguarded bgd)", Rejected: 30, Steps: 2000, Iter: make([]int, T+1), Accepted: make([]float64, T+1)}
	for i := range c.Iter {
		c.Iter[i] = i
		c.Accepted[i] = 1 - float64(i)/float64(2*T)
	}
	c.Accepted[0] = math.NaN()
	want := "at iterations 1, 10, 100, 200: 99.8%, 97.5%, 75.0%, 50.0%"
	if got := AcceptanceAt(c); got != want {
		t.Errorf("AcceptanceAt = %q, want %q", got, want)
	}
	l := SafeguardLines([]*eval.Curve{c, {Method: "lbfgs", Steps: 10}})
	if len(l) != 1 || !strings.Contains(l[0], "replaced 30 of 2000") || !strings.Contains(l[0], "accepted "+want) {
		t.Errorf("safeguard lines %q", l)
	}
	c.Iter, c.Accepted = c.Iter[:11], c.Accepted[:11]
	c.Accepted[1] = 1
	if got := AcceptanceAt(c); got != "at iterations 1, 10: 100%, 97.5%" {
		t.Errorf("AcceptanceAt on 10 iterations = %q", got)
	}
	c.Accepted = nil
	if got := AcceptanceAt(c); got != "" {
		t.Errorf("AcceptanceAt without rates = %q", got)
	}
}

package greedy

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Schedule is a piecewise-constant sequence of regularisation weights:
// Values[i] applies for steps t < Until[i] (and after the previous bound);
// the last value applies to every later step.
type Schedule struct {
	Values []float64
	Until  []int
	// Relative scales every weight by the step's data curvature: the
	// largest eigenvalue L·c_t of the loss's Hessian bound in that block
	// (c_t = max eigenvalue of (1/N) Σk B_kᵀB_k, B_k = ∂_θ G_θ gk). A relative
	// weight keeps the penalty's share of the loss's curvature fixed while
	// the gradients shrink with t, where a constant weight comes to dominate
	// and pulls late steps back to gradient descent.
	Relative bool
}

// Constant returns the schedule that is v at every step.
func Constant(v float64) Schedule { return Schedule{Values: []float64{v}} }

// At returns the weight of step t.
func (s Schedule) At(t int) float64 {
	if len(s.Values) == 0 {
		return 0
	}
	for i, u := range s.Until {
		if i < len(s.Values)-1 && t < u {
			return s.Values[i]
		}
	}
	return s.Values[len(s.Values)-1]
}

// String formats the schedule as ParseSchedule accepts it.
func (s Schedule) String() string {
	prefix := ""
	if s.Relative {
		prefix = "rel:"
	}
	var parts []string
	for i, v := range s.Values {
		if i < len(s.Until) && i < len(s.Values)-1 {
			parts = append(parts, fmt.Sprintf("%g@%d", v, s.Until[i]))
		} else {
			parts = append(parts, strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	if len(parts) == 0 {
		return prefix + "0"
	}
	return prefix + strings.Join(parts, ",")
}

// ParseSchedule parses "1e-3" (constant) or "1e-2@10,1e-3@50,0" (1e-2 for
// t < 10, 1e-3 for 10 ≤ t < 50, then 0). Weights must be finite and ≥ 0 and
// the bounds increasing. The prefix "rel:" ("rel:1e-2") makes the weights
// relative to each step's data curvature (see Schedule.Relative).
func ParseSchedule(s string) (Schedule, error) {
	var out Schedule
	prev := 0
	body := strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(body, "rel:"); ok {
		out.Relative, body = true, rest
	}
	parts := strings.Split(body, ",")
	for i, p := range parts {
		vs, us, hasBound := strings.Cut(strings.TrimSpace(p), "@")
		v, err := strconv.ParseFloat(vs, 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) || strings.Contains(vs, "_") {
			return Schedule{}, fmt.Errorf("schedule %q: weight %q must be a number ≥ 0", s, vs)
		}
		out.Values = append(out.Values, v)
		if hasBound && i == len(parts)-1 {
			return Schedule{}, fmt.Errorf("schedule %q: the last weight holds for every later step and takes no bound (1e-3@5,0: 1e-3 before step 5, then 0)", s)
		}
		if hasBound {
			u, err := strconv.Atoi(us)
			if err != nil || u <= prev {
				return Schedule{}, fmt.Errorf("schedule %q: bound %q must be an integer step larger than %d", s, us, prev)
			}
			out.Until = append(out.Until, u)
			prev = u
		} else if i != len(parts)-1 {
			return Schedule{}, fmt.Errorf("schedule %q: every weight but the last needs a bound (value@step)", s)
		}
	}
	return out, nil
}

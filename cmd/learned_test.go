package cmd

import (
	"testing"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/learned"
)

func TestDistinguishLabels(t *testing.T) {
	a, b, c := &learned.Optimizer{Label: "greedy m-pc"}, &learned.Optimizer{Label: "greedy m-pc"}, &learned.Optimizer{Label: "greedy m-ps"}
	infos := []*LearnedInfo{{Method: a}, {Method: b}, {Method: c}, {Method: baselines.NAG{}}}
	distinguishLabels(infos, []string{"runs/rel1e-2/", "runs/rel1e-3", "runs/ps", "x"})
	want := []string{"greedy m-pc [rel1e-2]", "greedy m-pc [rel1e-3]", "greedy m-ps", "nag"}
	for i, info := range infos {
		if got := info.Method.Name(); got != want[i] {
			t.Errorf("label %d = %q, want %q", i, got, want[i])
		}
	}
	if a.Label != "greedy m-pc" {
		t.Errorf("the loaded optimizer was modified in place: %q", a.Label)
	}
}

package bench

import (
	"strings"
	"testing"
)

// TestHeapMeterCatchesAFakeLeak runs two fake trainers through the meter
// every trainer's rows use: one keeps 1 MB per step (a leak, as an unrolled
// trajectory does), one allocates 1 MB per step and drops it (as greedy
// does). The meter must see about steps MB for the first and well under one
// step's worth for the second.
func TestHeapMeterCatchesAFakeLeak(t *testing.T) {
	const steps, mb = 8, 1 << 20
	var kept [][]byte
	leak := newHeapMeter()
	for s := 0; s < steps; s++ {
		b := make([]byte, mb)
		b[0] = 1
		kept = append(kept, b)
		leak.sample()
	}
	if got, want := float64(leak.peak), float64(steps*mb); got < 0.95*want || got > 1.2*want {
		t.Errorf("leaking trainer: the meter saw %.0f bytes, want about %.0f", got, want)
	}
	kept = nil
	clean := newHeapMeter()
	var sink []byte
	for s := 0; s < steps; s++ {
		sink = make([]byte, mb)
		sink[0] = byte(s)
		sink = nil
		clean.sample()
	}
	_ = sink
	if clean.peak > mb/2 {
		t.Errorf("non-leaking trainer: the meter saw %d bytes live, want under %d", clean.peak, mb/2)
	}
	_ = kept
}

// TestGrowthsAgainstGoals checks the one-meter ratios on rows with known
// answers: greedy's live heap 4% higher at T = 100 than at 10 meets the
// 1.05 goal, 20% misses it; greedy at 5% of unrolled's at T = 50 meets the
// 0.1 goal.
func TestGrowthsAgainstGoals(t *testing.T) {
	rows := []Row{
		{Trainer: Greedy, T: 10, LiveHeap: 1000, PeakRSS: 5000},
		{Trainer: Greedy, T: 50, LiveHeap: 1000, PeakRSS: 5000},
		{Trainer: Greedy, T: 100, LiveHeap: 1040, PeakRSS: 5100},
		{Trainer: Unrolled, T: 50, LiveHeap: 20000, PeakRSS: 40000},
	}
	gs := Growths(rows)
	want := map[string]struct {
		live float64
		met  bool
	}{
		"greedy(50)/greedy(10)":   {1, true},
		"greedy(50)/unrolled(50)": {0.05, true},
		"greedy(100)/greedy(10)":  {1.04, true},
	}
	if len(gs) != len(want) {
		t.Fatalf("%d ratios, want %d: %+v", len(gs), len(want), gs)
	}
	for _, g := range gs {
		w, ok := want[g.What]
		if !ok || g.LiveHeap != w.live || g.Met() != w.met {
			t.Errorf("%s: live-heap ratio %g (met %v), want %g (met %v)", g.What, g.LiveHeap, g.Met(), w.live, w.met)
		}
	}
	rows[2].LiveHeap = 1200
	lines := strings.Join(OneMeterLines(rows), "\n")
	if !strings.Contains(lines, "greedy(100)/greedy(10)") || !strings.Contains(lines, "MISSED") {
		t.Errorf("a 20%% growth is not reported as a missed goal:\n%s", lines)
	}
}

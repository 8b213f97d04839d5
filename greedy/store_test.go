package greedy

import (
	"os"
	"slices"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
)

// TestSaveStepLinksUnchangedIterates: a step's xprev that holds the last
// step's x becomes a second name of x's file (no copy); one that differs is
// written with its own values. Either way the file holds xprev's values and
// the manifest its checksum.
func TestSaveStepLinksUnchangedIterates(t *testing.T) {
	dir := t.TempDir()
	man, seen := &checkpoint.Manifest{}, newWrittenStates()
	theta := []float64{1, 2}
	xs := [][]float64{{0.5, -1, 3}, {0.25, -2, 7}, {0.125, -4, 15}, {9, 9, 9}}
	if err := saveStep(dir, man, seen, 0, theta, nil, xs[0], xs[3], nil, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		step        int
		x, xprev    []float64
		sharesLastX bool
	}{
		{1, xs[1], xs[0], true},  // as the trainer steps: xprev is the last x
		{2, xs[2], xs[3], false}, // an xprev that is not
	} {
		lastX, err := os.Stat(checkpoint.StatePath(dir, "x", c.step))
		if err != nil {
			t.Fatal(err)
		}
		if err := saveStep(dir, man, seen, c.step, theta, nil, c.x, c.xprev, nil, nil); err != nil {
			t.Fatal(err)
		}
		rel := checkpoint.StateFile("xprev", c.step+1)
		got, err := checkpoint.ReadNPYVerified(dir, rel, len(c.xprev), man.Checksums)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.xprev) {
			t.Errorf("%s = %v, want %v", rel, got, c.xprev)
		}
		xprev, err := os.Stat(checkpoint.StatePath(dir, "xprev", c.step+1))
		if err != nil {
			t.Fatal(err)
		}
		if os.SameFile(lastX, xprev) != c.sharesLastX {
			t.Errorf("step %d: xprev shares the last x's file: %v, want %v", c.step, !c.sharesLastX, c.sharesLastX)
		}
	}
}

package greedy

import (
	"os"
	"path/filepath"
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

// TestSaveStepKeepsFloat32Iterates: iterates that are float32 numbers (a
// float32 run's) are written as float32 files, others as float64 ones, and
// both read back bit for bit; parameters stay float64 files whatever their
// values.
func TestSaveStepKeepsFloat32Iterates(t *testing.T) {
	dir := t.TempDir()
	man := &checkpoint.Manifest{}
	n := 1000
	theta, x, xprev := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range x {
		theta[i] = float64(i)
		x[i] = float64(float32(1 / float64(i+3)))
		xprev[i] = 1 / float64(i+3) // not a float32 number
	}
	if err := saveStep(dir, man, nil, 0, theta, nil, x, xprev, nil, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rel       string
		v         []float64
		valueSize int
	}{
		{checkpoint.ParamFile("theta", 0), theta, 8},
		{checkpoint.StateFile("x", 1), x, 4},
		{checkpoint.StateFile("xprev", 1), xprev, 8},
	} {
		got, err := checkpoint.ReadNPYVerified(dir, c.rel, n, man.Checksums)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.v) {
			t.Errorf("%s does not read back its values", c.rel)
		}
		st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(c.rel)))
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(c.valueSize * n); st.Size() < want || st.Size() > want+128 {
			t.Errorf("%s has %d bytes, want %d of values (%d bytes a value) and a header", c.rel, st.Size(), want, c.valueSize)
		}
	}
}

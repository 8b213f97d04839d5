package greedy

import (
	"slices"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/steploss"
)

// startRecorder is an inner solver that records where each solve starts and
// runs NAG from there.
type startRecorder struct {
	starts [][]float64
	nag    NAG
}

func (r *startRecorder) Name() string { return "nag" }
func (r *startRecorder) Minimize(sp *Subproblem, u0 []float64) ([]float64, error) {
	r.starts = append(r.starts, append([]float64(nil), u0...))
	return r.nag.Minimize(sp, u0)
}

// TestWarmStart checks Config.WarmStart: step 0 starts at the reference
// (θ̃, φ̃), every later step at the previous step's (θ, φ); without it every
// step starts at the reference. A resumed warm run starts its first step
// at the parameters loaded from the checkpoint and ends bitwise where an
// uninterrupted one does.
func TestWarmStart(t *testing.T) {
	o := deblurSet(t, 3, 12, 7)
	m := method(t, "m-pc3")
	run := func(warm bool, dir string, steps int, resume bool) (*Result, *startRecorder) {
		rec := &startRecorder{nag: NAG{Iters: 5, Rounds: 2}}
		res, err := Train(o, Config{Method: Method{Param: m}, Solver: Solver{Inner: rec, WarmStart: warm}, Stop: Stop{MaxSteps: steps}, Store: Store{KeepParams: true, Dir: dir, Resume: resume}})
		if err != nil {
			t.Fatal(err)
		}
		return res, rec
	}
	loss, err := steploss.NewStepLoss(m, o, 1/o.L)
	if err != nil {
		t.Fatal(err)
	}
	ref := loss.Reference()
	loss.Close()

	res, rec := run(true, "", 4, false)
	if !slices.Equal(rec.starts[0], ref) {
		t.Error("warm start: step 0 did not start at the reference")
	}
	for s := 1; s < 4; s++ {
		want := append(append([]float64(nil), res.Theta[s-1]...), res.Phi[s-1]...)
		if !slices.Equal(rec.starts[s], want) {
			t.Errorf("warm start: step %d did not start at step %d's parameters", s, s-1)
		}
	}
	if slices.Equal(res.Theta[3], res.Theta[2]) {
		t.Error("warm start: the parameters did not move from the previous step's")
	}
	_, cold := run(false, "", 3, false)
	for s, u := range cold.starts {
		if !slices.Equal(u, ref) {
			t.Errorf("cold start: step %d did not start at the reference", s)
		}
	}
	if !strings.HasSuffix(res.Manifest.InnerSettings, ",start=previous") {
		t.Errorf("inner settings %q do not record the warm start", res.Manifest.InnerSettings)
	}

	dir := t.TempDir() + "/warm"
	run(true, dir, 2, false)
	resumed, rec2 := run(true, dir, 4, true)
	want := append(append([]float64(nil), res.Theta[1]...), res.Phi[1]...)
	if len(rec2.starts) == 0 || !slices.Equal(rec2.starts[0], want) {
		t.Error("resumed warm run: step 2 did not start at step 1's parameters from the checkpoint")
	}
	if !slices.Equal(resumed.X, res.X) {
		t.Error("resumed warm run ends elsewhere than the uninterrupted one")
	}
	// A cold resume of a warm checkpoint is refused (the inner settings differ).
	if _, err := Train(o, Config{Method: Method{Param: m}, Solver: Solver{Inner: NAG{Iters: 5, Rounds: 2}}, Stop: Stop{MaxSteps: 5}, Store: Store{Dir: dir, Resume: true}}); err == nil {
		t.Error("a warm checkpoint resumed without the warm start")
	}
	if _, err := Train(o, Config{Method: Method{Param: method(t, "pf")}, Solver: Solver{WarmStart: true}, Stop: Stop{MaxSteps: 2}}); err == nil || !strings.Contains(err.Error(), "reduced subspace") {
		t.Errorf("a warm start of a reduced step loss (pf): err = %v, want a refusal", err)
	}
}

package greedy

import (
	"testing"

	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/internal/testsupport"
)

// TestDividedTrainingOnDevice: 2 and 3 "processes", each with its block of
// the M-PC step loss on a device (the float64 CPU device), train the same
// parameters bit for bit on every process (the inner solver's state is the
// same everywhere), and those of one process on the device to rounding
// (each process sums its block on its device).
func TestDividedTrainingOnDevice(t *testing.T) {
	o := deblurSet(t, 7, 12, 3)
	cfg := func(d *Divide) Config {
		return Config{Method: Method{Param: method(t, "m-pc"), Lambda: Constant(1e-3), Mu: Constant(1e-3), Divide: d},
			Target: execution.OnDevice(gpu.CPU()),
			Solver: Solver{Inner: NAG{Iters: 20, Rounds: 2}}, Stop: Stop{MaxSteps: 2}, Store: Store{KeepParams: true}}
	}
	want, err := Train(o, cfg(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{2, 3} {
		got := trainDivided(t, o, k, cfg)
		for b := range k {
			for s := range want.Theta {
				if d := firstBitDiff(got[b].Theta[s], got[0].Theta[s]); d >= 0 {
					t.Errorf("%d processes, process %d, step %d: θ differs from process 0's at %d", k, b, s, d)
				}
				if d := testsupport.RelDiff(got[b].Theta[s], want.Theta[s]); d > 1e-8 {
					t.Errorf("%d processes, process %d, step %d: θ differs from one process's by %.2g", k, b, s, d)
				}
			}
		}
	}
}

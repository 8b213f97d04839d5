//go:build l2ocuda

package cuda

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/greedyl2o/greedyl2o/baselines/banert"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/ondevice"
)

// TestBanertLossCaptured evaluates Banert's loss (T = 10 on 2 functions of
// Problem 1, 96×96, networks of 3 and 4 inputs; T = 2 on one 8×8 function
// and 4 inputs on the emulation) on the CUDA device five times: the first
// runs uncaptured, the second captures its forward pass, loss, reverse pass
// and gradient (ondevice's capturedSteps) and the third replays them, both
// with the first's bits; the fourth replays them at other parameters and
// gives the bits of a fresh loss's uncaptured evaluation there, as the
// graph reads the weights and the norms' coefficients from device buffers;
// the fifth, of T − 1 iterations, captures that length's evaluation and
// gives a fresh loss's bits too. On the emulation the third evaluation (an
// Adam step's) launches 1 graph and no kernel one by one, captures
// nothing, copies to the host once (the loss and the gradient's 12 blocks
// in one readout) and waits for the device once: its call log.
func TestBanertLossCaptured(t *testing.T) {
	d := device(t)
	size, T := paperSize(d, 96, 8), paperSize(d, 10, 2)
	n := paperSize(d, 2, 1)
	inputs := []int{3, 4}
	if emulated(d) {
		inputs = inputs[1:] // the 3-input network's passes differ only in stacking the input
	}
	o := testproblems.Deblur(t, n, size, "", -1, 3)
	for _, inputs := range inputs {
		t.Run(fmt.Sprint(inputs, " inputs"), func(t *testing.T) {
			net, err := banert.NewNetwork(inputs, 1)
			if err != nil {
				t.Fatal(err)
			}
			other := make([]float64, len(net.Theta))
			for i, v := range net.Theta {
				other[i] = v * (1 + 0.01*float64(i%7-3))
			}
			loss := func() *ondevice.BanertLoss {
				l, err := ondevice.NewBanertLoss(d, o, T, inputs, n)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(l.Close)
				return l
			}
			eval := func(l *ondevice.BanertLoss, T int, theta []float64, log string) []float64 {
				if log != "" {
					t.Setenv("L2O_EMU_CALL_LOG", log)
					defer os.Unsetenv("L2O_EMU_CALL_LOG")
				}
				grad := make([]float64, len(theta))
				v, err := l.Eval(T, theta, o.X0, o.Y, grad)
				if err != nil {
					t.Fatal(err)
				}
				return append(grad, v)
			}
			l := loss()
			first := eval(l, T, net.Theta, "")
			sameBits(t, "the captured evaluation", [][]float64{eval(l, T, net.Theta, "")}, [][]float64{first})
			log := ""
			if emulated(d) {
				log = filepath.Join(t.TempDir(), "calls.txt")
			}
			sameBits(t, "the replayed evaluation", [][]float64{eval(l, T, net.Theta, log)}, [][]float64{first})
			sameBits(t, "the replay at other parameters", [][]float64{eval(l, T, other, "")}, [][]float64{eval(loss(), T, other, "")})
			sameBits(t, "the capture of T − 1 iterations", [][]float64{eval(l, T-1, other, "")}, [][]float64{eval(loss(), T-1, other, "")})
			if log == "" {
				return
			}
			calls := callCounts(t, log)
			// The waits as gpu/gpubudget counts them, but for the debugging
			// mode's after every queued operation (L2O_CUDA_SYNC=1).
			waits := calls["dtoh"] + calls["htod"] + calls["free"]
			if !d.syncEach {
				waits += calls["sync"]
			}
			if calls["graph"] != 1 || calls["launch"] != 0 || calls["capture"] != 0 || calls["dtoh"] != 1 || waits != 1 {
				t.Errorf("the replayed evaluation launched %d graphs and %d kernels, captured %d operations, copied to the host %d times and waited %d times, want 1, 0, 0, 1 and 1",
					calls["graph"], calls["launch"], calls["capture"], calls["dtoh"], waits)
			}
			t.Logf("the replayed evaluation's driver calls: %v", calls)
		})
	}
}

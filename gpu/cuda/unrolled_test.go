//go:build l2ocuda

package cuda

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/ondevice"
)

// TestUnrolledGradientsAgree evaluates the unrolled loss of M-PC and M-PS
// (T = 10, a batch of 4 functions of Problem 1; smaller on the emulation)
// on the CUDA device, every step's parameter gradients gathered on the
// device, against the CPU device's float64 reverse pass, whose gradients
// are bitwise those brought to the host step by step (package ondevice's
// TestUnrolledGradientsStayOnTheDevice): loss and values to 1e-5, the
// gradient to 1e-3 relative (max norm). M-PC's second evaluation
// captures each step's work (ondevice's capturedSteps) and its third
// replays it: both give the first's bits; on the emulation the third copies
// to the host once and launches 2T graphs (its call log).
func TestUnrolledGradientsAgree(t *testing.T) {
	d := device(t)
	size, T := paperSize(d, 96, 12), paperSize(d, 10, 3)
	const batch = 4
	o := testproblems.Deblur(t, batch, size, "", -1, 5)
	for _, name := range []string{"m-pc", "m-ps"} {
		t.Run(name, func(t *testing.T) {
			m := testproblems.Method(t, name)
			c := make([]float64, T)
			for i := range c {
				c[i] = float64(i+1) / float64(T*batch)
			}
			eval := func(ops gpu.Ops, log string) (float64, []float64, []float64) {
				l, err := ondevice.NewUnrolled(ops, m, o, T, batch)
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
				if err := l.SetBatch(o.X0, o.Y); err != nil {
					t.Fatal(err)
				}
				theta, phi := make([][]float64, T), make([][]float64, T)
				gradT, gradP := make([][]float64, T), make([][]float64, T)
				for s := range T {
					theta[s], phi[s] = m.G.Reference(0.5, size, size), m.H.Reference(0.1, size, size)
					gradT[s], gradP[s] = make([]float64, len(theta[s])), make([]float64, len(phi[s]))
				}
				flat := func() []float64 {
					var grad []float64
					for s := range T {
						grad = append(append(grad, gradT[s]...), gradP[s]...)
					}
					return append(grad, l.Values()...)
				}
				v, err := l.Eval(theta, phi, c, gradT, gradP)
				if err != nil {
					t.Fatal(err)
				}
				first := flat()
				// Then captured (M-PC) and replayed: the same bits.
				for rep := 1; rep < 3 && ops != gpu.Ops(gpu.CPU()); rep++ {
					if rep == 2 && log != "" {
						t.Setenv("L2O_EMU_CALL_LOG", log)
					}
					again, err := l.Eval(theta, phi, c, gradT, gradP)
					os.Unsetenv("L2O_EMU_CALL_LOG")
					if err != nil {
						t.Fatal(err)
					}
					sameBits(t, fmt.Sprintf("%s evaluation %d", name, rep+1), [][]float64{append(flat(), again)}, [][]float64{append(first, v)})
				}
				vals := first[len(first)-T:]
				return v, vals, first[:len(first)-T]
			}
			want, wantVals, wantGrad := eval(gpu.CPU(), "")
			log := ""
			if emulated(d) {
				log = filepath.Join(t.TempDir(), "calls.txt")
			}
			got, gotVals, gotGrad := eval(d, log)
			if e := math.Abs(got-want) / math.Abs(want); e > 1e-5 {
				t.Errorf("loss on CUDA %.9g, CPU %.9g (relative %.2g)", got, want, e)
			}
			for s, v := range wantVals {
				if e := math.Abs(gotVals[s]-v) / math.Abs(v); e > 1e-5 {
					t.Errorf("F(x^%d) on CUDA %.9g, CPU %.9g (relative %.2g)", s+1, gotVals[s], v, e)
				}
			}
			var diff, scale float64
			for i, v := range wantGrad {
				diff = math.Max(diff, math.Abs(gotGrad[i]-v))
				scale = math.Max(scale, math.Abs(v))
			}
			if !(diff <= 1e-3*scale) || scale == 0 {
				t.Errorf("gradient on CUDA differs from the CPU's by %.3g (max-norm relative to %.3g)", diff/scale, scale)
			}
			t.Logf("CUDA against CPU float64 at %d×%d, T = %d: loss %.2g, gradient %.2g (relative)", size, size, T, math.Abs(got-want)/math.Abs(want), diff/scale)
			if log == "" {
				return
			}
			calls := callCounts(t, log)
			if calls["dtoh"] != 1 {
				t.Errorf("an evaluation copied to the host %d times, want 1 (every step's gradients with the values)", calls["dtoh"])
			}
			// M-PC's steps replayed: a graph for each step's forward and
			// reverse work (M-PS, whose θ is a kernel's argument, is not captured).
			if want := map[string]int{"m-pc": 2 * T, "m-ps": 0}[name]; calls["graph"] != want || calls["capture"] != 0 {
				t.Errorf("the third evaluation launched %d graphs and captured %d operations, want %d and 0", calls["graph"], calls["capture"], want)
			}
		})
	}
}

//go:build l2ocuda

package steploss

import (
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu/cuda"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"gorgonia.org/cu"
)

// BenchmarkStepLossCUDA times the step loss and its gradient on a CUDA
// device (the engine's device pass on gpu/cuda, float32), N = 25 images of 96×96, the
// evaluation a greedy trainer repeats. On a GPU it is the time a training
// step's evaluation takes; on the CPU emulation (scripts/cuda-emu) with
// L2O_EMU_NOEXEC=1 the kernels are not run and the time is the host's own
// share (Go, cgo and the driver calls), which a GPU cannot hide.
func BenchmarkStepLossCUDA(b *testing.B) {
	if err := cu.InitError(); err != nil {
		b.Skipf("no CUDA GPU on this machine (%v)", err)
	}
	d, err := cuda.Open(0)
	if err != nil {
		b.Fatalf("open CUDA device: %v", err)
	}
	for _, name := range []string{"m-ps", "m-pc"} {
		b.Run(name, func(b *testing.B) { benchStepLoss(b, name, stepPaths{device: d}) })
	}
	// NAG's evaluations in block mode: θ moves, φ is frozen.
	b.Run("m-pc-block-theta", func(b *testing.B) {
		benchMethodBlock(b, testproblems.Method(b, "m-pc"), 96, stepPaths{device: d}, 0)
	})
}

package unroll

import (
	"github.com/greedyl2o/greedyl2o/execution"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
)

// BenchmarkLoss times one evaluation of the unrolled loss and its gradient
// (one Adam step's work) for T = 10 steps of M-PC on a mini-batch of 4
// images of 96×96: the gorgonia graph against the reverse pass on the CPU
// device's array operations. Reports the bytes each holds.
func BenchmarkLoss(b *testing.B) {
	o := deblurSet(b, 4, 96, 1)
	m := method(b, "m-pc")
	for _, path := range []string{"graph", "host-ops"} {
		b.Run(path, func(b *testing.B) {
			var l *Loss
			var err error
			if path == "graph" {
				l, err = NewLoss(m, o, 10, 4, 0, nil)
			} else {
				l, err = NewLossFor(m, o, 10, 4, 0, nil, execution.OnDevice(gpu.CPU()))
			}
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			u := l.Reference()
			g := make([]float64, len(u))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := l.Eval(u, g); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(l.HeldBytes())/1e6, "held-MB")
		})
	}
}

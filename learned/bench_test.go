package learned_test

import (
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/learned"
)

// BenchmarkAlgorithm2Iteration times one iteration (Next) of Algorithm 2 on
// the CPU for Problem 1 at full size (25 images of 96×96): ∇f at the iterate
// and the learned update x⁺ = x − G_θ ∇f + H_φ (x − x⁻), with the reference
// parameters (θ of G = τI, φ of H = 0.1·I).
func BenchmarkAlgorithm2Iteration(b *testing.B) {
	o := testproblems.DeblurSet(b, 25, 96, 1)
	for _, name := range []string{"m-ps", "m-pp", "m-pc", "m-pc5"} {
		b.Run(name, func(b *testing.B) {
			m := testproblems.Method(b, name)
			theta := m.G.Reference(1/o.L, o.H, o.W)
			var phi []float64
			if m.H != nil {
				phi = m.H.Reference(0.1, o.H, o.W)
			}
			opt, err := learned.New(name, m, o.H, o.W, [][]float64{theta}, [][]float64{phi})
			if err != nil {
				b.Fatal(err)
			}
			it, err := opt.Start(o)
			if err != nil {
				b.Fatal(err)
			}
			if err := it.Next(); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if err := it.Next(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package tomo

import (
	"math/rand"
	"testing"
)

// benchForwardAdjoint times one Forward plus one Adjoint of a batch and
// reports the time per batch in milliseconds as ms/op-pair.
func benchForwardAdjoint(b *testing.B, n, angles, batch int) {
	p := mustProjector(b, n, angles, 0)
	g := p.Geometry()
	rng := rand.New(rand.NewSource(1))
	x := randVec(rng, batch*g.ImageLen())
	y := make([]float64, batch*g.SinoLen())
	back := make([]float64, len(x))
	b.ResetTimer()
	for b.Loop() {
		if err := p.Forward(y, x, batch); err != nil {
			b.Fatal(err)
		}
		if err := p.Adjoint(back, y, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/fwd+adj")
}

// BenchmarkForwardAdjoint256: batch 25, 256², 180 angles, 363 bins.
func BenchmarkForwardAdjoint256(b *testing.B) { benchForwardAdjoint(b, 256, 180, 25) }

// BenchmarkForwardAdjoint40: batch 25, 40², 90 angles, 57 bins.
func BenchmarkForwardAdjoint40(b *testing.B) { benchForwardAdjoint(b, 40, 90, 25) }

func benchOne(b *testing.B, n, angles, batch int, forward bool) {
	p := mustProjector(b, n, angles, 0)
	g := p.Geometry()
	rng := rand.New(rand.NewSource(1))
	x := randVec(rng, batch*g.ImageLen())
	y := randVec(rng, batch*g.SinoLen())
	b.ResetTimer()
	for b.Loop() {
		var err error
		if forward {
			err = p.Forward(y, x, batch)
		} else {
			err = p.Adjoint(x, y, batch)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkForward256(b *testing.B) { benchOne(b, 256, 180, 25, true) }
func BenchmarkAdjoint256(b *testing.B) { benchOne(b, 256, 180, 25, false) }

// BenchmarkForwardAdjoint40Float32 is BenchmarkForwardAdjoint40 with
// ForwardT and AdjointT in float32.
func BenchmarkForwardAdjoint40Float32(b *testing.B) {
	p := mustProjector(b, 40, 90, 0)
	g := p.Geometry()
	rng := rand.New(rand.NewSource(1))
	x := make([]float32, 25*g.ImageLen())
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	y := make([]float32, 25*g.SinoLen())
	back := make([]float32, len(x))
	b.ResetTimer()
	for b.Loop() {
		if err := ForwardT(p, y, x, 25); err != nil {
			b.Fatal(err)
		}
		if err := AdjointT(p, back, y, 25); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/fwd+adj")
}

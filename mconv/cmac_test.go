package mconv

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// randSpectrum returns n complex values with parts uniform in [−1, 1).
func randSpectrum(rng *rand.Rand, n int) []complex128 {
	s := make([]complex128, n)
	for i := range s {
		s[i] = complex(2*rng.Float64()-1, 2*rng.Float64()-1)
	}
	return s
}

// naiveProducts computes out[img,a,f] = Σ_b op(S(a,b)[f])·in[img,b,f] from
// the full filter spectra of the plan, frequency by frequency.
func naiveProducts(p *Plan, full [][]complex128, in []complex128, g int, adjoint bool) []complex128 {
	nIn, nOut := p.s.Cin, p.s.Cout
	if adjoint {
		nIn, nOut = nOut, nIn
	}
	sl := p.specLen
	out := make([]complex128, g*nOut*sl)
	for img := range g {
		for a := range nOut {
			for f := range sl {
				var s complex128
				for b := range nIn {
					x := in[(img*nIn+b)*sl+f]
					if adjoint {
						w := full[b*p.s.Cin+a][f]
						s += complex(real(w), -imag(w)) * x
					} else {
						s += full[a*p.s.Cin+b][f] * x
					}
				}
				out[(img*nOut+a)*sl+f] = s
			}
		}
	}
	return out
}

// TestProductTileVector checks the vector products (cmac4) and the scalar
// ones against a naive sum, forward and adjoint, for channel counts that
// are and are not multiples of four and tiles of odd and even lengths.
func TestProductTileVector(t *testing.T) {
	if !haveCmac4 {
		t.Skip("cmac4 needs amd64 with AVX2 and FMA; only the scalar products run here")
	}
	defer func(v bool) { useCmac4 = v }(useCmac4)
	rng := rand.New(rand.NewPCG(21, 22))
	for _, s := range []Shape{
		{Cin: 8, Cout: 60, H: 9, W: 11, K: 5},
		{Cin: 3, Cout: 5, H: 7, W: 6, K: 3},
		{Cin: 4, Cout: 8, H: 12, W: 13, K: 5},
		{Cin: 1, Cout: 9, H: 5, W: 5, K: 1},
	} {
		p, err := NewPlan(randSlice(rng, s.WeightLen()), s, FFT)
		if err != nil {
			t.Fatal(err)
		}
		// Rebuild the full spectra from the tile-major layout.
		pairs := s.Cout * s.Cin
		full := make([][]complex128, pairs)
		for k := range full {
			full[k] = make([]complex128, p.specLen)
		}
		for f0 := 0; f0 < p.specLen; f0 += p.tile {
			f1 := min(f0+p.tile, p.specLen)
			for k := range pairs {
				copy(full[k][f0:f1], p.spec[pairs*f0+k*(f1-f0):pairs*f0+(k+1)*(f1-f0)])
			}
		}
		for _, adjoint := range []bool{false, true} {
			nIn, nOut := s.Cin, s.Cout
			if adjoint {
				nIn, nOut = nOut, nIn
			}
			const g = 3
			in := randSpectrum(rng, g*nIn*p.specLen)
			want := naiveProducts(p, full, in, g, adjoint)
			for _, vec := range []bool{false, true} {
				useCmac4 = vec
				out := randSpectrum(rng, g*nOut*p.specLen) // garbage: must be overwritten
				for f0 := 0; f0 < p.specLen; f0 += p.tile {
					p.productTile(out, in, g, nIn, nOut, f0, min(f0+p.tile, p.specLen), adjoint)
				}
				var e, ref float64
				for i := range out {
					e = max(e, cabs(out[i]-want[i]))
					ref = max(ref, cabs(want[i]))
				}
				if e > 1e-14*ref*float64(nIn) {
					t.Errorf("shape %+v adjoint %v vector %v: max |products − naive| = %g, max |naive| = %g", s, adjoint, vec, e, ref)
				}
			}
		}
	}
}

func cabs(c complex128) float64 { return max(abs(real(c)), abs(imag(c))) }

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// BenchmarkProducts times the spectral products of wcrr's 8→60 layer on a
// group of 8 images of 96×96, scalar and vector.
func BenchmarkProducts(b *testing.B) {
	defer func(v bool) { useCmac4 = v }(useCmac4)
	s := Shape{Cin: 8, Cout: 60, H: 96, W: 96, K: 5}
	rng := rand.New(rand.NewPCG(1, 2))
	p, err := NewPlan(randSlice(rng, s.WeightLen()), s, FFT)
	if err != nil {
		b.Fatal(err)
	}
	const g = 8
	for _, vec := range []bool{false, true} {
		if vec && !haveCmac4 {
			continue
		}
		for _, adjoint := range []bool{false, true} {
			nIn, nOut := s.Cin, s.Cout
			if adjoint {
				nIn, nOut = nOut, nIn
			}
			in := randSpectrum(rng, g*nIn*p.specLen)
			out := make([]complex128, g*nOut*p.specLen)
			b.Run(fmt.Sprintf("vector=%v/adjoint=%v", vec, adjoint), func(b *testing.B) {
				useCmac4 = vec
				cpu0 := cpuSeconds()
				for b.Loop() {
					for f0 := 0; f0 < p.specLen; f0 += p.tile {
						p.productTile(out, in, g, nIn, nOut, f0, min(f0+p.tile, p.specLen), adjoint)
					}
				}
				b.ReportMetric((cpuSeconds()-cpu0)*1e9/float64(b.N)/float64(g*nIn*nOut*p.specLen), "cpu-ns/cmac")
			})
		}
	}
}

// TestPlanVectorMatchesScalar runs whole FFT plans with the vector and the
// scalar products (the previous implementation, kept as the oracle) and
// requires agreement to 1e-12 relative, forward and adjoint.
func TestPlanVectorMatchesScalar(t *testing.T) {
	if !haveCmac4 {
		t.Skip("cmac4 needs amd64 with AVX2 and FMA")
	}
	defer func(v bool) { useCmac4 = v }(useCmac4)
	rng := rand.New(rand.NewPCG(31, 32))
	for _, s := range append(planShapes, Shape{N: 3, Cin: 8, Cout: 60, H: 40, W: 36, K: 5}) {
		p, err := NewPlan(randSlice(rng, s.WeightLen()), s, FFT)
		if err != nil {
			t.Fatal(err)
		}
		x := randSlice(rng, s.InputLen())
		y := randSlice(rng, s.OutputLen())
		var fwd, adj [2][]float64
		for i, vec := range []bool{false, true} {
			useCmac4 = vec
			fwd[i] = make([]float64, s.OutputLen())
			adj[i] = make([]float64, s.InputLen())
			if err := p.Forward(fwd[i], x, s.N); err != nil {
				t.Fatal(err)
			}
			if err := p.AdjointInput(adj[i], y, s.N); err != nil {
				t.Fatal(err)
			}
		}
		if e, ref := maxAbsDiff(fwd[1], fwd[0]), norm(fwd[0]); e > 1e-12*ref {
			t.Errorf("shape %+v: forward vector − scalar = %g, ‖scalar‖ = %g", s, e, ref)
		}
		if e, ref := maxAbsDiff(adj[1], adj[0]), norm(adj[0]); e > 1e-12*ref {
			t.Errorf("shape %+v: adjoint vector − scalar = %g, ‖scalar‖ = %g", s, e, ref)
		}
	}
}

// TestForwardEach checks that ForwardEach computes Forward, calls post
// exactly once for every output plane with that plane, and keeps what post
// writes, for both methods.
func TestForwardEach(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, s := range []Shape{{N: 3, Cin: 2, Cout: 5, H: 13, W: 10, K: 5}, {N: 2, Cin: 8, Cout: 12, H: 30, W: 31, K: 5}} {
		w := randSlice(rng, s.WeightLen())
		x := randSlice(rng, s.InputLen())
		for _, method := range []Method{Direct, FFT} {
			p, err := NewPlan(w, s, method)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float64, s.OutputLen())
			if err := p.Forward(want, x, s.N); err != nil {
				t.Fatal(err)
			}
			plane := s.H * s.W
			calls := make([]int, s.N*s.Cout) // one slot per plane: no data race
			got := randSlice(rng, s.OutputLen())
			err = p.ForwardEach(got, x, s.N, func(k int, zp []float64) {
				calls[k]++
				if &zp[0] != &got[k*plane] || len(zp) != plane {
					t.Errorf("%v: plane %d passed at the wrong place", method, k)
				}
				for i := range zp {
					if zp[i] != want[k*plane+i] {
						t.Errorf("%v: plane %d[%d] = %v before post, Forward gives %v", method, k, i, zp[i], want[k*plane+i])
						return
					}
					zp[i] = 2*zp[i] + 1
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			for k, c := range calls {
				if c != 1 {
					t.Errorf("%v: post called %d times for plane %d", method, c, k)
				}
			}
			for i := range got {
				if got[i] != 2*want[i]+1 {
					t.Fatalf("%v: y[%d] = %v after post, want %v", method, i, got[i], 2*want[i]+1)
				}
			}
		}
	}
	p, err := NewPlan(make([]float64, 2*3*9), Shape{Cin: 2, Cout: 3, H: 4, W: 4, K: 3}, FFT)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.ForwardEach(make([]float64, 5), make([]float64, 32), 1, func(int, []float64) {}); err == nil {
		t.Error("ForwardEach with a short y: no error")
	}
}

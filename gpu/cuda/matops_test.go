//go:build l2ocuda

package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
)

// TestMatProductsSumInOrder checks that the tiled dense products (PF) give
// every output the plain loop's double sum over its summation index in
// order, to the bit: against a host replica of that loop on float32
// operands, with each product rounded (the unfused build) or fused into the
// sum (a GPU's DFMA, the fused emulation), one or the other for all outputs.
// The operands make every output's sum depend on its order (below), so
// that a changed order, or a lost or doubled summand, shows in the float32
// results. The shape leaves partial tiles on every side (M = 35, N = 19).
func TestMatProductsSumInOrder(t *testing.T) {
	d := device(t)
	s := gpu.Batch{N: 19, H: 5, W: 7}
	m, n := s.H*s.W, s.N
	rng := rand.New(rand.NewPCG(3, 5))
	// Each output's sum starts with 8 summands ±2⁴⁰ that cancel exactly
	// when added first, and holds a pair ±2⁴⁰ across each boundary of the
	// 16-summand tiles (at 15, 16 and 31, 32), between summands of order 1:
	// summed in another order (within a tile, or the tiles in another
	// order) small summands meet an uncancelled 2⁴⁰ and are rounded to its
	// spacing in double (2⁻¹²), which float32 results of order 1 show.
	// big(k, i) is the k-th large summand of output i, or 0 where k is no
	// large position (four of each sign among the first 8, shuffled).
	signs := map[int][]float64{}
	big := func(k, i int) float64 {
		if signs[i] == nil {
			signs[i] = []float64{1, 1, 1, 1, -1, -1, -1, -1}
			rng.Shuffle(8, func(p, q int) { signs[i][p], signs[i][q] = signs[i][q], signs[i][p] })
		}
		switch {
		case k < 8:
			return math.Ldexp(signs[i][k], 40)
		case k == 15 || k == 31:
			return math.Ldexp(signs[i][k%8], 40)
		case k == 16 || k == 32:
			return -math.Ldexp(signs[i][(k-1)%8], 40)
		}
		return 0
	}
	small := func() float64 { return float64(float32(rng.NormFloat64())) }
	upload := func(x []float64) gpu.Buffer {
		t.Helper()
		b, err := d.Alloc(len(x))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Free(b) })
		if err := d.CopyIn(b, x); err != nil {
			t.Fatal(err)
		}
		return b
	}
	// a: row i holds its large values (aT = aᵀ, for the transposed
	// product) where v's vectors hold ones; r, for the outer sum: vector n
	// at a large position holds them where vOuter's is all ones.
	a, aT := make([]float64, m*m), make([]float64, m*m)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			x := big(j, i)
			if x == 0 {
				x = small()
			}
			a[i*m+j], aT[j*m+i] = x, x
		}
	}
	v, r, vOuter, dst0 := make([]float64, n*m), make([]float64, n*m), make([]float64, n*m), make([]float64, n*m)
	for q := range v {
		nn, j := q/m, q%m
		v[q], r[q], vOuter[q], dst0[q] = small(), small(), small(), small()
		if big(j, 0) != 0 {
			v[q] = 1
		}
		if b := big(nn, j); b != 0 {
			r[q], vOuter[q] = b, 1
		}
	}
	const c = float32(0.75)
	read := func(b gpu.Buffer, k int) []float64 {
		t.Helper()
		out := make([]float64, k)
		if err := d.CopyOut(out, b); err != nil {
			t.Fatal(err)
		}
		return out
	}
	// sum is the plain loop's double sum of x(k)·y(k), k = 0…K−1.
	sum := func(fused bool, K int, x, y func(k int) float64) float64 {
		acc := 0.0
		for k := 0; k < K; k++ {
			if fused {
				acc = math.FMA(x(k), y(k), acc)
			} else {
				acc += x(k) * y(k)
			}
		}
		return acc
	}
	vb := upload(v)
	for _, transpose := range []bool{false, true} {
		ab := upload(a)
		if transpose {
			ab = upload(aT)
		}
		db := upload(dst0)
		if err := d.MatMulAdd(db, ab, vb, s, float64(c), transpose); err != nil {
			t.Fatal(err)
		}
		got := read(db, n*m)
		want := func(fused bool, q int) float64 {
			nn, i := q/m, q%m
			s := sum(fused, m, func(j int) float64 { return a[i*m+j] }, func(j int) float64 { return v[nn*m+j] })
			return float64(float32(dst0[q]) + float32(float64(c)*s))
		}
		if err := sameAsLoop(got, want); err != "" {
			t.Errorf("MatMulAdd (transpose %v): %s", transpose, err)
		}
	}
	ob := upload(make([]float64, m*m))
	if err := d.OuterSum(ob, upload(r), upload(vOuter), s); err != nil {
		t.Fatal(err)
	}
	got := read(ob, m*m)
	want := func(fused bool, q int) float64 {
		i, j := q/m, q%m
		return float64(float32(sum(fused, n, func(k int) float64 { return r[k*m+i] }, func(k int) float64 { return vOuter[k*m+j] })))
	}
	if err := sameAsLoop(got, want); err != "" {
		t.Errorf("OuterSum: %s", err)
	}
}

// sameAsLoop returns "" if got equals want(false, q) at every q or
// want(true, q) at every q, bit for bit; otherwise the first output that
// differs from the unfused loop and how many differ under each.
func sameAsLoop(got []float64, want func(fused bool, q int) float64) string {
	first, bad := -1, [2]int{}
	for q, g := range got {
		for f, fused := range []bool{false, true} {
			if g != want(fused, q) {
				bad[f]++
				if f == 0 && first < 0 {
					first = q
				}
			}
		}
	}
	if bad[0] == 0 || bad[1] == 0 {
		return ""
	}
	return fmt.Sprintf("output %d is %.9g, the loop's %.9g; %d of %d outputs differ from the unfused loop, %d from the fused one",
		first, got[first], want(false, first), bad[0], len(got), bad[1])
}

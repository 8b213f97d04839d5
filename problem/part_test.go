package problem

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestInstantiatePartIsTheBlock: for a plain problem, a family of blurs,
// of noise levels, of weights and of CT scans (padded data), and CT whose
// projector takes images 4 at a time (tomo.Lanes), each block
// [lo, hi) of InstantiatePart holds Instantiate's observations and
// starting points of its functions bit for bit, zeros elsewhere, and the
// blocks together make Instantiate's objective; InstantiateBlock's
// objective holds the block's functions alone, bit for bit Instantiate's.
func TestInstantiatePartIsTheBlock(t *testing.T) {
	const n = 6
	for _, c := range []struct {
		name string
		h    int
		opt  Options
	}{
		{"deblur", 12, Options{}},
		{"deblur", 12, Options{BlurSigmaRange: [2]float64{1, 2}, NoiseRange: [2]float64{0.01, 0.05}, AlphaRange: [2]float64{1e-4, 1e-2}}},
		{"ct-small", 40, Options{Angles: []int{90, 30}}},
		{"ct-small", 40, Options{}},
		{"ct", 128, Options{}}, // the projector's lanes group its sums differently at this size
	} {
		c.opt.H = c.h
		p, err := Lookup(c.name, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		truth := randVec(rand.New(rand.NewPCG(7, 8)), n*c.h*c.h, 1)
		whole, err := p.Instantiate(truth, n, 3)
		if err != nil {
			t.Fatal(err)
		}
		hw, m := whole.ImageLen(), whole.DataLen()
		joined := make([]float64, len(whole.Y))
		for _, blk := range [][2]int{{0, 1}, {1, 3}, {3, 5}, {5, 6}} {
			part, err := p.InstantiatePart(truth, n, blk[0], blk[1], 3)
			if err != nil {
				t.Fatal(err)
			}
			own, err := p.InstantiateBlock(truth, n, blk[0], blk[1], 3)
			if err != nil {
				t.Fatal(err)
			}
			if own.N != blk[1]-blk[0] || !slices.Equal(own.Y, whole.Y[blk[0]*m:blk[1]*m]) || !slices.Equal(own.X0, whole.X0[blk[0]*hw:blk[1]*hw]) || !slices.Equal(own.Truth, truth[blk[0]*hw:blk[1]*hw]) {
				t.Errorf("%s %v: InstantiateBlock %v: %d functions, not Instantiate's block", c.name, c.opt, blk, own.N)
			}
			if part.A.String() != whole.A.String() || part.Reg.String() != whole.Reg.String() || part.L != whole.L {
				t.Errorf("%s %v: block %v: operator %s, regularizer %s, L %g; whole %s, %s, %g", c.name, c.opt, blk, part.A, part.Reg, part.L, whole.A, whole.Reg, whole.L)
			}
			for k := range n {
				in := k >= blk[0] && k < blk[1]
				y, x0 := part.Y[k*m:(k+1)*m], part.X0[k*hw:(k+1)*hw]
				wantY, wantX0 := whole.Y[k*m:(k+1)*m], whole.X0[k*hw:(k+1)*hw]
				if !in {
					wantY, wantX0 = make([]float64, m), make([]float64, hw)
				} else {
					copy(joined[k*m:], y)
				}
				if !slices.Equal(y, wantY) || !slices.Equal(x0, wantX0) {
					t.Errorf("%s %v: block %v: function %d's data differ from Instantiate's (in the block: %v)", c.name, c.opt, blk, k, in)
				}
			}
		}
		if !slices.Equal(joined, whole.Y) {
			t.Errorf("%s %v: the blocks' data do not make Instantiate's", c.name, c.opt)
		}
	}
	p, _ := Lookup("deblur", Options{H: 12})
	if _, err := p.InstantiatePart(make([]float64, 3*144), 3, 2, 2, 0); err == nil {
		t.Error("an empty block was accepted")
	}
}

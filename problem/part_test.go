package problem

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestInstantiateBlockIsTheBlock: for a plain problem, a family of blurs,
// of noise levels, of weights and of CT scans (padded data), and CT whose
// projector takes images 4 at a time (tomo.Lanes), InstantiateBlock given
// only the ground truths of BlockImages holds Instantiate's observations,
// starting points and ground truths of the block's functions bit for bit,
// the blocks together make Instantiate's data, and Family names
// Instantiate's operators and weights.
func TestInstantiateBlockIsTheBlock(t *testing.T) {
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
		fam, err := p.Family(n, 3)
		if err != nil {
			t.Fatal(err)
		}
		if fam.A.String() != whole.A.String() || fam.Reg.String() != whole.Reg.String() || fam.L != whole.L || fam.Y != nil {
			t.Errorf("%s %v: Family: operator %s, regularizer %s, L %g; Instantiate's %s, %s, %g", c.name, c.opt, fam.A, fam.Reg, fam.L, whole.A, whole.Reg, whole.L)
		}
		hw, m := whole.ImageLen(), whole.DataLen()
		var joined []float64
		for _, blk := range [][2]int{{0, 1}, {1, 3}, {3, 5}, {5, 6}} {
			glo, ghi := p.BlockImages(n, blk[0], blk[1])
			if glo > blk[0] || ghi < blk[1] {
				t.Fatalf("%s: BlockImages %v = [%d, %d) does not hold the block", c.name, blk, glo, ghi)
			}
			own, err := p.InstantiateBlock(truth[glo*hw:ghi*hw], n, blk[0], blk[1], 3)
			if err != nil {
				t.Fatal(err)
			}
			want, err := whole.Block(blk[0], blk[1])
			if err != nil {
				t.Fatal(err)
			}
			if own.N != blk[1]-blk[0] || !slices.Equal(own.Y, whole.Y[blk[0]*m:blk[1]*m]) || !slices.Equal(own.X0, whole.X0[blk[0]*hw:blk[1]*hw]) || !slices.Equal(own.Truth, truth[blk[0]*hw:blk[1]*hw]) {
				t.Errorf("%s %v: InstantiateBlock %v: %d functions, not Instantiate's block", c.name, c.opt, blk, own.N)
			}
			if own.A.String() != want.A.String() || own.Reg.String() != want.Reg.String() {
				t.Errorf("%s %v: block %v: operator %s, regularizer %s; Instantiate's block %s, %s", c.name, c.opt, blk, own.A, own.Reg, want.A, want.Reg)
			}
			joined = append(joined, own.Y...)
		}
		if !slices.Equal(joined, whole.Y) {
			t.Errorf("%s %v: the blocks' data do not make Instantiate's", c.name, c.opt)
		}
	}
	p, _ := Lookup("deblur", Options{H: 12})
	if _, err := p.InstantiateBlock(nil, 3, 2, 2, 0); err == nil {
		t.Error("an empty block was accepted")
	}
	if _, err := p.InstantiateBlock(make([]float64, 3*144), 3, 1, 2, 0); err == nil {
		t.Error("every image's ground truth for a block of one was accepted")
	}
}

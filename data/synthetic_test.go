package data

import (
	"math"
	"testing"
)

func meanStd(p []float64) (mean, std float64) {
	for _, v := range p {
		mean += v
	}
	mean /= float64(len(p))
	for _, v := range p {
		std += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(std / float64(len(p)))
}

// edgeFraction is the fraction of pixels whose forward-difference gradient
// magnitude exceeds thresh.
func edgeFraction(im *Image, thresh float64) float64 {
	n := 0
	for r := 0; r < im.H-1; r++ {
		for c := 0; c < im.W-1; c++ {
			dx := im.At(r, c+1) - im.At(r, c)
			dy := im.At(r+1, c) - im.At(r, c)
			if math.Hypot(dx, dy) > thresh {
				n++
			}
		}
	}
	return float64(n) / float64((im.H-1)*(im.W-1))
}

func TestSynthetic(t *testing.T) {
	images := Synthetic(20, 64, 80, 11)
	meanEdges := 0.0
	if len(images) != 20 {
		t.Fatalf("%d images, want 20", len(images))
	}
	for i, im := range images {
		if err := im.Validate(); err != nil {
			t.Fatal(err)
		}
		if im.H != 64 || im.W != 80 {
			t.Fatalf("image %d is %dx%d, want 64x80", i, im.H, im.W)
		}
		for _, v := range im.Pix {
			if v < 0 || v > 1 {
				t.Fatalf("image %d has pixel %v outside [0,1]", i, v)
			}
		}
		if _, std := meanStd(im.Pix); std < 0.05 {
			t.Errorf("image %d: std %.3f < 0.05, too flat", i, std)
		}
		// Sharp shape boundaries: some pixels with a jump > 0.1, but edges
		// are a minority, not noise everywhere.
		f := edgeFraction(im, 0.1)
		if f < 0.002 || f > 0.3 {
			t.Errorf("image %d: %.4f of pixels are edges, want in [0.002, 0.3]", i, f)
		}
		meanEdges += f / float64(len(images))
	}
	if meanEdges < 0.02 {
		t.Errorf("on average %.4f of pixels are edges, want ≥ 0.02", meanEdges)
	}
	again := Synthetic(20, 64, 80, 11)
	if Hash(again) != Hash(images) {
		t.Error("Synthetic is not deterministic in seed")
	}
	if Hash(Synthetic(5, 64, 80, 11)) != Hash(images[:5]) {
		t.Error("the first images depend on n")
	}
	if Hash(Synthetic(1, 64, 80, 12)) == Hash(images[:1]) {
		t.Error("seeds 11 and 12 gave the same image")
	}
	if Hash(images[:1]) == Hash(images[1:2]) {
		t.Error("images 0 and 1 are equal")
	}
	if len(Synthetic(0, 8, 8, 1)) != 0 || len(Synthetic(-3, 8, 8, 1)) != 0 {
		t.Error("n ≤ 0 should give no images")
	}
}

func TestPhantoms(t *testing.T) {
	const size = 64
	images := Phantoms(10, size, 3)
	for i, im := range images {
		if err := im.Validate(); err != nil {
			t.Fatal(err)
		}
		levels := map[float64]bool{}
		zeros := 0
		for _, v := range im.Pix {
			if v < 0 || v > 1 {
				t.Fatalf("phantom %d has pixel %v outside [0,1]", i, v)
			}
			levels[v] = true
			if v == 0 {
				zeros++
			}
		}
		for _, rc := range [][2]int{{0, 0}, {0, size - 1}, {size - 1, 0}, {size - 1, size - 1}} {
			if im.At(rc[0], rc[1]) != 0 {
				t.Errorf("phantom %d: corner %v is %v, want 0 (outside the body)", i, rc, im.At(rc[0], rc[1]))
			}
		}
		// The body ellipse (semi-axes ≥ 0.7 and ≤ 0.95 in [-1,1]²) covers
		// between π·0.7·0.8/4 ≈ 44% and π·0.9·0.95/4 ≈ 67% of the square.
		if frac := float64(zeros) / float64(size*size); frac < 0.3 || frac > 0.6 {
			t.Errorf("phantom %d: %.2f of pixels are zero, want the outside of the body", i, frac)
		}
		if len(levels) < 4 {
			t.Errorf("phantom %d has only %d grey levels", i, len(levels))
		}
		// Piecewise constant: most neighbours are equal.
		if f := edgeFraction(im, 1e-12); f > 0.25 {
			t.Errorf("phantom %d: %.2f of pixels change, want piecewise constant", i, f)
		}
	}
	if Hash(Phantoms(10, size, 3)) != Hash(images) {
		t.Error("Phantoms is not deterministic in seed")
	}
	if Hash(Phantoms(1, size, 4)) == Hash(images[:1]) {
		t.Error("seeds 3 and 4 gave the same phantom")
	}
}

func BenchmarkSynthetic96(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		Synthetic(1, 96, 96, int64(i))
	}
}

func BenchmarkPhantoms256(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		Phantoms(1, 256, int64(i))
	}
}

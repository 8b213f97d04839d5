package data

import (
	"math"
	"testing"
)

func TestResize(t *testing.T) {
	// A constant stays constant, up and down.
	c := NewImage(10, 14)
	for i := range c.Pix {
		c.Pix[i] = 0.37
	}
	for _, sz := range [][2]int{{5, 7}, {23, 31}, {3, 40}} {
		r, err := Resize(c, sz[0], sz[1])
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range r.Pix {
			if math.Abs(v-0.37) > 1e-15 {
				t.Fatalf("constant resized to %v: pixel %d = %v", sz, i, v)
			}
		}
	}
	// Upsampling interpolates a linear ramp exactly between pixel centres:
	// source column j holds j, output column i sits at (i+½)·W/w − ½.
	ramp := NewImage(4, 8)
	for r := 0; r < 4; r++ {
		for j := 0; j < 8; j++ {
			ramp.Set(r, j, float64(j))
		}
	}
	up, err := Resize(ramp, 4, 20)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		u := (float64(i)+0.5)*8/20 - 0.5
		if u < 0 || u > 7 {
			continue // outside the first and last centres the edge pixel repeats
		}
		if got := up.At(2, i); math.Abs(got-u) > 1e-12 {
			t.Errorf("ramp upsampled: column %d = %v, want %v", i, got, u)
		}
	}
	// Halving averages: a 2-periodic checkerboard of 0 and 1 becomes mid-grey
	// away from the border (a point sampler would return 0 or 1).
	cb := NewImage(16, 16)
	for r := 0; r < 16; r++ {
		for j := 0; j < 16; j++ {
			cb.Set(r, j, float64((r+j)%2))
		}
	}
	half, err := Resize(cb, 8, 8)
	if err != nil {
		t.Fatal(err)
	}
	for r := 1; r < 7; r++ {
		for j := 1; j < 7; j++ {
			if v := half.At(r, j); math.Abs(v-0.5) > 1e-12 {
				t.Fatalf("checkerboard halved: (%d,%d) = %v, want 0.5", r, j, v)
			}
		}
	}
	// The same size is a copy.
	same, err := Resize(ramp, 4, 8)
	if err != nil {
		t.Fatal(err)
	}
	same.Pix[0] = 99
	if ramp.Pix[0] == 99 {
		t.Error("Resize to the same size returned the input, not a copy")
	}
	if _, err := Resize(ramp, 0, 3); err == nil {
		t.Error("a zero target size was accepted")
	}
}

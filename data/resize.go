package data

import (
	"fmt"
	"math"
)

// Resize returns im resampled to h×w by a separable triangle (linear)
// filter whose support widens with the reduction factor, as Pillow's
// antialiased bilinear resampling does: upsampling interpolates linearly
// between pixel centres, downsampling averages over the source pixels an
// output pixel covers (so a 256×256 CT slice shrunk to 96×96 does not
// alias). Pixel centres are aligned (output pixel i sits at source
// coordinate (i+½)·H/h − ½), weights are normalised, so a constant image
// stays constant, and an image of the size asked for is returned as a copy.
func Resize(im *Image, h, w int) (*Image, error) {
	if err := im.Validate(); err != nil {
		return nil, fmt.Errorf("resize: %w", err)
	}
	if h < 1 || w < 1 {
		return nil, fmt.Errorf("resize: target size %d×%d must be positive", h, w)
	}
	if h == im.H && w == im.W {
		return im.Clone(), nil
	}
	// Rows first (each source row resampled to w columns), then columns.
	cols := resampleWeights(im.W, w)
	rows := resampleWeights(im.H, h)
	tmp := make([]float64, im.H*w)
	for r := 0; r < im.H; r++ {
		src := im.Pix[r*im.W : (r+1)*im.W]
		for c, tw := range cols {
			var s float64
			for k, wt := range tw.weights {
				s += wt * src[tw.first+k]
			}
			tmp[r*w+c] = s
		}
	}
	out := NewImage(h, w)
	for r, tw := range rows {
		dst := out.Pix[r*w : (r+1)*w]
		for k, wt := range tw.weights {
			src := tmp[(tw.first+k)*w : (tw.first+k+1)*w]
			for c := range dst {
				dst[c] += wt * src[c]
			}
		}
	}
	return out, nil
}

// taps are the source indices first, first+1, … and their weights for one
// output index.
type taps struct {
	first   int
	weights []float64
}

func resampleWeights(in, out int) []taps {
	scale := float64(in) / float64(out)
	support := math.Max(1, scale)
	ts := make([]taps, out)
	for i := range ts {
		u := (float64(i)+0.5)*scale - 0.5
		lo := max(int(math.Ceil(u-support)), 0)
		hi := min(int(math.Floor(u+support)), in-1)
		var ws []float64
		var sum float64
		first := -1
		for j := lo; j <= hi; j++ {
			wt := 1 - math.Abs(float64(j)-u)/support
			if wt <= 0 {
				if first < 0 {
					continue
				}
				wt = 0
			}
			if first < 0 {
				first = j
			}
			ws = append(ws, wt)
			sum += wt
		}
		if first < 0 { // u beyond the last centre by a full support: nearest pixel
			first, ws, sum = min(max(int(math.Round(u)), 0), in-1), []float64{1}, 1
		}
		for k := range ws {
			ws[k] /= sum
		}
		ts[i] = taps{first: first, weights: ws}
	}
	return ts
}

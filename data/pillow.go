package data

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math"
)

// PillowGrey decodes an 8-bit PNG and converts it to grey bytes exactly as
// Pillow 9.4's Image.convert("L") does: for colour pixels the ITU-R 601-2
// luma in integers, L = (19595 R + 38470 G + 7471 B + 0x8000) >> 16, with
// alpha ignored (an RGBA pixel's stored, un-premultiplied colour is used);
// grey pixels are kept. It returns the h×w pixels, row-major, top row first.
func PillowGrey(pngBytes []byte) (pix []uint8, h, w int, err error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(pngBytes))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("png: %w", err)
	}
	if cfg.Width*cfg.Height > maxPNGPixels {
		return nil, 0, 0, fmt.Errorf("png: %d×%d image is larger than %d pixels", cfg.Width, cfg.Height, maxPNGPixels)
	}
	img, err := png.Decode(bytes.NewReader(pngBytes))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("png: %w", err)
	}
	b := img.Bounds()
	h, w = b.Dy(), b.Dx()
	pix = make([]uint8, h*w)
	luma := func(r, g, bl uint8) uint8 {
		return uint8((19595*uint32(r) + 38470*uint32(g) + 7471*uint32(bl) + 0x8000) >> 16)
	}
	switch m := img.(type) {
	case *image.Gray:
		for y := range h {
			copy(pix[y*w:(y+1)*w], m.Pix[y*m.Stride:y*m.Stride+w])
		}
	case *image.RGBA: // opaque truecolour
		for y := range h {
			row := m.Pix[y*m.Stride:]
			for x := range w {
				pix[y*w+x] = luma(row[4*x], row[4*x+1], row[4*x+2])
			}
		}
	case *image.NRGBA: // truecolour with alpha
		for y := range h {
			row := m.Pix[y*m.Stride:]
			for x := range w {
				pix[y*w+x] = luma(row[4*x], row[4*x+1], row[4*x+2])
			}
		}
	default:
		return nil, 0, 0, fmt.Errorf("png: %T pixels (16-bit or paletted) are not supported; want 8-bit grey, RGB or RGBA", img)
	}
	return pix, h, w, nil
}

// pillowPrecisionBits is libImaging's PRECISION_BITS for 8-bit images.
const pillowPrecisionBits = 32 - 8 - 2

// PillowResizeBicubic resamples an 8-bit h×w grey image to oh×ow exactly as
// Pillow 9.4's Image.resize((ow, oh), Image.BICUBIC) does for mode "L"
// (libImaging/Resample.c): the Keys cubic (a = −0.5) widened by the
// reduction factor, coefficients normalised in float64 and rounded to
// 22-bit fixed point, a horizontal pass over the rows the vertical pass
// needs, then a vertical pass, each rounding and clipping to 0..255.
func PillowResizeBicubic(pix []uint8, h, w, oh, ow int) ([]uint8, error) {
	if h < 1 || w < 1 || oh < 1 || ow < 1 || len(pix) != h*w {
		return nil, fmt.Errorf("resize: %d pixels for %d×%d → %d×%d", len(pix), h, w, oh, ow)
	}
	kx, bx := pillowCoeffs(w, ow)
	ky, by := pillowCoeffs(h, oh)
	first := by[0][0]
	last := by[oh-1][0] + by[oh-1][1]
	src, sw := pix, w
	if ow != w { // Pillow's need_horizontal with the default box
		tmp := make([]uint8, (last-first)*ow)
		for y := range last - first {
			row := pix[(y+first)*w:]
			for x := range ow {
				tmp[y*ow+x] = pillowSum(kx[x], func(i int) uint8 { return row[bx[x][0]+i] })
			}
		}
		src, sw = tmp, ow
		for i := range by {
			by[i][0] -= first
		}
	} else {
		first = 0
	}
	if oh == h {
		if ow == w {
			return append([]uint8(nil), pix...), nil
		}
		return src, nil
	}
	out := make([]uint8, oh*sw)
	for y := range oh {
		for x := range sw {
			out[y*sw+x] = pillowSum(ky[y], func(i int) uint8 { return src[(by[y][0]+i)*sw+x] })
		}
	}
	return out, nil
}

// pillowSum is one output pixel: the fixed-point sum with Pillow's rounding
// offset, shifted back and clipped to 0..255.
func pillowSum(k []int32, at func(int) uint8) uint8 {
	ss := int32(1) << (pillowPrecisionBits - 1)
	for i, c := range k {
		ss += int32(at(i)) * c
	}
	return uint8(max(0, min(255, ss>>pillowPrecisionBits)))
}

// pillowCoeffs is libImaging's precompute_coeffs followed by
// normalize_coeffs_8bpc for the bicubic filter and the box (0, in): for each
// output index, the fixed-point weights and [first source index, count].
func pillowCoeffs(in, out int) ([][]int32, [][2]int) {
	scale := float64(in) / float64(out)
	filterscale := max(scale, 1)
	support := 2 * filterscale
	kk := make([][]int32, out)
	bounds := make([][2]int, out)
	for xx := range out {
		center := (float64(xx) + 0.5) * scale
		ss := 1 / filterscale
		xmin := max(int(center-support+0.5), 0)
		xmax := min(int(center+support+0.5), in) - xmin
		w := make([]float64, xmax)
		var ww float64
		for x := range w {
			w[x] = pillowBicubic(float64(float64(x+xmin)-center+0.5) * ss)
			ww += w[x]
		}
		k := make([]int32, xmax)
		for x := range w {
			if ww != 0 {
				w[x] /= ww
			}
			if w[x] < 0 {
				k[x] = int32(-0.5 + float64(w[x]*(1<<pillowPrecisionBits)))
			} else {
				k[x] = int32(0.5 + float64(w[x]*(1<<pillowPrecisionBits)))
			}
		}
		kk[xx], bounds[xx] = k, [2]int{xmin, xmax}
	}
	return kk, bounds
}

// pillowBicubic is libImaging's bicubic_filter, the Keys cubic with a = −0.5
// (the conversions keep each product rounded, as C evaluates it).
func pillowBicubic(x float64) float64 {
	const a = -0.5
	x = math.Abs(x)
	switch {
	case x < 1:
		return float64(float64(float64(float64((a+2)*x)-(a+3))*x)*x) + 1
	case x < 2:
		return float64(float64(float64(float64(x-5)*x)+8)*x-4) * a
	}
	return 0
}

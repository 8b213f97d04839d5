package data

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
)

// Luma weights of ITU-R 601-2, used to convert colour to grey:
// L = 0.299 R + 0.587 G + 0.114 B.
const (
	LumaR = 0.299
	LumaG = 0.587
	LumaB = 0.114
)

// maxPNGPixels bounds the size of a PNG image (4096×4096), checked from its
// header before the decoder allocates the image.
const maxPNGPixels = 1 << 24

// ReadPNG decodes a PNG image. Grey images (8 or 16 bit) are scaled to
// [0, 1] by their maximum level; colour images are converted with ITU-R
// 601-2 luma, L = 0.299R + 0.587G + 0.114B. Alpha is ignored (colours are
// taken un-premultiplied).
func ReadPNG(r io.Reader) (*Image, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("png: %w", err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("png: %w", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > maxPNGPixels/cfg.Height {
		return nil, fmt.Errorf("png: size %dx%d is outside what this reader accepts (at most %d pixels)", cfg.Width, cfg.Height, maxPNGPixels)
	}
	src, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("png: %w", err)
	}
	b := src.Bounds()
	h, w := b.Dy(), b.Dx()
	if h <= 0 || w <= 0 {
		return nil, fmt.Errorf("png: empty image %dx%d", w, h)
	}
	im := NewImage(h, w)
	switch s := src.(type) {
	case *image.Gray:
		for y := range h {
			row := s.Pix[y*s.Stride : y*s.Stride+w]
			for x, p := range row {
				im.Pix[y*w+x] = float64(p) / 255
			}
		}
	case *image.Gray16:
		for y := range h {
			row := s.Pix[y*s.Stride : y*s.Stride+2*w]
			for x := range w {
				im.Pix[y*w+x] = float64(uint16(row[2*x])<<8|uint16(row[2*x+1])) / 65535
			}
		}
	default:
		for y := range h {
			for x := range w {
				c := color.NRGBA64Model.Convert(src.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA64)
				im.Pix[y*w+x] = min((LumaR*float64(c.R)+LumaG*float64(c.G)+LumaB*float64(c.B))/65535, 1)
			}
		}
	}
	return im, nil
}

// WritePNG encodes im as an 8-bit grey PNG. Values are clamped to [0, 1]
// and rounded to the nearest of 256 levels.
func WritePNG(w io.Writer, im *Image) error {
	return writePNG(w, im, 8)
}

// WritePNG16 encodes im as a 16-bit grey PNG. Values are clamped to [0, 1]
// and rounded to the nearest of 65536 levels.
func WritePNG16(w io.Writer, im *Image) error {
	return writePNG(w, im, 16)
}

func writePNG(w io.Writer, im *Image, bits int) error {
	if err := im.Validate(); err != nil {
		return fmt.Errorf("png: %w", err)
	}
	var dst image.Image
	if bits == 8 {
		g := image.NewGray(image.Rect(0, 0, im.W, im.H))
		for i, v := range im.Pix {
			g.Pix[i] = uint8(quantize(v, 255))
		}
		dst = g
	} else {
		g := image.NewGray16(image.Rect(0, 0, im.W, im.H))
		for i, v := range im.Pix {
			s := quantize(v, 65535)
			g.Pix[2*i], g.Pix[2*i+1] = uint8(s>>8), uint8(s)
		}
		dst = g
	}
	if err := png.Encode(w, dst); err != nil {
		return fmt.Errorf("png: %w", err)
	}
	return nil
}

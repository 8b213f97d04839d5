package data

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"testing"
)

// FuzzReadPNG checks that ReadPNG never panics (nor allocates for a size
// its header merely claims) and that whatever it decodes is valid and
// survives a 16-bit re-encoding within quantisation. Seeds: grey 8 and 16
// bit, RGB, paletted and a header announcing a huge image (testdata/fuzz).
func FuzzReadPNG(f *testing.F) {
	for _, im := range []image.Image{
		image.NewGray(image.Rect(0, 0, 3, 2)),
		image.NewGray16(image.Rect(0, 0, 1, 4)),
		image.NewNRGBA(image.Rect(0, 0, 2, 2)),
		image.NewPaletted(image.Rect(0, 0, 2, 3), color.Palette{color.Black, color.White}),
	} {
		var buf bytes.Buffer
		if err := png.Encode(&buf, im); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		im, err := ReadPNG(bytes.NewReader(src))
		if err != nil {
			return
		}
		if err := im.Validate(); err != nil {
			t.Fatalf("decoded image is invalid: %v", err)
		}
		var buf bytes.Buffer
		if err := WritePNG16(&buf, im); err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
		back, err := ReadPNG(&buf)
		if err != nil {
			t.Fatalf("decoding the re-encoded image: %v", err)
		}
		if back.H != im.H || back.W != im.W {
			t.Fatalf("size changed from %dx%d to %dx%d", im.H, im.W, back.H, back.W)
		}
		for i, v := range im.Pix {
			if v < 0 || v > 1 {
				t.Fatalf("pixel %d = %v outside [0,1]", i, v)
			}
			if d := math.Abs(back.Pix[i] - v); d > 0.5/65535+1e-12 {
				t.Fatalf("pixel %d changed by %v", i, d)
			}
		}
	})
}

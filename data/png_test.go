package data

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"testing"
)

func TestPNGRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	im := randomImage(rng, 9, 5)
	for _, c := range []struct {
		name   string
		write  func(*bytes.Buffer, *Image) error
		maxval float64
	}{
		{"8-bit", func(b *bytes.Buffer, im *Image) error { return WritePNG(b, im) }, 255},
		{"16-bit", func(b *bytes.Buffer, im *Image) error { return WritePNG16(b, im) }, 65535},
	} {
		var buf bytes.Buffer
		if err := c.write(&buf, im); err != nil {
			t.Fatal(err)
		}
		got, err := ReadPNG(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if got.H != 9 || got.W != 5 {
			t.Fatalf("%s: size %dx%d, want 9x5", c.name, got.H, got.W)
		}
		for i := range im.Pix {
			q := math.Round(im.Pix[i]*c.maxval) / c.maxval
			if math.Abs(got.Pix[i]-q) > 1e-15 {
				t.Errorf("%s: pixel %d = %v, want %v", c.name, i, got.Pix[i], q)
			}
		}
	}
}

// TestReadPNGColourLuma encodes a colour PNG with the standard library and
// checks each grey pixel against the 601-2 formula written out by hand.
func TestReadPNGColourLuma(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	colours := []color.NRGBA{
		{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255},
		{10, 200, 30, 255}, {255, 255, 255, 255}, {40, 80, 120, 255},
	}
	for i, c := range colours {
		src.SetNRGBA(i%3, i/3, c)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, src); err != nil {
		t.Fatal(err)
	}
	im, err := ReadPNG(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if im.H != 2 || im.W != 3 {
		t.Fatalf("size %dx%d, want 2x3", im.H, im.W)
	}
	for i, c := range colours {
		want := (0.299*float64(c.R) + 0.587*float64(c.G) + 0.114*float64(c.B)) / 255
		if math.Abs(im.Pix[i]-want) > 1e-12 {
			t.Errorf("pixel %d (%v): grey %v, want %v", i, c, im.Pix[i], want)
		}
	}
}

func TestReadPNGErrors(t *testing.T) {
	if _, err := ReadPNG(bytes.NewReader([]byte("P5\n1 1\n255\n\x00"))); err == nil {
		t.Error("PGM bytes decoded as PNG without error")
	}
	var buf bytes.Buffer
	if err := WritePNG(&buf, NewImage(4, 4)); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPNG(bytes.NewReader(buf.Bytes()[:buf.Len()/2])); err == nil {
		t.Error("truncated PNG decoded without error")
	}
	bad := NewImage(1, 1)
	bad.Pix[0] = math.Inf(1)
	if err := WritePNG(&buf, bad); err == nil {
		t.Error("WritePNG accepted an Inf pixel")
	}
}

package data

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stlByte is the test pattern for channel ch at (row, col) of image k; it is
// not symmetric in row and col, so a transposed read would be caught.
func stlByte(k, ch, row, col int) byte {
	return byte((k*31 + ch*50 + row*3 + col*7) % 256)
}

// tinySTL10 writes n images in the STL-10 layout by hand: for each image,
// channel planes R, G, B, each stored column by column.
func tinySTL10(n int) []byte {
	var b []byte
	for k := range n {
		for ch := range 3 {
			for col := range 96 {
				for row := range 96 {
					b = append(b, stlByte(k, ch, row, col))
				}
			}
		}
	}
	return b
}

func TestReadSTL10Layout(t *testing.T) {
	images, err := ReadSTL10(bytes.NewReader(tinySTL10(2)), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(images) != 2 {
		t.Fatalf("got %d images, want 2", len(images))
	}
	for k, im := range images {
		if im.H != 96 || im.W != 96 {
			t.Fatalf("image %d is %dx%d, want 96x96", k, im.H, im.W)
		}
		for row := range 96 {
			for col := range 96 {
				r, g, b := float64(stlByte(k, 0, row, col)), float64(stlByte(k, 1, row, col)), float64(stlByte(k, 2, row, col))
				want := (0.299*r + 0.587*g + 0.114*b) / 255
				if got := im.At(row, col); math.Abs(got-want) > 1e-12 {
					t.Fatalf("image %d (row %d, col %d) = %v, want %v", k, row, col, got, want)
				}
			}
		}
	}
	// The first byte of the file is the top-left red sample, the second
	// byte is the red sample one row down (column-major).
	raw := tinySTL10(1)
	raw[0], raw[1] = 255, 0
	raw[96*96], raw[96*96+1] = 0, 0
	raw[2*96*96], raw[2*96*96+1] = 0, 0
	one, err := ReadSTL10(bytes.NewReader(raw), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := one[0].At(0, 0); math.Abs(got-0.299) > 1e-12 {
		t.Errorf("pure red top-left pixel: grey %v, want 0.299", got)
	}
	if got := one[0].At(1, 0); got != 0 {
		t.Errorf("black pixel at (row 1, col 0): grey %v, want 0", got)
	}
}

func TestReadSTL10Max(t *testing.T) {
	src := tinySTL10(3)
	for _, c := range []struct{ max, want int }{{0, 3}, {-1, 3}, {1, 1}, {2, 2}, {10, 3}} {
		images, err := ReadSTL10(bytes.NewReader(src), c.max)
		if err != nil {
			t.Fatal(err)
		}
		if len(images) != c.want {
			t.Errorf("max %d: %d images, want %d", c.max, len(images), c.want)
		}
	}
}

func TestReadSTL10Errors(t *testing.T) {
	src := tinySTL10(2)
	_, err := ReadSTL10(bytes.NewReader(src[:len(src)-10]), 0)
	if err == nil || !strings.Contains(err.Error(), "expected 27648") {
		t.Errorf("truncated file: error %v, want one saying 27648 bytes were expected", err)
	}
	if _, err := ReadSTL10(bytes.NewReader(nil), 0); err == nil {
		t.Error("empty file: no error")
	}
	// Stopping before the damaged image is fine.
	if images, err := ReadSTL10(bytes.NewReader(src[:len(src)-10]), 1); err != nil || len(images) != 1 {
		t.Errorf("max 1 on a file damaged in image 1: %d images, error %v", len(images), err)
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "train_X.bin")
	if err := os.WriteFile(path, src[:100], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSTL10(path, 0); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("LoadSTL10 on a truncated file: error %v does not name the file", err)
	}
}

func TestWriteSTL10RoundTrip(t *testing.T) {
	images := Synthetic(2, 96, 96, 5)
	var buf bytes.Buffer
	if err := WriteSTL10(&buf, images); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 2*27648 {
		t.Fatalf("wrote %d bytes, want %d", buf.Len(), 2*27648)
	}
	back, err := ReadSTL10(&buf, 0)
	if err != nil {
		t.Fatal(err)
	}
	for k := range images {
		for i, v := range images[k].Pix {
			if d := math.Abs(back[k].Pix[i] - v); d > 0.5/255+1e-12 {
				t.Fatalf("image %d pixel %d changed by %v", k, i, d)
			}
		}
	}
	if err := WriteSTL10(&buf, []*Image{NewImage(4, 4)}); err == nil {
		t.Error("WriteSTL10 accepted a 4x4 image")
	}
}

// FuzzReadSTL10 checks that ReadSTL10 never panics, and that what it
// decodes is valid and survives WriteSTL10 within 8-bit quantisation.
// Inputs are large (27648 bytes per image), so run it with
// -fuzzminimizetime 0 or the engine spends most of its time minimising.
func FuzzReadSTL10(f *testing.F) {
	f.Add(tinySTL10(1), 0)
	f.Add(tinySTL10(2)[:40000], 2)
	f.Add([]byte{1, 2, 3}, 1)
	f.Fuzz(func(t *testing.T, src []byte, max int) {
		images, err := ReadSTL10(bytes.NewReader(src), max)
		if err != nil {
			return
		}
		if max > 0 && len(images) > max {
			t.Fatalf("%d images, more than max %d", len(images), max)
		}
		var buf bytes.Buffer
		if err := WriteSTL10(&buf, images); err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
		back, err := ReadSTL10(&buf, 0)
		if err != nil {
			t.Fatalf("decoding re-encoded images: %v", err)
		}
		if len(back) != len(images) {
			t.Fatalf("%d images after round trip, want %d", len(back), len(images))
		}
		for k, im := range images {
			if err := im.Validate(); err != nil {
				t.Fatalf("image %d invalid: %v", k, err)
			}
			for i, v := range im.Pix {
				if v < 0 || v > 1 {
					t.Fatalf("image %d pixel %d = %v outside [0,1]", k, i, v)
				}
				if d := math.Abs(back[k].Pix[i] - v); d > 0.5/255+1e-12 {
					t.Fatalf("image %d pixel %d changed by %v", k, i, d)
				}
			}
		}
	})
}

func BenchmarkReadSTL10(b *testing.B) {
	src := tinySTL10(16)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := ReadSTL10(bytes.NewReader(src), 0); err != nil {
			b.Fatal(err)
		}
	}
}

package data

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadPGMHandWritten8(t *testing.T) {
	// 3 wide, 2 high, with comments in the header.
	src := "P5\n# a comment\n3 # width\n2\n# maxval next\n200\n" + string([]byte{0, 50, 100, 150, 200, 7})
	im, err := ReadPGM(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if im.H != 2 || im.W != 3 {
		t.Fatalf("size %dx%d, want 2x3", im.H, im.W)
	}
	want := []float64{0, 0.25, 0.5, 0.75, 1, 7.0 / 200}
	for i, v := range want {
		if math.Abs(im.Pix[i]-v) > 1e-15 {
			t.Errorf("Pix[%d] = %v, want %v", i, im.Pix[i], v)
		}
	}
	if got := im.At(1, 0); got != im.Pix[3] {
		t.Errorf("At(1,0) = %v, want row-major Pix[3] = %v", got, im.Pix[3])
	}
}

func TestReadPGMHandWritten16(t *testing.T) {
	// maxval 1000 > 255: samples are 16-bit big-endian.
	src := "P5 2 1 1000\n" + string([]byte{0x01, 0xF4, 0x03, 0xE8}) // 500, 1000
	im, err := ReadPGM(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if im.Pix[0] != 0.5 || im.Pix[1] != 1 {
		t.Errorf("pixels %v, want [0.5 1]", im.Pix)
	}
}

func randomImage(rng *rand.Rand, h, w int) *Image {
	im := NewImage(h, w)
	for i := range im.Pix {
		im.Pix[i] = rng.Float64()
	}
	return im
}

func TestPGMRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, bits := range []int{8, 16} {
		maxval := float64(int(1)<<bits - 1)
		im := randomImage(rng, 7, 11)
		var buf bytes.Buffer
		if err := WritePGM(&buf, im, bits); err != nil {
			t.Fatal(err)
		}
		wantLen := len(fmt.Sprintf("P5\n11 7\n%d\n", int(maxval))) + 77*bits/8
		if buf.Len() != wantLen {
			t.Errorf("bits %d: file is %d bytes, want %d", bits, buf.Len(), wantLen)
		}
		got, err := ReadPGM(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if got.H != 7 || got.W != 11 {
			t.Fatalf("bits %d: size %dx%d, want 7x11", bits, got.H, got.W)
		}
		for i := range im.Pix {
			if d := math.Abs(got.Pix[i] - im.Pix[i]); d > 0.5/maxval+1e-12 {
				t.Errorf("bits %d: pixel %d off by %v > half a level", bits, i, d)
			}
			// Exactly representable levels survive exactly.
			if q := math.Round(im.Pix[i]*maxval) / maxval; math.Abs(got.Pix[i]-q) > 1e-15 {
				t.Errorf("bits %d: pixel %d = %v, want level %v", bits, i, got.Pix[i], q)
			}
		}
	}
}

func TestWritePGMClampsAndRounds(t *testing.T) {
	im := &Image{H: 1, W: 5, Pix: []float64{-0.5, 1.5, 0.5, 1.0 / 255 * 0.49, 1.0 / 255 * 0.51}}
	var buf bytes.Buffer
	if err := WritePGM(&buf, im, 8); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()[len("P5\n5 1\n255\n"):]
	want := []byte{0, 255, 128, 0, 1}
	if !bytes.Equal(data, want) {
		t.Errorf("samples %v, want %v", data, want)
	}
}

func TestWritePGMErrors(t *testing.T) {
	good := NewImage(2, 2)
	if err := WritePGM(&bytes.Buffer{}, good, 12); err == nil || !strings.Contains(err.Error(), "12") {
		t.Errorf("bits 12: error %v, want one naming 12", err)
	}
	bad := NewImage(2, 2)
	bad.Pix[3] = math.NaN()
	if err := WritePGM(&bytes.Buffer{}, bad, 8); err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("NaN pixel: error %v, want one naming NaN", err)
	}
}

func TestReadPGMErrors(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"wrong magic", "P2\n2 2\n255\n0 0 0 0\n", "P5"},
		{"png magic", "\x89PNG\r\n", "P5"},
		{"empty", "", "header"},
		{"header cut", "P5\n2 2\n", "header"},
		{"truncated 8-bit", "P5\n2 3\n255\n" + "abcd", "expected 6 bytes"},
		{"truncated 16-bit", "P5\n2 2\n65535\n" + "abcde", "expected 8 bytes"},
		{"maxval 0", "P5\n1 1\n0\n\x00", "maxval 0"},
		{"maxval too big", "P5\n1 1\n65536\n\x00\x00", "maxval 65536"},
		{"zero width", "P5\n0 1\n255\n", "positive"},
		{"sample over maxval", "P5\n2 1\n100\n\x05\x65", "exceeds maxval 100"},
		{"garbage width", "P5\nx 1\n255\n\x00", "decimal"},
		{"huge", "P5\n100000 100000\n255\n", "larger"},
	}
	for _, c := range cases {
		_, err := ReadPGM(strings.NewReader(c.src))
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not mention %q", c.name, err, c.want)
		}
	}
}

func TestLoadImageErrorsNameFile(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"truncated.pgm": "P5\n4 4\n255\nabc",
		"magic.pgm":     "P6\n1 1\n255\nabc",
		"maxval.pgm":    "P5\n1 1\n0\na",
		"broken.png":    "not a png",
		"image.jpg":     "whatever",
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadImage(path)
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %q does not name the file", name, err)
		}
	}
	if _, err := LoadImage(filepath.Join(dir, "missing.pgm")); err == nil || !strings.Contains(err.Error(), "missing.pgm") {
		t.Errorf("missing file: error %v does not name the file", err)
	}
}

// FuzzReadPGM checks that ReadPGM never panics and that whatever it decodes
// is valid and survives a 16-bit re-encoding within quantisation.
func FuzzReadPGM(f *testing.F) {
	f.Add([]byte("P5\n2 2\n255\n\x00\x01\x02\x03"))
	f.Add([]byte("P5 # c\n1 2\n1000\n\x03\xe8\x00\x01"))
	f.Add([]byte("P5\n3 1\n1\n\x00\x01\x00"))
	f.Add([]byte("P5\n1 1\n65535\n\xff"))
	f.Fuzz(func(t *testing.T, src []byte) {
		im, err := ReadPGM(bytes.NewReader(src))
		if err != nil {
			return
		}
		if err := im.Validate(); err != nil {
			t.Fatalf("decoded image is invalid: %v", err)
		}
		var buf bytes.Buffer
		if err := WritePGM(&buf, im, 16); err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
		back, err := ReadPGM(&buf)
		if err != nil {
			t.Fatalf("decoding re-encoded image: %v", err)
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

func BenchmarkReadPGM96(b *testing.B) {
	var buf bytes.Buffer
	WritePGM(&buf, Synthetic(1, 96, 96, 1)[0], 8)
	src := buf.Bytes()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := ReadPGM(bytes.NewReader(src)); err != nil {
			b.Fatal(err)
		}
	}
}

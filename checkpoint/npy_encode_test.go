package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/sbinet/npyio"
	"gonum.org/v1/gonum/mat"
)

// TestEncodeNPYMatchesNpyio: EncodeNPY writes the bytes of the library it
// replaces for the shapes that library writes (one dimension, and two
// through a gonum matrix), so checkpoints keep their checksums; a three-
// dimensional array decodes back to its values.
func TestEncodeNPYMatchesNpyio(t *testing.T) {
	for _, n := range []int{1, 3, 7, 100, 10567} {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(i)*0.37 - 1
		}
		var want bytes.Buffer
		if err := npyio.Write(&want, v); err != nil {
			t.Fatal(err)
		}
		got, err := EncodeNPY(v)
		if err != nil || !bytes.Equal(got, want.Bytes()) {
			t.Errorf("n = %d: EncodeNPY differs from npyio (%v)", n, err)
		}
		if n%7 == 0 {
			want.Reset()
			if err := npyio.Write(&want, mat.NewDense(7, n/7, v)); err != nil {
				t.Fatal(err)
			}
			if got, _ := EncodeNPY(v, 7, n/7); !bytes.Equal(got, want.Bytes()) {
				t.Errorf("%d×%d: EncodeNPY differs from npyio's matrix encoding", 7, n/7)
			}
		}
	}
	v := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	b, err := EncodeNPY(v, 2, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeNPY(b, "3d.npy", 12)
	if err != nil || !bytes.Contains(b[:80], []byte("'shape': (2, 3, 2)")) {
		t.Fatalf("3-D array: %v, header %q", err, b[:80])
	}
	for i := range v {
		if back[i] != v[i] {
			t.Fatalf("3-D array: value %d is %g, want %g", i, back[i], v[i])
		}
	}
	if _, err := EncodeNPY(v, 5, 2); err == nil {
		t.Error("12 values accepted as shape (5, 2)")
	}
}

// TestWriteNPYSumStreamsEncodeNPY: the file WriteNPYSum streams holds
// EncodeNPY's bytes (npyio's) and its sum is theirs, on this machine's byte
// order and through the block-by-block conversion of other machines, for
// lengths on both sides of a block and a bufio buffer.
func TestWriteNPYSumStreamsEncodeNPY(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 1023, 1024, 1025, 9216, 25 * 9216} {
		v := make([]float64, n)
		for i := range v {
			v[i] = math.Ldexp(float64(i%97)-48.5, i%41-20)
		}
		want, err := EncodeNPY(v)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("v%d.npy", n))
		sum, err := WriteNPYSum(path, v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) || sum != Sum(want) {
			t.Errorf("n = %d: the file or its sum differs from EncodeNPY's bytes", n)
		}
		var conv bytes.Buffer
		if err := writeConverted(&conv, v); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(conv.Bytes(), want[len(want)-8*n:]) {
			t.Errorf("n = %d: the block-by-block conversion differs from EncodeNPY's values", n)
		}
	}
}

// TestWriteNPYSumCompact: float32 numbers are written as a '<f4' file that
// npyio reads back as the same float32s and DecodeNPY as the same float64s,
// bit for bit (-0 too), with the SHA-256 of the file's bytes; one value
// that is not a float32 number (0.1) makes the file WriteNPYSum's '<f8'.
func TestWriteNPYSumCompact(t *testing.T) {
	dir := t.TempDir()
	v := make([]float64, 3*float32Block+5) // several blocks and a remainder
	for i := range v {
		v[i] = float64(float32(math.Sin(float64(i)) * 1e3))
	}
	v[7] = math.Copysign(0, -1)
	path := filepath.Join(dir, "x.npy")
	sum, err := WriteNPYSumCompact(path, v)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%x", sha256.Sum256(b)); got != sum {
		t.Errorf("sum %s, the file's SHA-256 is %s", sum, got)
	}
	var v32 []float32
	if err := npyio.Read(bytes.NewReader(b), &v32); err != nil {
		t.Fatalf("npyio cannot read the float32 file: %v", err)
	}
	if len(b) > 4*len(v)+128 || len(v32) != len(v) {
		t.Fatalf("%d bytes holding %d values for %d float32s", len(b), len(v32), len(v))
	}
	back, err := DecodeNPY(b, path, len(v))
	if err != nil {
		t.Fatal(err)
	}
	for i := range v {
		if math.Float64bits(back[i]) != math.Float64bits(v[i]) || float64(v32[i]) != v[i] {
			t.Fatalf("value %d: wrote %v, read %v (npyio %v)", i, v[i], back[i], v32[i])
		}
	}
	v[len(v)-1] = 0.1
	if _, err := WriteNPYSumCompact(path, v); err != nil {
		t.Fatal(err)
	}
	want, _ := EncodeNPY(v)
	if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
		t.Errorf("values with one that is not a float32 were not written as float64s")
	}
}

package checkpoint

import (
	"bytes"
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

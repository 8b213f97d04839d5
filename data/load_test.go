package data

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/refdata"
)

// writeImage writes im to path as PGM or PNG according to its extension.
func writeImage(t *testing.T, path string, im *Image) {
	t.Helper()
	var buf bytes.Buffer
	var err error
	if strings.EqualFold(filepath.Ext(path), ".png") {
		err = WritePNG(&buf, im)
	} else {
		err = WritePGM(&buf, im, 8)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// constImage returns an h×w image whose pixels are all v/255.
func constImage(h, w int, v int) *Image {
	im := NewImage(h, w)
	for i := range im.Pix {
		im.Pix[i] = float64(v) / 255
	}
	return im
}

func TestLoadDirOrderAndFilter(t *testing.T) {
	dir := t.TempDir()
	// Values encode the expected position in name order.
	writeImage(t, filepath.Join(dir, "c.PNG"), constImage(4, 6, 30))
	writeImage(t, filepath.Join(dir, "a.pgm"), constImage(4, 6, 10))
	writeImage(t, filepath.Join(dir, "b.png"), constImage(4, 6, 20))
	writeImage(t, filepath.Join(dir, "d.Pgm"), constImage(4, 6, 40))
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not an image"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub.png"), 0o755)

	images, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(images) != 4 {
		t.Fatalf("%d images, want 4", len(images))
	}
	for i, im := range images {
		want := float64(10*(i+1)) / 255
		if im.H != 4 || im.W != 6 || im.Pix[0] != want {
			t.Errorf("image %d: %dx%d, value %v, want 4x6 value %v", i, im.H, im.W, im.Pix[0], want)
		}
	}
}

func TestLoadDirErrors(t *testing.T) {
	empty := t.TempDir()
	os.WriteFile(filepath.Join(empty, "readme.md"), []byte("x"), 0o644)
	if _, err := LoadDir(empty); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("folder without images: error %v does not name the folder", err)
	}

	mixed := t.TempDir()
	writeImage(t, filepath.Join(mixed, "a.pgm"), constImage(4, 6, 1))
	writeImage(t, filepath.Join(mixed, "b.pgm"), constImage(4, 6, 1))
	odd := filepath.Join(mixed, "c.png")
	writeImage(t, odd, constImage(6, 4, 1))
	_, err := LoadDir(mixed)
	if err == nil || !strings.Contains(err.Error(), odd) || !strings.Contains(err.Error(), "6x4") {
		t.Errorf("mismatched sizes: error %v does not name %s and its size 6x4", err, odd)
	}

	broken := t.TempDir()
	writeImage(t, filepath.Join(broken, "a.pgm"), constImage(2, 2, 1))
	bad := filepath.Join(broken, "b.pgm")
	os.WriteFile(bad, []byte("P5\n2 2\n255\n\x00"), 0o644)
	if _, err := LoadDir(broken); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("truncated file in folder: error %v does not name %s", err, bad)
	}

	if _, err := LoadDir(filepath.Join(empty, "nope")); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("missing folder: error %v does not name it", err)
	}
}

func TestSplit(t *testing.T) {
	images := make([]*Image, 10)
	for i := range images {
		images[i] = constImage(1, 1, i)
	}
	orig := slices.Clone(images)
	train, test, err := Split(images, 7, 42)
	if err != nil {
		t.Fatal(err)
	}
	if len(train) != 7 || len(test) != 3 {
		t.Fatalf("sizes %d/%d, want 7/3", len(train), len(test))
	}
	if !slices.Equal(images, orig) {
		t.Error("Split modified its input")
	}
	// A partition: every image exactly once.
	seen := map[*Image]int{}
	for _, im := range append(slices.Clone(train), test...) {
		seen[im]++
	}
	for i, im := range images {
		if seen[im] != 1 {
			t.Errorf("image %d appears %d times", i, seen[im])
		}
	}
	train2, test2, _ := Split(images, 7, 42)
	if !slices.Equal(train, train2) || !slices.Equal(test, test2) {
		t.Error("same seed gave different splits")
	}
	train3, _, _ := Split(images, 7, 43)
	if slices.Equal(train, train3) {
		t.Error("seeds 42 and 43 gave the same split")
	}
	if slices.Equal(train, images[:7]) {
		t.Error("split is not shuffled")
	}
	for _, n := range []int{-1, 11} {
		if _, _, err := Split(images, n, 1); err == nil {
			t.Errorf("nTrain %d: no error", n)
		}
	}
}

func TestOpenSynthetic(t *testing.T) {
	train, test, err := Open("synthetic", 3, 2, 16, 24, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(train) != 3 || len(test) != 2 {
		t.Fatalf("sizes %d/%d, want 3/2", len(train), len(test))
	}
	for _, im := range append(slices.Clone(train), test...) {
		if im.H != 16 || im.W != 24 {
			t.Fatalf("image %dx%d, want 16x24", im.H, im.W)
		}
	}
	if Hash(train[:2]) == Hash(test) {
		t.Error("train and test sets are the same images")
	}
	again, _, _ := Open("", 3, 2, 16, 24, 7)
	if Hash(again) != Hash(train) {
		t.Error("Open is not deterministic in seed")
	}
	def, _, err := Open("synthetic", 1, 0, 0, 0, 7)
	if err != nil || def[0].H != DefaultSyntheticSize || def[0].W != DefaultSyntheticSize {
		t.Errorf("default size: err %v", err)
	}
	if _, _, err := Open("synthetic", 0, 2, 8, 8, 1); err == nil {
		t.Error("synthetic with nTrain 0: no error")
	}
}

func TestOpenTrainTestFolders(t *testing.T) {
	root := t.TempDir()
	for _, sub := range []string{"train", "test"} {
		os.Mkdir(filepath.Join(root, sub), 0o755)
	}
	for i := range 4 {
		writeImage(t, filepath.Join(root, "train", itoa(i)+".pgm"), constImage(8, 8, i))
	}
	for i := range 3 {
		writeImage(t, filepath.Join(root, "test", itoa(i)+".png"), constImage(8, 8, 100+i))
	}
	train, test, err := Open(root, 2, 0, 8, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(train) != 2 || len(test) != 3 {
		t.Fatalf("sizes %d/%d, want 2/3", len(train), len(test))
	}
	if train[0].Pix[0] != 0 || train[1].Pix[0] != 1.0/255 || test[2].Pix[0] != 102.0/255 {
		t.Error("not the first images by name")
	}
	if _, _, err := Open(root, 5, 1, 8, 8, 1); err == nil || !strings.Contains(err.Error(), "train") {
		t.Errorf("asking 5 of 4 train images: error %v", err)
	}
	_, _, err = Open(root, 1, 1, 16, 16, 1)
	if err == nil || !strings.Contains(err.Error(), "8x8") || !strings.Contains(err.Error(), "16x16") {
		t.Errorf("wrong size: error %v does not give found 8x8 and expected 16x16", err)
	}
}

func TestOpenPlainFolderAndSTL10(t *testing.T) {
	dir := t.TempDir()
	for i := range 6 {
		writeImage(t, filepath.Join(dir, itoa(i)+".pgm"), constImage(5, 5, i))
	}
	train, test, err := Open(dir, 4, 0, 0, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(train) != 4 || len(test) != 2 {
		t.Fatalf("plain folder: sizes %d/%d, want 4/2", len(train), len(test))
	}
	train, test, err = Open(dir, 0, 1, 5, 5, 3)
	if err != nil || len(train) != 5 || len(test) != 1 {
		t.Fatalf("plain folder nTrain 0: sizes %d/%d err %v, want 5/1", len(train), len(test), err)
	}
	if _, _, err := Open(dir, 5, 2, 5, 5, 3); err == nil {
		t.Error("asking 7 of 6 images: no error")
	}
	if _, _, err := Open(dir, 0, 0, 5, 5, 3); err == nil {
		t.Error("no counts for a plain folder: no error")
	}

	bin := filepath.Join(t.TempDir(), "train_X.bin")
	if err := os.WriteFile(bin, tinySTL10(5), 0o644); err != nil {
		t.Fatal(err)
	}
	train, test, err = Open(bin, 3, 2, 96, 96, 9)
	if err != nil {
		t.Fatal(err)
	}
	if len(train) != 3 || len(test) != 2 {
		t.Fatalf("STL-10: sizes %d/%d, want 3/2", len(train), len(test))
	}
	all, _ := LoadSTL10(bin, 0)
	wantTrain, wantTest, _ := Split(all, 3, 9)
	if Hash(train) != Hash(wantTrain) || Hash(test) != Hash(wantTest) {
		t.Error("STL-10 Open differs from LoadSTL10 + Split")
	}
	if _, _, err := Open(bin, 1, 1, 32, 32, 9); err == nil || !strings.Contains(err.Error(), "96x96") {
		t.Errorf("STL-10 with size 32x32: error %v does not say 96x96", err)
	}
	_, _, err = Open(filepath.Join(dir, "missing"), 1, 1, 0, 0, 1)
	if err == nil || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing spec: error %v", err)
	}
}

// TestLoadFetchedData reads the fetched STL-10 and CT folders through
// LoadDir and checks every image against the SHA-1 of its 8-bit pixels
// pinned in the code, and the 40×40 slices against the centre of the
// 256×256 ones.
func TestLoadFetchedData(t *testing.T) {
	for _, set := range []struct {
		dir    string
		size   int
		pinned []pinnedImage
	}{{"stl10", 96, stl10Images}, {"covid-ct/ct256", 256, covidCTImages}} {
		root, ok := refdata.File(filepath.FromSlash(set.dir))
		if !ok {
			t.Skipf("%s not fetched: %s", set.dir, refdata.SkipReason)
		}
		want := map[string]string{}
		for _, p := range set.pinned {
			want[p.File] = p.PixelSHA1
		}
		for _, split := range []string{"train", "test"} {
			images, err := LoadDir(filepath.Join(root, split))
			if err != nil {
				t.Fatal(err)
			}
			for i, im := range images {
				name := fmt.Sprintf("%s/%03d.pgm", split, i)
				if im.H != set.size || im.W != set.size {
					t.Fatalf("%s/%s is %d×%d, want %d×%d", set.dir, name, im.H, im.W, set.size, set.size)
				}
				if got := sha1Of8Bit(im); got != want[name] {
					t.Errorf("%s/%s: SHA-1 of pixels %s, pinned %s", set.dir, name, got, want[name])
				}
				delete(want, name)
			}
		}
		if len(want) != 0 {
			t.Errorf("%s: %d pinned images missing", set.dir, len(want))
		}
	}
	big, err := LoadDir(filepath.Join(refdata.Root(), "covid-ct", "ct256", "test"))
	if err != nil {
		t.Fatal(err)
	}
	small, err := LoadDir(filepath.Join(refdata.Root(), "covid-ct", "ct40", "test"))
	if err != nil {
		t.Fatal(err)
	}
	for k := range big {
		for r := range ctCrop {
			for c := range ctCrop {
				if small[k].At(r, c) != big[k].At(r+ctCropAt, c+ctCropAt) {
					t.Fatalf("ct40/test/%03d.pgm (%d, %d) is not the centre crop of ct256", k, r, c)
				}
			}
		}
	}
}

func TestHashAndStack(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	images := []*Image{randomImage(rng, 3, 4), randomImage(rng, 3, 4)}
	n, h, w, pix, err := Stack(images)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 || h != 3 || w != 4 || len(pix) != 24 {
		t.Fatalf("Stack gave %d,%d,%d,len %d", n, h, w, len(pix))
	}
	if pix[12+1*4+2] != images[1].At(1, 2) {
		t.Error("Stack layout is not [N,H,W]")
	}
	back := Unstack(n, h, w, pix)
	if Hash(back) != Hash(images) {
		t.Error("Unstack(Stack(x)) != x")
	}
	back[0].Pix[0] = -1
	if pix[0] == -1 {
		t.Error("Unstack aliases its input")
	}
	if _, _, _, _, err := Stack(append(images, NewImage(4, 3))); err == nil || !strings.Contains(err.Error(), "4x3") {
		t.Errorf("Stack with mismatched sizes: error %v", err)
	}
	if _, _, _, _, err := Stack(nil); err == nil {
		t.Error("Stack of nothing: no error")
	}

	h0 := Hash(images)
	if len(h0) != 16 {
		t.Errorf("hash %q is not 16 hex digits", h0)
	}
	c := []*Image{images[0].Clone(), images[1].Clone()}
	if Hash(c) != h0 {
		t.Error("equal images hash differently")
	}
	c[1].Pix[11] += 1e-15
	if Hash(c) == h0 {
		t.Error("hash ignores a tiny pixel change")
	}
	flat := &Image{H: 4, W: 3, Pix: images[0].Pix}
	if Hash([]*Image{flat, images[1]}) == h0 {
		t.Error("hash ignores the image shape")
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		im   *Image
		want string
	}{
		{nil, "nil"},
		{&Image{H: 2, W: 2, Pix: make([]float64, 3)}, "3 pixels"},
		{&Image{H: 0, W: 2}, "size"},
		{&Image{H: 1, W: 2, Pix: []float64{0, posInf()}}, "+Inf"},
		{&Image{H: 2, W: 1, Pix: []float64{0, nan()}}, "row 1"},
	}
	for _, c := range cases {
		err := c.im.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate(%v): error %v, want one mentioning %q", c.im, err, c.want)
		}
	}
	if err := NewImage(2, 3).Validate(); err != nil {
		t.Errorf("valid image: %v", err)
	}
}

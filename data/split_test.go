package data

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSelectHeldOutIsHeldOut trains on 25 of 45 images of a flat folder and
// of an STL-10 file, and checks that a test set of any size is disjoint from
// the training images by content and that the training images do not depend
// on the number of test images (the bug: --n-test changed the shuffle).
func TestSelectHeldOutIsHeldOut(t *testing.T) {
	dir := t.TempDir()
	for i := range 45 {
		writeImage(t, filepath.Join(dir, "img"+itoa(100+i)+".pgm"), constImage(4, 4, i))
	}
	bin := filepath.Join(t.TempDir(), "train_X.bin")
	if err := os.WriteFile(bin, tinySTL10(45), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{dir, bin} {
		train, err := Select(spec, Request{NTrain: 25, NTest: 10, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, nTest := range []int{1, 10, 20, 0} {
			s, err := Select(spec, Request{NTrain: 25, NTest: nTest, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !SameRefs(s.TrainRefs, train.TrainRefs) {
				t.Errorf("%s: the training images change with --n-test %d", spec, nTest)
			}
			if o := Overlap(train.TrainRefs, s.TestRefs); len(o) > 0 {
				t.Errorf("%s, n-test %d: %d test images are training images (%s…)", spec, nTest, len(o), o[0].Name)
			}
			want := nTest
			if nTest == 0 {
				want = 20
			}
			if len(s.Test) != want || len(s.TestRefs) != want {
				t.Errorf("%s, n-test %d: %d test images", spec, nTest, len(s.Test))
			}
		}
		// A test set taken with another n-train (the old eval default of 1)
		// from the same seed would overlap; Exclude keeps it out.
		s, err := Select(spec, Request{NTrain: 1, NTest: 10, Seed: 1, Exclude: Hashes(train.TrainRefs)})
		if err != nil {
			t.Fatal(err)
		}
		if o := Overlap(train.TrainRefs, s.TestRefs); len(o) > 0 {
			t.Errorf("%s: Exclude let %d training images into the test set", spec, len(o))
		}
		if s.Skipped == 0 {
			t.Errorf("%s: n-train 1 skipped no image of the 25-image training set among 10 test images", spec)
		}
	}
}

// TestSelectSkipsDuplicates puts copies of training images under other
// names and checks that they never reach the test set, in both layouts.
func TestSelectSkipsDuplicates(t *testing.T) {
	flat := t.TempDir()
	for i := range 10 {
		writeImage(t, filepath.Join(flat, "a"+itoa(i)+".pgm"), constImage(3, 3, i))
		writeImage(t, filepath.Join(flat, "b"+itoa(i)+".pgm"), constImage(3, 3, i)) // a copy
	}
	s, err := Select(flat, Request{NTrain: 8, NTest: 2, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if o := Overlap(s.TrainRefs, s.TestRefs); len(o) > 0 {
		t.Errorf("flat folder: test image %s has the content of a training image", o[0].Name)
	}
	if _, err := Select(flat, Request{NTrain: 10, NTest: 10, Seed: 4}); err == nil || !strings.Contains(err.Error(), "equal a training image") {
		t.Errorf("10 distinct images, 10 train + 10 test asked: error %v", err)
	}

	split := t.TempDir()
	for _, sub := range []string{"train", "test"} {
		os.MkdirAll(filepath.Join(split, sub), 0o755)
	}
	for i := range 4 {
		writeImage(t, filepath.Join(split, "train", "t"+itoa(i)+".pgm"), constImage(3, 3, i))
		writeImage(t, filepath.Join(split, "test", "u"+itoa(i)+".pgm"), constImage(3, 3, 2+i)) // u0, u1 copy t2, t3
	}
	s, err = Select(split, Request{NTrain: 4, NTest: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s.Skipped != 2 || s.TestRefs[0].Name != "test/u2.pgm" || s.TrainRefs[0].Name != "train/t0.pgm" {
		t.Errorf("train/test folders: skipped %d, test %v", s.Skipped, s.TestRefs)
	}
}

// TestSelectKnowsAPictureInAnotherFormat: the same pictures as PGM, 8-bit
// and 16-bit PNG have other exact hashes (the readers scale differently)
// but one content hash, so a test set drawn from the PNG copies leaves out
// the images trained on as PGM.
func TestSelectKnowsAPictureInAnotherFormat(t *testing.T) {
	pgm, png8, png16 := t.TempDir(), t.TempDir(), t.TempDir()
	for i := range 4 {
		im := NewImage(16, 16)
		for k := range im.Pix {
			im.Pix[k] = float64((k*7+i*31)%256) / 255 // every level
		}
		name := "x" + itoa(i)
		writeImage(t, filepath.Join(pgm, name+".pgm"), im)
		writeImage(t, filepath.Join(png8, name+".png"), im)
		var buf bytes.Buffer
		if err := WritePNG16(&buf, im); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(png16, name+".png"), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	train, err := Select(pgm, Request{NTrain: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{png8, png16} {
		all, err := Select(dir, Request{TestOnly: true, NTest: 4, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		exact := 0
		for _, r := range all.TestRefs {
			if Hashes(train.TrainRefs)[r.SHA256] {
				exact++
			}
		}
		if exact != 0 {
			t.Fatalf("%s: %d images have a PGM's exact hash: the formats no longer differ, and this test tests nothing", dir, exact)
		}
		s, err := Select(dir, Request{TestOnly: true, NTest: 2, Seed: 1, Exclude: Hashes(train.TrainRefs)})
		if err != nil {
			t.Fatal(err)
		}
		if s.Skipped != 2 || len(Overlap(train.TrainRefs, s.TestRefs)) != 0 {
			t.Errorf("%s: skipped %d (want the 2 trained on), test %v, train %v", dir, s.Skipped, s.TestRefs, train.TrainRefs)
		}
	}
}

// TestSelectRefusesAFileThatIsNotSTL10: a file of STL-10's size per image
// but another name is not read as images.
func TestSelectRefusesAFileThatIsNotSTL10(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.csv")
	if err := os.WriteFile(path, make([]byte, 3*stl10Bytes), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Select(path, Request{NTrain: 1, NTest: 1, Seed: 1}); err == nil || !strings.Contains(err.Error(), "not an STL-10 binary") {
		t.Errorf("a .csv file as data: %v", err)
	}
}

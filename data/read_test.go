package data

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSelectReadsOnlyTheBlock: with Request.Read a flat folder, an STL-10
// file and a folder with train/ and test/ give the training images asked
// for, equal to those of a whole selection, read only those (Loaded) and
// no test image, and name every training image in order.
func TestSelectReadsOnlyTheBlock(t *testing.T) {
	flat := t.TempDir()
	split := t.TempDir()
	for _, d := range []string{"train", "test"} {
		if err := os.Mkdir(filepath.Join(split, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 12 {
		writeImage(t, filepath.Join(flat, "img"+itoa(100+i)+".pgm"), constImage(4, 4, i))
		writeImage(t, filepath.Join(split, "train", "img"+itoa(100+i)+".pgm"), constImage(4, 4, i))
		writeImage(t, filepath.Join(split, "test", "img"+itoa(100+i)+".pgm"), constImage(4, 4, 50+i))
	}
	bin := filepath.Join(t.TempDir(), "train_X.bin")
	if err := os.WriteFile(bin, tinySTL10(12), 0o644); err != nil {
		t.Fatal(err)
	}
	block := func(i int) bool { return i >= 2 && i < 5 || i == 7 }
	for _, spec := range []string{flat, bin, split} {
		whole, err := Select(spec, Request{NTrain: 8, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		s, err := Select(spec, Request{NTrain: 8, Seed: 3, Read: block})
		if err != nil {
			t.Fatal(err)
		}
		if s.Loaded != 4 || len(s.Test) != 0 || len(s.Train) != 8 || len(s.TrainRefs) != 8 {
			t.Errorf("%s: read %d images (want 4), %d test images, %d training images and %d refs (want 8)", spec, s.Loaded, len(s.Test), len(s.Train), len(s.TrainRefs))
			continue
		}
		for i, im := range s.Train {
			if s.TrainRefs[i].Name != whole.TrainRefs[i].Name {
				t.Errorf("%s: image %d is named %s, want %s", spec, i, s.TrainRefs[i].Name, whole.TrainRefs[i].Name)
			}
			switch {
			case !block(i) && (im != nil || s.TrainRefs[i].SHA256 != ""):
				t.Errorf("%s: image %d, outside the block, was read", spec, i)
			case block(i) && (im == nil || !slices.Equal(im.Pix, whole.Train[i].Pix) || s.TrainRefs[i] != whole.TrainRefs[i]):
				t.Errorf("%s: image %d of the block is not the whole selection's", spec, i)
			}
		}
	}
	if _, err := Select(flat, Request{NTrain: 8, NTest: 2, Read: block}); err == nil {
		t.Error("reading a block with test images was accepted")
	}
}

package data

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// LoadImage reads a .pgm or .png file (extension matched without regard to
// case) and checks that it is valid. Errors name the file.
func LoadImage(path string) (*Image, error) {
	var read func(f *os.File) (*Image, error)
	switch strings.ToLower(filepath.Ext(path)) {
	case ".pgm":
		read = func(f *os.File) (*Image, error) { return ReadPGM(f) }
	case ".png":
		read = func(f *os.File) (*Image, error) { return ReadPNG(f) }
	default:
		return nil, fmt.Errorf("data: %s: unsupported extension %q (want .pgm or .png)", path, filepath.Ext(path))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	defer f.Close()
	im, err := read(f)
	if err != nil {
		return nil, fmt.Errorf("data: %s: %w", path, err)
	}
	if err := im.Validate(); err != nil {
		return nil, fmt.Errorf("data: %s: %w", path, err)
	}
	return im, nil
}

// isImageFile reports whether name has a .pgm or .png extension.
func isImageFile(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".pgm" || ext == ".png"
}

// LoadDir reads every .pgm and .png file directly inside dir, in order of
// file name. It returns an error naming the offending file if a file cannot
// be read, if its size differs from the first image's, or if it has
// NaN/Inf pixels, and an error if dir holds no images.
func LoadDir(dir string) ([]*Image, error) {
	entries, err := os.ReadDir(dir) // sorted by file name
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	var images []*Image
	var first string
	for _, e := range entries {
		if e.IsDir() || !isImageFile(e.Name()) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		im, err := LoadImage(path)
		if err != nil {
			return nil, err
		}
		if len(images) == 0 {
			first = path
		} else if im.H != images[0].H || im.W != images[0].W {
			return nil, fmt.Errorf("data: %s is %dx%d (HxW), but %s is %dx%d: all images in a folder must have the same size",
				path, im.H, im.W, first, images[0].H, images[0].W)
		}
		images = append(images, im)
	}
	if len(images) == 0 {
		return nil, fmt.Errorf("data: %s: no .pgm or .png images in folder", dir)
	}
	return images, nil
}

// Split shuffles images with a permutation determined by seed and returns
// the first nTrain as train and the rest as test. The input slice is not
// modified; the images themselves are shared, not copied.
func Split(images []*Image, nTrain int, seed int64) (train, test []*Image, err error) {
	if nTrain < 0 || nTrain > len(images) {
		return nil, nil, fmt.Errorf("data: Split: nTrain = %d, want 0 ≤ nTrain ≤ %d (the number of images)", nTrain, len(images))
	}
	rng := rand.New(rand.NewPCG(mix(uint64(seed)), mix(uint64(seed)^0x5b1e_5b1e_5b1e_5b1e)))
	perm := rng.Perm(len(images))
	shuffled := make([]*Image, len(images))
	for i, p := range perm {
		shuffled[i] = images[p]
	}
	return shuffled[:nTrain:nTrain], shuffled[nTrain:], nil
}

// DefaultSyntheticSize is the image side used by Open for "synthetic" data
// when no size is given (that of STL-10).
const DefaultSyntheticSize = 96

// Open returns train and test images described by spec, the value of a
// --data command-line flag:
//
//   - "synthetic" or "": nTrain+nTest images of h×w made by Synthetic
//     (h, w ≤ 0 mean DefaultSyntheticSize), the train set from seed and the
//     test set from a different seed derived from it. nTrain must be positive;
//     nTest ≤ 0 gives no test images.
//   - a folder with train/ and test/ subfolders: the first nTrain and nTest
//     images (by file name) of each; nTrain or nTest ≤ 0 means all of that
//     subfolder. It is an error if a subfolder has fewer images than asked.
//   - any other folder of .pgm/.png images, or an STL-10 *_X.bin file: the
//     whole source is shuffled by seed (as Split does); the train set is the
//     first nTrain images and the test set the next nTest. If nTrain ≤ 0 the
//     train set takes every image not in the test set, and likewise if
//     nTest ≤ 0; one of them must be positive. The split does not depend on
//     nTest, and only the images used are read (Select).
//
// In the last two cases no test image equals a training image: such
// candidates are skipped (Select).
//
// If h and w are positive, every image must be h×w; otherwise Open returns
// an error naming the size found and the size expected.
func Open(spec string, nTrain, nTest int, h, w int, seed int64) (train, test []*Image, err error) {
	if spec == "" || spec == "synthetic" {
		if nTrain <= 0 {
			return nil, nil, fmt.Errorf("data: synthetic data needs nTrain > 0, got %d", nTrain)
		}
		if h <= 0 || w <= 0 {
			h, w = DefaultSyntheticSize, DefaultSyntheticSize
		}
		train = Synthetic(nTrain, h, w, seed)
		if nTest > 0 {
			test = Synthetic(nTest, h, w, int64(mix(uint64(seed)^0x7e57_7e57_7e57_7e57)))
		}
		return train, test, nil
	}
	sel, err := Select(spec, Request{NTrain: nTrain, NTest: nTest, H: h, W: w, Seed: seed})
	if err != nil {
		return nil, nil, err
	}
	return sel.Train, sel.Test, nil
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

// loadFirst loads dir and keeps its first n images (all if n ≤ 0).
func loadFirst(dir string, n int) ([]*Image, error) {
	images, err := LoadDir(dir)
	if err != nil {
		return nil, err
	}
	if n <= 0 {
		return images, nil
	}
	if len(images) < n {
		return nil, fmt.Errorf("data: %s has %d images, but %d were asked for", dir, len(images), n)
	}
	return images[:n:n], nil
}

// loadSome reads the images i < n of dir (file names names) with read(i),
// nil for the others; they must all have the first one's size.
func loadSome(dir string, names []string, n int, read func(i int) bool) ([]*Image, error) {
	if len(names) < n {
		return nil, fmt.Errorf("data: %s has %d images, but %d were asked for", dir, len(names), n)
	}
	images := make([]*Image, n)
	var first *Image
	firstName := ""
	for i := range n {
		if !read(i) {
			continue
		}
		path := filepath.Join(dir, names[i])
		im, err := LoadImage(path)
		if err != nil {
			return nil, err
		}
		if first == nil {
			first, firstName = im, path
		} else if im.H != first.H || im.W != first.W {
			return nil, fmt.Errorf("data: %s is %dx%d (HxW), but %s is %dx%d: all images in a folder must have the same size", path, im.H, im.W, firstName, first.H, first.W)
		}
		images[i] = im
	}
	return images, nil
}

// mix is the SplitMix64 finaliser; it turns nearby seeds into unrelated
// 64-bit states.
func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

package data

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Ref names one image of a data source and fingerprints its content: Name
// is its file name ("img_0042.png"; "train/…" and "test/…" in a folder with
// train/ and test/ subfolders), "#1234" for the image at that index of an
// STL-10 file, or "synthetic(seed S)#k" for generated images; SHA256 is
// ImageHash of its pixels. Disjointness is decided by SHA256, not by Name.
type Ref struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	// Content is ContentHash of its pixels: the same picture stored another
	// way (PGM and PNG, 8 or 16 bits, grey or RGB, an STL-10 file) has
	// another SHA256 but this Content. Empty in records written before it
	// was kept.
	Content string `json:"content,omitempty"`
}

// Keys are the keys the ref's image is known by for disjointness: its exact
// SHA256 and, where recorded, its Content (prefixed, so the two never meet).
func (r Ref) Keys() []string {
	if r.Content == "" {
		return []string{r.SHA256}
	}
	return []string{r.SHA256, "content:" + r.Content}
}

// NewRef is the ref of image im named name.
func NewRef(name string, im *Image) Ref {
	return Ref{Name: name, SHA256: ImageHash(im), Content: ContentHash(im)}
}

// ContentHash returns the SHA-256 (hex) of an image's size and its pixels
// rounded to 8 bits (round(255·v)): what a picture keeps through the formats
// the loaders read, so that a test image equal to a training image in
// another format is recognised.
func ContentHash(im *Image) string {
	return hashPixels(im, func(v float64) uint64 { return uint64(int64(math.Round(255 * v))) })
}

// hashPixels returns the SHA-256 (hex) of an image's size and word(v) of
// each pixel v.
func hashPixels(im *Image, word func(v float64) uint64) string {
	h := sha256.New()
	var buf [8]byte
	put := func(u uint64) {
		binary.LittleEndian.PutUint64(buf[:], u)
		h.Write(buf[:])
	}
	put(uint64(im.H))
	put(uint64(im.W))
	for _, v := range im.Pix {
		put(word(v))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// anyKey reports whether one of the ref's keys is in set.
func anyKey(set map[string]bool, r Ref) bool {
	for _, k := range r.Keys() {
		if set[k] {
			return true
		}
	}
	return false
}

// addKeys puts the ref's keys in set.
func addKeys(set map[string]bool, r Ref) {
	for _, k := range r.Keys() {
		set[k] = true
	}
}

// ImageHash returns the SHA-256 (hex) of an image's size and the exact bits
// of its pixels: two images with equal hashes are the same image.
func ImageHash(im *Image) string { return hashPixels(im, math.Float64bits) }

// Refs returns the refs of images named name(k) for the k-th image; a nil
// image (not read: Request.Read) gets its name alone.
func Refs(images []*Image, name func(k int) string) []Ref {
	out := make([]Ref, len(images))
	for k, im := range images {
		if im == nil {
			out[k] = Ref{Name: name(k)}
			continue
		}
		out[k] = NewRef(name(k), im)
	}
	return out
}

// Layouts of a data source (Selection.Layout, Record.Layout).
const (
	LayoutSynthetic = "synthetic"  // generated from a seed
	LayoutFolders   = "train-test" // a folder with train/ and test/ subfolders
	LayoutFolder    = "folder"     // a flat folder of images, shuffled by seed
	LayoutSTL10     = "stl10"      // an STL-10 *_X.bin file, shuffled by seed
)

// Selection is a split of a data source into training and test images.
type Selection struct {
	Source string // the --data value
	Layout string // one of the Layout constants
	Seed   int64  // the shuffle's seed (shuffled layouts)
	// Train and Test are the images, TrainRefs and TestRefs their refs.
	Train, Test         []*Image
	TrainRefs, TestRefs []Ref
	// Skipped counts the test candidates left out because their content
	// equals a training image's or an excluded one (Request.Exclude).
	Skipped int
	// Loaded counts the images read from the source (with Request.Read,
	// only those asked for).
	Loaded int
}

// Request asks Select for a split.
type Request struct {
	// NTrain and NTest are the numbers of training and test images; ≤ 0
	// means "the rest" for one of them in the shuffled layouts and "all of
	// the subfolder" in LayoutFolders.
	NTrain, NTest int
	// H and W, when positive, are the size every image must have.
	H, W int
	// Seed chooses the shuffle of the flat layouts.
	Seed int64
	// TestOnly takes no training images (NTrain is ignored): the test
	// images are the first NTest of the permutation, or of test/ in
	// LayoutFolders. For testing on other data than a checkpoint's.
	TestOnly bool
	// Exclude holds keys (Ref.Keys, Hashes) of images the test set must not
	// contain, besides the training images: the recorded training images of
	// a checkpoint evaluated on this source.
	Exclude map[string]bool
	// Read, if set, reads only the training images i (of the NTrain, which
	// must be given) with Read(i), and no test image (NTest must be 0):
	// one of several processes that each hold a block of the training
	// images. The others are nil in Selection.Train, and their refs in
	// TrainRefs hold their names alone (Refs).
	Read func(i int) bool
	// Blocks, if set, has this process read the test images of its block
	// alone (and hash a block of the training images and test candidates):
	// one of several processes that each evaluate a block of the test
	// functions. NTest must be given, Read not.
	Blocks *Blocks
}

// Select splits the folder or STL-10 file spec into training and test
// images. The split of a shuffled layout depends only on the number of
// images in the source and the seed, never on NTest: the training images
// are the first NTrain of one permutation of the whole source, and the test
// images the following ones, skipping any whose content equals a training
// image (or is in Exclude). Only the images used are read.
func Select(spec string, r Request) (*Selection, error) {
	if r.Read != nil && (r.NTrain <= 0 || r.NTest != 0 || r.TestOnly) {
		return nil, fmt.Errorf("data: %s: reading some of the training images needs their number and no test images (%d train, %d test asked for)", spec, r.NTrain, r.NTest)
	}
	if r.Blocks != nil && (r.NTest <= 0 || r.Read != nil) {
		return nil, fmt.Errorf("data: %s: reading a block of the test images needs their number and no block of the training images (%d test asked for)", spec, r.NTest)
	}
	info, err := os.Stat(spec)
	if err != nil {
		return nil, fmt.Errorf("data: --data %q is neither \"synthetic\" nor an existing folder or STL-10 file: %w", spec, err)
	}
	var src source
	switch {
	case info.IsDir() && isDir(filepath.Join(spec, "train")) && isDir(filepath.Join(spec, "test")):
		return selectFolders(spec, r)
	case info.IsDir():
		src, err = folderSource(spec)
	default:
		src, err = stl10Source(spec, info.Size())
	}
	if err != nil {
		return nil, err
	}
	return selectShuffled(spec, src, r)
}

// source is a data source in a fixed order whose images are read on demand.
type source struct {
	layout string
	n      int
	name   func(i int) string
	load   func(i int) (*Image, error)
}

func folderSource(dir string) (source, error) {
	names, err := imageNames(dir)
	if err != nil {
		return source{}, err
	}
	return source{
		layout: LayoutFolder, n: len(names),
		name: func(i int) string { return names[i] },
		load: func(i int) (*Image, error) { return LoadImage(filepath.Join(dir, names[i])) },
	}, nil
}

// imageNames lists the .pgm and .png files directly inside dir by name.
func imageNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir) // sorted by file name
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && isImageFile(e.Name()) {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("data: %s: no .pgm or .png images in folder (a data folder holds the images themselves, or train/ and test/ subfolders of them, named in lower case)", dir)
	}
	return names, nil
}

func stl10Source(path string, size int64) (source, error) {
	if !strings.EqualFold(filepath.Ext(path), ".bin") {
		return source{}, fmt.Errorf("data: %s is a file but not an STL-10 binary (*_X.bin): give a folder of .pgm or .png images, a folder with train/ and test/, an STL-10 .bin file, or synthetic", path)
	}
	if size < stl10Bytes {
		return source{}, fmt.Errorf("data: %s: stl10: no images: expected at least %d bytes (one 3×96×96 image)", path, stl10Bytes)
	}
	if size%stl10Bytes != 0 {
		return source{}, fmt.Errorf("data: %s: stl10: truncated data: %d bytes is not a multiple of %d (3×96×96 per image)", path, size, stl10Bytes)
	}
	return source{
		layout: LayoutSTL10, n: int(size / stl10Bytes),
		name: func(i int) string { return fmt.Sprintf("#%d", i) },
		load: func(i int) (*Image, error) { return readSTL10At(path, i) },
	}, nil
}

// readSTL10At reads the i-th image of an STL-10 file.
func readSTL10At(path string, i int) (*Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	defer f.Close()
	buf := make([]byte, stl10Bytes)
	if _, err := f.ReadAt(buf, int64(i)*stl10Bytes); err != nil && err != io.EOF {
		return nil, fmt.Errorf("data: %s: image %d: %w", path, i, err)
	}
	return decodeSTL10(buf), nil
}

// selectShuffled takes the training images from the front of one
// permutation of src and the test images from what follows.
func selectShuffled(spec string, src source, r Request) (*Selection, error) {
	nTrain, nTest := r.NTrain, r.NTest
	switch {
	case r.TestOnly && nTest <= 0:
		return nil, fmt.Errorf("data: %s: give the number of test images", spec)
	case r.TestOnly:
		nTrain = 0
	case nTrain <= 0 && nTest <= 0:
		return nil, fmt.Errorf("data: %s: give the number of train or test images to split the %d images", spec, src.n)
	case nTrain <= 0:
		nTrain = src.n - nTest
	}
	if nTrain < 0 || nTrain > src.n || (nTest > 0 && nTrain+nTest > src.n) {
		return nil, fmt.Errorf("data: %s has %d images, fewer than the %d train + %d test asked for", spec, src.n, max(nTrain, 0), max(nTest, 0))
	}
	rng := rand.New(rand.NewPCG(mix(uint64(r.Seed)), mix(uint64(r.Seed)^0x5b1e_5b1e_5b1e_5b1e)))
	perm := rng.Perm(src.n)
	if r.Blocks != nil {
		s, err := selectBlocks(spec, shuffledCandidates(src, perm, nTrain), r)
		if s != nil {
			s.Layout, s.Seed = src.layout, r.Seed
		}
		return s, err
	}
	s := &Selection{Source: spec, Layout: src.layout, Seed: r.Seed}
	seen := map[string]bool{}
	var first *Image
	add := func(i int, test bool) (bool, error) {
		if !test && r.Read != nil && !r.Read(i) {
			s.Train, s.TrainRefs = append(s.Train, nil), append(s.TrainRefs, Ref{Name: src.name(perm[i])})
			return true, nil
		}
		im, err := src.load(perm[i])
		if err != nil {
			return false, err
		}
		s.Loaded++
		if first == nil {
			first = im
		} else if im.H != first.H || im.W != first.W {
			return false, fmt.Errorf("data: %s: image %s is %dx%d (HxW), but %s is %dx%d: all images must have the same size",
				spec, src.name(perm[i]), im.H, im.W, s.firstName(), first.H, first.W)
		}
		ref := NewRef(src.name(perm[i]), im)
		if !test {
			addKeys(seen, ref)
			s.Train, s.TrainRefs = append(s.Train, im), append(s.TrainRefs, ref)
			return true, nil
		}
		if anyKey(seen, ref) || anyKey(r.Exclude, ref) {
			s.Skipped++
			return false, nil
		}
		addKeys(seen, ref) // a duplicate within the test set counts once
		s.Test, s.TestRefs = append(s.Test, im), append(s.TestRefs, ref)
		return true, nil
	}
	for i := range nTrain {
		if _, err := add(i, false); err != nil {
			return nil, err
		}
	}
	for i := nTrain; r.Read == nil && i < src.n && (nTest <= 0 || len(s.Test) < nTest); i++ {
		if _, err := add(i, true); err != nil {
			return nil, err
		}
	}
	if nTest > 0 && len(s.Test) < nTest {
		return nil, fmt.Errorf("data: %s has %d images: after the %d training images, %d of the rest equal a training image, and %d remain for the %d test images asked for",
			spec, src.n, nTrain, s.Skipped, len(s.Test), nTest)
	}
	return s, s.checkSize(r.H, r.W)
}

func (s *Selection) firstName() string {
	if len(s.TrainRefs) > 0 {
		return s.TrainRefs[0].Name
	}
	if len(s.TestRefs) > 0 {
		return s.TestRefs[0].Name
	}
	return "the first image"
}

// selectFolders takes the first NTrain images of train/ and the first NTest
// of test/ that equal no training (or excluded) image.
func selectFolders(spec string, r Request) (*Selection, error) {
	if r.Blocks != nil {
		nTrain := r.NTrain // ≤ 0: all of train/
		if r.TestOnly {
			nTrain = 0
		} else if nTrain <= 0 {
			nTrain = -1
		}
		c, err := folderCandidates(spec, nTrain)
		if err != nil {
			return nil, err
		}
		s, err := selectBlocks(spec, c, r)
		if s != nil {
			s.Layout = LayoutFolders
		}
		return s, err
	}
	s := &Selection{Source: spec, Layout: LayoutFolders}
	trainDir, testDir := filepath.Join(spec, "train"), filepath.Join(spec, "test")
	var err error
	names, err := imageNames(trainDir)
	if err != nil {
		return nil, err
	}
	switch {
	case r.Read != nil:
		if s.Train, err = loadSome(trainDir, names, r.NTrain, r.Read); err != nil {
			return nil, err
		}
		for _, im := range s.Train {
			if im != nil {
				s.Loaded++
			}
		}
		s.TrainRefs = Refs(s.Train, func(k int) string { return "train/" + names[k] })
		return s, s.checkSize(r.H, r.W)
	case !r.TestOnly:
		if s.Train, err = loadFirst(trainDir, r.NTrain); err != nil {
			return nil, err
		}
		s.Loaded += len(s.Train)
	}
	s.TrainRefs = Refs(s.Train, func(k int) string { return "train/" + names[k] })
	seen := map[string]bool{}
	for _, ref := range s.TrainRefs {
		addKeys(seen, ref)
	}
	tests, err := LoadDir(testDir)
	if err != nil {
		return nil, err
	}
	s.Loaded += len(tests)
	testNames, _ := imageNames(testDir)
	for k, im := range tests {
		if r.NTest > 0 && len(s.Test) == r.NTest {
			break
		}
		ref := NewRef("test/"+testNames[k], im)
		if anyKey(seen, ref) || anyKey(r.Exclude, ref) {
			s.Skipped++
			continue
		}
		addKeys(seen, ref)
		s.Test, s.TestRefs = append(s.Test, im), append(s.TestRefs, ref)
	}
	if r.NTest > 0 && len(s.Test) < r.NTest {
		return nil, fmt.Errorf("data: %s has %d images, %d of them equal to training images, but %d were asked for", testDir, len(tests), s.Skipped, r.NTest)
	}
	return s, s.checkSize(r.H, r.W)
}

// MinSize is the smallest image side the problems take (their stencils:
// a 5×5 blur, k×k kernels; l2o's --size floor).
const MinSize = 8

func (s *Selection) checkSize(h, w int) error {
	if h <= 0 || w <= 0 {
		return nil
	}
	for _, set := range [][]*Image{s.Train, s.Test} {
		for _, im := range set {
			if im == nil {
				continue // not read (Request.Read)
			}
			if im.H != h || im.W != w {
				if im.H < MinSize || im.W < MinSize || im.H != im.W {
					return fmt.Errorf("data: %s: images are %dx%d (HxW), expected %dx%d: the problems need square images of at least %d×%d; resample them to %dx%d", s.Source, im.H, im.W, h, w, MinSize, MinSize, h, w)
				}
				return fmt.Errorf("data: %s: images are %dx%d (HxW), expected %dx%d: give --size %d for square images of that size, or data of the problem's size", s.Source, im.H, im.W, h, w, im.H)
			}
		}
	}
	return nil
}

// Overlap returns the refs of b whose content equals that of a ref in a.
func Overlap(a, b []Ref) []Ref {
	in := Hashes(a)
	var out []Ref
	for _, r := range b {
		if anyKey(in, r) {
			out = append(out, r)
		}
	}
	return out
}

// Hashes returns the set of the refs' keys (Ref.Keys: their SHA-256s and
// content hashes), as Request.Exclude takes them.
func Hashes(refs []Ref) map[string]bool {
	out := make(map[string]bool, 2*len(refs))
	for _, r := range refs {
		addKeys(out, r)
	}
	return out
}

// SameRefs reports whether a and b name the same contents in the same order.
func SameRefs(a, b []Ref) bool {
	return slices.EqualFunc(a, b, func(x, y Ref) bool { return x.SHA256 == y.SHA256 })
}

// Record is what a checkpoint keeps of the data it was trained on, so that
// evaluation can re-create the training functions exactly and keep its test
// functions out of them.
type Record struct {
	Source string `json:"source"` // the --data value
	// Path is Source as an absolute path ("" for synthetic data).
	Path   string `json:"path,omitempty"`
	Layout string `json:"layout"` // one of the Layout constants
	Seed   int64  `json:"seed"`   // the shuffle's (and synthetic images') seed
	// NTrain is the number of training images, validation images included
	// (NVal of them, the last ones).
	NTrain int `json:"n_train"`
	NVal   int `json:"n_val,omitempty"`
	// Noise is the observation noise's standard deviation and NoiseSeed its
	// seed (the problem's, problem.Options.Seed).
	Noise     float64 `json:"noise"`
	NoiseSeed uint64  `json:"noise_seed"`
	// Fingerprint is Fingerprint(Train).
	Fingerprint string `json:"fingerprint"`
	Train       []Ref  `json:"train"`
}

// Fingerprint returns the SHA-256 (hex) over the contents of refs in order:
// the fingerprint of a data set as used.
func Fingerprint(refs []Ref) string {
	h := sha256.New()
	for _, r := range refs {
		h.Write([]byte(r.SHA256))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

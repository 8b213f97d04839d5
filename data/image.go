package data

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"math"
)

// Image is a grey image stored row-major (top row first): the pixel at row
// r and column c is Pix[r*W+c]. Values are normally in [0, 1].
type Image struct {
	H, W int
	Pix  []float64
}

// NewImage returns a zero (black) image of h rows and w columns.
// It panics if h or w is negative, like make does.
func NewImage(h, w int) *Image {
	if h < 0 || w < 0 {
		panic(fmt.Sprintf("data: NewImage: negative size %dx%d", h, w))
	}
	return &Image{H: h, W: w, Pix: make([]float64, h*w)}
}

// At returns the pixel at row r and column c.
func (im *Image) At(r, c int) float64 { return im.Pix[r*im.W+c] }

// Set sets the pixel at row r and column c to v.
func (im *Image) Set(r, c int, v float64) { im.Pix[r*im.W+c] = v }

// Clone returns a deep copy of im.
func (im *Image) Clone() *Image {
	out := &Image{H: im.H, W: im.W, Pix: make([]float64, len(im.Pix))}
	copy(out.Pix, im.Pix)
	return out
}

// Validate reports an error if im is nil, has a non-positive size, if
// len(Pix) != H*W, or if any pixel is NaN or ±Inf.
func (im *Image) Validate() error {
	if im == nil {
		return errors.New("nil image")
	}
	if im.H <= 0 || im.W <= 0 {
		return fmt.Errorf("invalid image size %dx%d: both must be positive", im.H, im.W)
	}
	if len(im.Pix) != im.H*im.W {
		return fmt.Errorf("image %dx%d has %d pixels, want %d", im.H, im.W, len(im.Pix), im.H*im.W)
	}
	for i, v := range im.Pix {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("pixel (row %d, col %d) is %v: images must be finite", i/im.W, i%im.W, v)
		}
	}
	return nil
}

// Stack copies images into one contiguous [N,H,W] row-major batch.
// It returns an error if there are no images, if any image is invalid, or
// if the sizes differ.
func Stack(images []*Image) (n, h, w int, pix []float64, err error) {
	if len(images) == 0 {
		return 0, 0, 0, nil, errors.New("data: Stack: no images")
	}
	for i, im := range images {
		if im == nil || len(im.Pix) != im.H*im.W || im.H <= 0 || im.W <= 0 {
			return 0, 0, 0, nil, fmt.Errorf("data: Stack: image %d: %w", i, im.Validate())
		}
	}
	h, w = images[0].H, images[0].W
	n = len(images)
	pix = make([]float64, 0, n*h*w)
	for i, im := range images {
		if im.H != h || im.W != w {
			return 0, 0, 0, nil, fmt.Errorf("data: Stack: image %d is %dx%d, but image 0 is %dx%d", i, im.H, im.W, h, w)
		}
		pix = append(pix, im.Pix...)
	}
	return n, h, w, pix, nil
}

// Unstack splits a contiguous [N,H,W] batch into n images of h×w. The
// pixels are copied, so the images do not alias pix. It panics if the sizes
// are negative or len(pix) != n*h*w, which is a programming error.
func Unstack(n, h, w int, pix []float64) []*Image {
	if n < 0 || h < 0 || w < 0 || len(pix) != n*h*w {
		panic(fmt.Sprintf("data: Unstack: len(pix)=%d does not match n*h*w=%d*%d*%d", len(pix), n, h, w))
	}
	out := make([]*Image, n)
	for i := range out {
		im := NewImage(h, w)
		copy(im.Pix, pix[i*h*w:(i+1)*h*w])
		out[i] = im
	}
	return out
}

// Hash returns a short hex digest (the first 16 hex digits of a SHA-256) of
// the number of images, their sizes and the exact bits of their pixels.
// Equal datasets give equal hashes; it is meant for checkpoint manifests.
func Hash(images []*Image) string {
	h := NewHash(len(images))
	for _, im := range images {
		HashImage(h, im)
	}
	return HashSum(h)
}

// NewHash returns Hash's SHA-256 of n images before any is added
// (HashImage): processes that each hold a block of the images add theirs
// in turn, the state passed from one to the next.
func NewHash(n int) hash.Hash {
	h := sha256.New()
	putUint64(h, uint64(n))
	return h
}

// HashImage adds im to h as Hash does.
func HashImage(h hash.Hash, im *Image) {
	if im == nil {
		putUint64(h, math.MaxUint64)
		return
	}
	putUint64(h, uint64(im.H))
	putUint64(h, uint64(im.W))
	putUint64(h, uint64(len(im.Pix)))
	buf := make([]byte, 8*len(im.Pix))
	for i, v := range im.Pix {
		binary.LittleEndian.PutUint64(buf[8*i:], math.Float64bits(v))
	}
	h.Write(buf)
}

// HashSum returns Hash's digest of the images added to h.
func HashSum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil))[:16] }

// putUint64 writes u to h in little-endian order.
func putUint64(h hash.Hash, u uint64) {
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], u)
	h.Write(buf[:])
}

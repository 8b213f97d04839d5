package data

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
)

// STL10Size is the side of an STL-10 image (96×96 pixels).
const STL10Size = 96

// stl10Bytes is the size of one STL-10 image: three 96×96 uint8 planes.
const stl10Bytes = 3 * STL10Size * STL10Size

// ReadSTL10 decodes an STL-10 binary image file (train_X.bin, test_X.bin,
// unlabeled_X.bin). Each image is 3×96×96 uint8: three channel planes R, G,
// B, each stored column by column (column-major, as written by MATLAB). The
// images are converted to grey with ITU-R 601-2 luma and scaled by 1/255.
// At most max images are read; max ≤ 0 reads all. A file whose length is
// not a whole number of images is reported as truncated.
func ReadSTL10(r io.Reader, max int) ([]*Image, error) {
	br := bufio.NewReaderSize(r, stl10Bytes)
	buf := make([]byte, stl10Bytes)
	var out []*Image
	for max <= 0 || len(out) < max {
		n, err := io.ReadFull(br, buf)
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("stl10: truncated data: image %d has %d bytes, expected %d (3×96×96); the file should be a multiple of %d bytes",
				len(out), n, stl10Bytes, stl10Bytes)
		}
		if err != nil {
			return nil, fmt.Errorf("stl10: reading image %d: %w", len(out), err)
		}
		im := decodeSTL10(buf)
		out = append(out, im)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("stl10: no images: expected at least %d bytes (one 3×96×96 image)", stl10Bytes)
	}
	return out, nil
}

// decodeSTL10 converts one STL-10 image (stl10Bytes bytes) to grey.
func decodeSTL10(buf []byte) *Image {
	const plane = STL10Size * STL10Size
	im := NewImage(STL10Size, STL10Size)
	for col := range STL10Size {
		for row := range STL10Size {
			k := col*STL10Size + row
			red, green, blue := float64(buf[k]), float64(buf[plane+k]), float64(buf[2*plane+k])
			// min guards against the weights summing a hair above 1.
			im.Pix[row*STL10Size+col] = min((LumaR*red+LumaG*green+LumaB*blue)/255, 1)
		}
	}
	return im
}

// LoadSTL10 reads at most max images (all if max ≤ 0) from the STL-10
// binary file at path. Errors name the file.
func LoadSTL10(path string, max int) ([]*Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	defer f.Close()
	images, err := ReadSTL10(f, max)
	if err != nil {
		return nil, fmt.Errorf("data: %s: %w", path, err)
	}
	return images, nil
}

// WriteSTL10 encodes 96×96 grey images in the STL-10 binary layout, with
// the grey level (clamped to [0, 1] and rounded to 8 bits) copied to all
// three channels, so that ReadSTL10 returns the quantised images.
func WriteSTL10(w io.Writer, images []*Image) error {
	bw := bufio.NewWriter(w)
	buf := make([]byte, stl10Bytes)
	const plane = STL10Size * STL10Size
	for i, im := range images {
		if err := im.Validate(); err != nil {
			return fmt.Errorf("stl10: image %d: %w", i, err)
		}
		if im.H != STL10Size || im.W != STL10Size {
			return fmt.Errorf("stl10: image %d is %dx%d, want %dx%d", i, im.H, im.W, STL10Size, STL10Size)
		}
		for col := range STL10Size {
			for row := range STL10Size {
				s := byte(quantize(im.Pix[row*STL10Size+col], 255))
				k := col*STL10Size + row
				buf[k], buf[plane+k], buf[2*plane+k] = s, s, s
			}
		}
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("stl10: writing image %d: %w", i, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("stl10: writing: %w", err)
	}
	return nil
}

package data

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path"
)

// CT slices are resized to ctSize×ctSize; the small problem's slices are
// the centre ctCrop×ctCrop of those, rows and columns ctCropAt..ctCropAt+39.
const (
	ctSize   = 256
	ctCrop   = 40
	ctCropAt = (ctSize - ctCrop) / 2
)

// buildSTL10 converts the STL-10 PNGs (96×96 RGB) to grey PGMs.
func buildSTL10(paths []string) (map[string][]byte, error) {
	out := make(map[string][]byte, len(paths))
	for i, im := range stl10Images {
		pix, h, w, err := readGrey(paths[i])
		if err != nil {
			return nil, err
		}
		if h != 96 || w != 96 {
			return nil, fmt.Errorf("%s: %d×%d, want 96×96", paths[i], h, w)
		}
		if err := checkPixels(pix, im); err != nil {
			return nil, err
		}
		out[im.File] = pgmBytes(pix, h, w)
	}
	return out, nil
}

// buildCovidCT converts the CT PNGs to grey, resizes them to 256×256 with
// Pillow's bicubic (aspect ratio not kept) into ct256/, and crops their
// centre 40×40 into ct40/.
func buildCovidCT(paths []string) (map[string][]byte, error) {
	out := make(map[string][]byte, 2*len(paths))
	for i, im := range covidCTImages {
		pix, h, w, err := readGrey(paths[i])
		if err != nil {
			return nil, err
		}
		big, err := PillowResizeBicubic(pix, h, w, ctSize, ctSize)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", paths[i], err)
		}
		if err := checkPixels(big, im); err != nil {
			return nil, err
		}
		small := make([]uint8, 0, ctCrop*ctCrop)
		for r := ctCropAt; r < ctCropAt+ctCrop; r++ {
			small = append(small, big[r*ctSize+ctCropAt:r*ctSize+ctCropAt+ctCrop]...)
		}
		out[path.Join("ct256", im.File)] = pgmBytes(big, ctSize, ctSize)
		out[path.Join("ct40", im.File)] = pgmBytes(small, ctCrop, ctCrop)
	}
	return out, nil
}

func readGrey(p string) ([]uint8, int, int, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, 0, 0, err
	}
	pix, h, w, err := PillowGrey(b)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%s: %w", p, err)
	}
	return pix, h, w, nil
}

// checkPixels compares the converted pixels with the pinned SHA-1.
func checkPixels(pix []uint8, im pinnedImage) error {
	sum := sha1.Sum(pix)
	if got := hex.EncodeToString(sum[:]); got != im.PixelSHA1 {
		return fmt.Errorf("%s from %s/%s: grey pixels hash to %s, pinned %s (the conversion differs from the reference)",
			im.File, im.Repo, im.Path, got, im.PixelSHA1)
	}
	return nil
}

// pgmBytes is an 8-bit binary PGM: "P5\nW H\n255\n" and the pixels.
func pgmBytes(pix []uint8, h, w int) []byte {
	return append([]byte(fmt.Sprintf("P5\n%d %d\n255\n", w, h)), pix...)
}

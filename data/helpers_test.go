package data

import (
	"crypto/sha1"
	"encoding/hex"
	"math"
	"strconv"
)

func itoa(v int) string { return strconv.Itoa(v) }

func posInf() float64 { return math.Inf(1) }

func nan() float64 { return math.NaN() }

// sha1Of8Bit hashes the 8-bit levels of im, as in the shared manifest.
func sha1Of8Bit(im *Image) string {
	b := make([]byte, len(im.Pix))
	for i, v := range im.Pix {
		b[i] = byte(math.Round(v * 255))
	}
	s := sha1.Sum(b)
	return hex.EncodeToString(s[:])
}

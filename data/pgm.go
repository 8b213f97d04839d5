package data

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
)

// maxPixels bounds the size of an image read from a file, so that a corrupt
// header cannot ask for an absurd allocation.
const maxPixels = 1 << 28

// ReadPGM decodes a binary (P5) PGM image. Samples are 8 bit when the
// header's maxval is at most 255 and 16 bit big-endian when it is at most
// 65535; they are scaled to [0, 1] by dividing by maxval. Comments (from #
// to the end of a line) are allowed in the header.
func ReadPGM(r io.Reader) (*Image, error) {
	br := bufio.NewReader(r)
	magic := make([]byte, 2)
	if _, err := io.ReadFull(br, magic); err != nil {
		return nil, fmt.Errorf("pgm: reading magic number: %w", eofAsUnexpected(err))
	}
	if string(magic) != "P5" {
		return nil, fmt.Errorf("pgm: magic number %q is not \"P5\" (only binary greyscale PGM is supported)", magic)
	}
	var fields [3]int
	names := [3]string{"width", "height", "maxval"}
	for i := range fields {
		v, err := readHeaderInt(br)
		if err != nil {
			return nil, fmt.Errorf("pgm: reading %s: %w", names[i], err)
		}
		fields[i] = v
	}
	w, h, maxval := fields[0], fields[1], fields[2]
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("pgm: size %dx%d (width x height) must be positive", w, h)
	}
	if w > maxPixels || h > maxPixels || w*h > maxPixels {
		return nil, fmt.Errorf("pgm: size %dx%d is larger than the %d pixels this reader accepts", w, h, maxPixels)
	}
	if maxval <= 0 || maxval > 65535 {
		return nil, fmt.Errorf("pgm: maxval %d must be in [1, 65535]", maxval)
	}
	// Exactly one whitespace byte separates maxval from the pixel data;
	// readHeaderInt consumed it.
	bytesPerSample := 1
	if maxval > 255 {
		bytesPerSample = 2
	}
	need := int64(w) * int64(h) * int64(bytesPerSample)
	raw, err := readUpTo(br, need)
	if err != nil {
		return nil, fmt.Errorf("pgm: reading pixel data: %w", err)
	}
	if int64(len(raw)) < need {
		return nil, fmt.Errorf("pgm: truncated pixel data: expected %d bytes (%dx%d pixels, %d byte(s) each), got %d",
			need, w, h, bytesPerSample, len(raw))
	}
	im := NewImage(h, w)
	scale := 1 / float64(maxval)
	for i := range im.Pix {
		var s int
		if bytesPerSample == 1 {
			s = int(raw[i])
		} else {
			s = int(raw[2*i])<<8 | int(raw[2*i+1])
		}
		if s > maxval {
			return nil, fmt.Errorf("pgm: sample %d at (row %d, col %d) exceeds maxval %d", s, i/w, i%w, maxval)
		}
		im.Pix[i] = float64(s) * scale
	}
	return im, nil
}

// readUpTo reads at most n bytes, fewer only if r ends first. Large reads
// grow their buffer as data arrives, so a short file with a header claiming
// a huge size does not cause a huge allocation.
func readUpTo(r io.Reader, n int64) ([]byte, error) {
	if n <= 1<<20 {
		buf := make([]byte, n)
		k, err := io.ReadFull(r, buf)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = nil
		}
		return buf[:k], err
	}
	return io.ReadAll(io.LimitReader(r, n))
}

// readHeaderInt skips whitespace and comments, then reads a decimal integer
// and the single whitespace byte that ends it.
func readHeaderInt(br *bufio.Reader) (int, error) {
	c, err := skipSpaceAndComments(br)
	if err != nil {
		return 0, err
	}
	if c < '0' || c > '9' {
		return 0, fmt.Errorf("unexpected byte %q where a decimal number should start", c)
	}
	v := 0
	for {
		v = v*10 + int(c-'0')
		if v > math.MaxInt32 {
			return 0, errors.New("number too large")
		}
		c, err = br.ReadByte()
		if err != nil {
			return 0, eofAsUnexpected(err)
		}
		if c < '0' || c > '9' {
			break
		}
	}
	if !isSpace(c) {
		return 0, fmt.Errorf("unexpected byte %q after number %d (want whitespace)", c, v)
	}
	return v, nil
}

func skipSpaceAndComments(br *bufio.Reader) (byte, error) {
	for {
		c, err := br.ReadByte()
		if err != nil {
			return 0, eofAsUnexpected(err)
		}
		switch {
		case isSpace(c):
		case c == '#':
			for c != '\n' && c != '\r' {
				if c, err = br.ReadByte(); err != nil {
					return 0, eofAsUnexpected(err)
				}
			}
		default:
			return c, nil
		}
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func eofAsUnexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("file ends inside the header: %w", io.ErrUnexpectedEOF)
	}
	return err
}

// WritePGM encodes im as a binary (P5) PGM with bits = 8 (maxval 255) or
// 16 (maxval 65535, big-endian). Values are clamped to [0, 1] and rounded
// to the nearest level. It returns an error if im is invalid.
func WritePGM(w io.Writer, im *Image, bits int) error {
	if bits != 8 && bits != 16 {
		return fmt.Errorf("pgm: bits = %d, want 8 or 16", bits)
	}
	if err := im.Validate(); err != nil {
		return fmt.Errorf("pgm: %w", err)
	}
	maxval := 1<<bits - 1
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "P5\n%d %d\n%d\n", im.W, im.H, maxval)
	for _, v := range im.Pix {
		s := quantize(v, maxval)
		if bits == 8 {
			bw.WriteByte(byte(s))
		} else {
			bw.WriteByte(byte(s >> 8))
			bw.WriteByte(byte(s))
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("pgm: writing: %w", err)
	}
	return nil
}

// quantize clamps v to [0, 1] and rounds v*maxval to the nearest integer.
func quantize(v float64, maxval int) int {
	v = min(max(v, 0), 1)
	return int(math.Round(v * float64(maxval)))
}

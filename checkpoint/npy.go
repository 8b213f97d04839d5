package checkpoint

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// npyHeader is the parsed header of a .npy file.
type npyHeader struct {
	descr   string
	fortran bool
	shape   []int
	data    int // offset of the data
}

// parseNPYHeader parses the header of a .npy file (format versions 1 to
// 3): the magic string, the header length and the Python dictionary with
// the keys 'descr', 'fortran_order' and 'shape'. It never reads past b and
// never allocates more than b's size.
func parseNPYHeader(b []byte) (*npyHeader, error) {
	magic := []byte("\x93NUMPY")
	if len(b) < 10 || !bytes.Equal(b[:6], magic) {
		return nil, errors.New("not a .npy file (no \\x93NUMPY magic string)")
	}
	var hlen, start int
	switch b[6] {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(b[8:10])), 10
	case 2, 3:
		if len(b) < 12 {
			return nil, errors.New("truncated header")
		}
		v := binary.LittleEndian.Uint32(b[8:12])
		if uint64(v) > uint64(len(b)) {
			return nil, fmt.Errorf("header length %d exceeds the file (%d bytes)", v, len(b))
		}
		hlen, start = int(v), 12
	default:
		return nil, fmt.Errorf("unknown .npy format version %d.%d", b[6], b[7])
	}
	if start+hlen > len(b) {
		return nil, fmt.Errorf("header length %d exceeds the file (%d bytes)", hlen, len(b))
	}
	h := &npyHeader{data: start + hlen}
	dict := strings.TrimSpace(string(b[start : start+hlen]))
	p := &pyParser{s: dict}
	seen := map[string]bool{}
	if !p.eat('{') {
		return nil, errors.New("header is not a dictionary")
	}
	for {
		p.space()
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if !p.eat(':') {
			return nil, fmt.Errorf("header: no ':' after key %q", key)
		}
		p.space()
		if seen[key] {
			return nil, fmt.Errorf("header: key %q twice", key)
		}
		seen[key] = true
		switch key {
		case "descr":
			if h.descr, err = p.str(); err != nil {
				return nil, err
			}
		case "fortran_order":
			switch {
			case p.word("True"):
				h.fortran = true
			case p.word("False"):
			default:
				return nil, errors.New("header: fortran_order is neither True nor False")
			}
		case "shape":
			if h.shape, err = p.tuple(); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("header: unknown key %q", key)
		}
		p.space()
		if p.eat(',') {
			continue
		}
		p.space()
		if !p.eat('}') {
			return nil, errors.New("header: dictionary not closed")
		}
		break
	}
	if !seen["descr"] || !seen["fortran_order"] || !seen["shape"] {
		return nil, errors.New("header: descr, fortran_order or shape missing")
	}
	return h, nil
}

// pyParser reads the Python literals of a .npy header.
type pyParser struct {
	s string
	i int
}

func (p *pyParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

func (p *pyParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *pyParser) word(w string) bool {
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

func (p *pyParser) str() (string, error) {
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", errors.New("header: a string was expected")
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", errors.New("header: unterminated string")
	}
	v := p.s[p.i+1 : p.i+1+end]
	p.i += end + 2
	return v, nil
}

// maxNPYDims bounds the number of dimensions of a shape.
const maxNPYDims = 32

func (p *pyParser) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, errors.New("header: shape is not a tuple")
	}
	var out []int
	for {
		p.space()
		if p.eat(')') {
			return out, nil
		}
		j := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		if j == p.i || p.i-j > 18 {
			return nil, errors.New("header: shape holds something other than sizes")
		}
		v, err := strconv.Atoi(p.s[j:p.i])
		if err != nil {
			return nil, fmt.Errorf("header: shape: %w", err)
		}
		if out = append(out, v); len(out) > maxNPYDims {
			return nil, errors.New("header: shape has too many dimensions")
		}
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.eat(')') {
				return nil, errors.New("header: shape tuple not closed")
			}
			return out, nil
		}
	}
}

// decodeFloat64s decodes n little-endian float64 values.
func decodeFloat64s(b []byte, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out
}

// decodeFloat32s decodes n little-endian float32 values into float64s
// (exactly).
func decodeFloat32s(b []byte, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
	}
	return out
}

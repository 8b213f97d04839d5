package kernels

// DotRunLen is the length of a dot product's running state (DotRunAdd).
const DotRunLen = 5

// DotRunAdd continues the dot product run (DotRunLen values, zero at the
// start) with the next pieces a and b of two vectors of total values each,
// so that after every piece DotRunValue is bitwise Dot of the whole
// vectors: the products go to Dot's four partial sums (s[j mod 4], the
// last total mod 4 products to s[0]) in the order of j, and run[4] counts
// the products so far. The state is plain float64s so that the pieces can
// be added in different processes, the run passed from one to the next.
// It panics if the pieces exceed total values.
func DotRunAdd(run, a, b []float64, total int) {
	n := min(len(a), len(b))
	pos := int(run[4])
	if pos+n > total {
		panic("kernels: DotRunAdd past the total length")
	}
	whole := total / 4 * 4
	s := (*[4]float64)(run[:4])
	i := 0
	for ; i < n && (pos+i)%4 != 0 && pos+i < whole; i++ {
		s[(pos+i)%4] += a[i] * b[i]
	}
	if m := min(n-i, whole-pos-i) / 4 * 4; m > 0 {
		dotLanes(a[i:i+m], b[i:i+m], s)
		i += m
	}
	for ; i < n; i++ {
		if g := pos + i; g < whole {
			s[g%4] += a[i] * b[i]
		} else {
			s[0] += a[i] * b[i]
		}
	}
	run[4] = float64(pos + n)
}

// DotRunValue returns the dot product of the run so far: (s0+s1)+(s2+s3).
func DotRunValue(run []float64) float64 { return (run[0] + run[1]) + (run[2] + run[3]) }

// dotLanes adds a[j]·b[j] to s[j mod 4] in the order of j (len(a) a
// multiple of 4): the vector kernel where there is one, else the loop.
func dotLanes(a, b []float64, s *[4]float64) {
	if dotLanes64 != nil {
		dotLanes64(a, b, s)
		return
	}
	for j := 0; j+4 <= len(a); j += 4 {
		a4, b4 := a[j:j+4:j+4], b[j:j+4:j+4]
		s[0] += a4[0] * b4[0]
		s[1] += a4[1] * b4[1]
		s[2] += a4[2] * b4[2]
		s[3] += a4[3] * b4[3]
	}
}

// dotLanes64 is dotLanes in vector registers (nil without them).
var dotLanes64 func(a, b []float64, s *[4]float64)

//go:build amd64 && !purego

package gpu

import "github.com/greedyl2o/greedyl2o/kernels/vec"

// planeVec is whether the float32 plane loops run the kernels of
// kernels/vec: the CPU has AVX2 and FMA (the combinations fuse).
var planeVec = vec.AVX2 && vec.FMA

// lanes8 adds the eight partial sums of a kernel in a fixed order.
func lanes8(s *[8]float64) float64 {
	return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]))
}

func planeSum32(x []float32) float64 {
	whole := len(x) &^ 7
	var s [8]float64
	if whole > 0 {
		vec.PlaneSum32(&x[0], 4*whole, &s)
	}
	return lanes8(&s) + planeSumLoop(x[whole:])
}

func planeDot32(x, y []float32) float64 {
	y = y[:len(x)]
	whole := len(x) &^ 7
	var s [8]float64
	if whole > 0 {
		vec.PlaneDot32(&x[0], &y[0], 4*whole, &s)
	}
	return lanes8(&s) + planeDotLoop(x[whole:], y[whole:])
}

func planeSumDot32(u, z []float32) (su, suz float64) {
	z = z[:len(u)]
	whole := len(u) &^ 7
	var s [16]float64
	if whole > 0 {
		vec.PlaneSumDot32(&u[0], &z[0], 4*whole, &s)
	}
	tu, tz := planeSumDotLoop(u[whole:], z[whole:])
	return lanes8((*[8]float64)(s[:8])) + tu, lanes8((*[8]float64)(s[8:])) + tz
}

func shiftSquares32(z, x []float32, c float32) float64 {
	z = z[:len(x)]
	whole := len(x) &^ 7
	var s [8]float64
	if whole > 0 {
		vec.ShiftSquares32(&z[0], &x[0], 4*whole, c, &s)
	}
	return lanes8(&s) + shiftSquaresLoop(z[whole:], x[whole:], c)
}

func affine32(y, x []float32, a, c float32) {
	y = y[:len(x)]
	whole := len(x) &^ 7
	if whole > 0 {
		vec.Affine32(&y[0], &x[0], 4*whole, a, c)
	}
	affineLoop(y[whole:], x[whole:], a, c)
}

func combine32(y, x, z []float32, a, b, c float32) {
	y, z = y[:len(x)], z[:len(x)]
	whole := len(x) &^ 7
	if whole > 0 {
		vec.Combine32(&y[0], &x[0], &z[0], 4*whole, a, b, c)
	}
	combineLoop(y[whole:], x[whole:], z[whole:], a, b, c)
}

func leaky32(dst, x, u []float32, slope float32) {
	dst, u = dst[:len(x)], u[:len(x)]
	whole := len(x) &^ 7
	if whole > 0 {
		vec.LeakyMask32(&dst[0], &x[0], &u[0], 4*whole, slope)
	}
	leakyLoop(dst[whole:], x[whole:], u[whole:], slope)
}

package eval

import "math"

// SSIM returns the mean structural similarity of x against truth, h×w
// images with values in [0, 1] (Wang, Bovik, Sheikh and Simoncelli 2004:
// an 11×11 Gaussian window of σ = 1.5 over the positions where it fits,
// K1 = 0.01, K2 = 0.03, dynamic range 1; the window shrinks to the largest
// odd size that fits a smaller image). It is NaN for mismatched sizes.
func SSIM(x, truth []float64, h, w int) float64 {
	if h <= 0 || w <= 0 || len(x) != h*w || len(truth) != h*w {
		return math.NaN()
	}
	size := min(11, h, w)
	if size%2 == 0 {
		size--
	}
	win := gaussianWindow(size, 1.5)
	const c1, c2 = 0.01 * 0.01, 0.03 * 0.03
	var sum float64
	for r := 0; r+size <= h; r++ {
		for c := 0; c+size <= w; c++ {
			var mx, my, xx, yy, xy float64
			for i := range size {
				for j := range size {
					g := win[i*size+j]
					a, b := x[(r+i)*w+c+j], truth[(r+i)*w+c+j]
					mx += g * a
					my += g * b
					xx += g * a * a
					yy += g * b * b
					xy += g * a * b
				}
			}
			vx, vy, cxy := xx-mx*mx, yy-my*my, xy-mx*my
			sum += (2*mx*my + c1) * (2*cxy + c2) / ((mx*mx + my*my + c1) * (vx + vy + c2))
		}
	}
	return sum / float64((h-size+1)*(w-size+1))
}

// gaussianWindow is a size×size Gaussian of standard deviation sigma that
// sums to 1.
func gaussianWindow(size int, sigma float64) []float64 {
	g := make([]float64, size*size)
	c := float64(size-1) / 2
	var s float64
	for i := range size {
		for j := range size {
			di, dj := float64(i)-c, float64(j)-c
			g[i*size+j] = math.Exp(-(di*di + dj*dj) / (2 * sigma * sigma))
			s += g[i*size+j]
		}
	}
	for i := range g {
		g[i] /= s
	}
	return g
}

// Command diagnose-modes measures in which spatial frequencies a learned
// optimizer's iterates change between two saved iterations (l2o apply
// --save-at): for each function it takes D = x_b − x_a, its 2-D DFT, and
// prints the share of ‖D‖² in radial frequency bands (fractions of the
// Nyquist radius), the mean over the functions and for the one whose ‖D‖ is
// largest; with -params it prints the same bands' largest |Ĝ_t| of the
// checkpoint's G kernel θ_t (image-sized, or k×k: PC-k) for comparison, and
// |Ĥ_t| of its momentum kernel φ_t where the checkpoint has one (M-PC).
//
//	l2o apply … --out DIR --save-at 14,22
//	go run ./scripts/diagnose-modes -dir DIR -a 14 -b 22 -params CHECKPOINT -t 14,20
package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"math"
	"math/cmplx"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/greedyl2o/greedyl2o/checkpoint"
)

var edges = []float64{0.125, 0.25, 0.5, 0.75, 1, math.Sqrt2}

func main() {
	dir := flag.String("dir", "", "l2o apply --out folder with x_tNNNN.npy")
	a := flag.Int("a", 14, "first iteration")
	b := flag.Int("b", 22, "second iteration")
	size := flag.Int("size", 96, "image side")
	params := flag.String("params", "", "greedy checkpoint whose θ_t spectra to print (optional)")
	ts := flag.String("t", "", "steps t of -params")
	flag.Parse()
	n := *size
	if *dir != "" {
		changes(*dir, *a, *b, n)
	}
	if *params != "" {
		kernels(*params, *ts, n)
	}
}

// changes prints the bands of x_b − x_a.
func changes(dir string, a, b, n int) {
	xa := read(dir, a, -1)
	xb := read(dir, b, len(xa))
	m := len(xa) / (n * n)
	fmt.Printf("D = x_%d − x_%d, %d functions of %d×%d; bands: radius/Nyquist ≤ %v\n", b, a, m, n, n, edges)
	mean := make([]float64, len(edges))
	worst, worstNorm := 0, -1.0
	shares := make([][]float64, m)
	for k := 0; k < m; k++ {
		d := make([]float64, n*n)
		norm := 0.0
		for i := range d {
			d[i] = xb[k*n*n+i] - xa[k*n*n+i]
			norm += d[i] * d[i]
		}
		shares[k] = bandShares(spectrum(d, n), n)
		for j := range mean {
			mean[j] += shares[k][j] / float64(m)
		}
		if norm > worstNorm {
			worst, worstNorm = k, norm
		}
	}
	fmt.Printf("mean share of ‖D‖²:        %s\n", row(mean))
	fmt.Printf("function %d (largest ‖D‖ = %.3g): %s\n", worst, math.Sqrt(worstNorm), row(shares[worst]))
}

// kernels prints the largest gain of θ_t's spectrum in each band, and of φ_t's.
func kernels(params, ts string, n int) {
	for _, s := range strings.Split(ts, ",") {
		t, err := strconv.Atoi(s)
		if err != nil {
			log.Fatalf("-t %q: %v", s, err)
		}
		th, err := readKernel(filepath.Join(params, checkpoint.ParamFile("theta", t)), n)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("θ_%d: largest |Ĝ| in each band: %s\n", t, row(bandMax(spectrum(th, n), n)))
		// The momentum kernel φ_t of an M- parametrization (zero at t = 0):
		// heavy ball is stable at a frequency only where |Ĥ| < 1.
		phiPath := filepath.Join(params, checkpoint.ParamFile("phi", t))
		if _, err := os.Stat(phiPath); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		ph, err := readKernel(phiPath, n)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("φ_%d: largest |Ĥ| in each band: %s\n", t, row(bandMax(spectrum(ph, n), n)))
	}
}

// readKernel reads an image-sized n×n kernel, or a k×k one (PC-k: odd k < n)
// placed in an n×n image: |DFT| does not depend on where the kernel sits, so
// its band gains are those of the k×k convolution at that image size.
func readKernel(path string, n int) ([]float64, error) {
	v, err := checkpoint.ReadNPY(path, -1)
	if err != nil {
		return nil, err
	}
	if len(v) == n*n {
		return v, nil
	}
	k := int(math.Round(math.Sqrt(float64(len(v)))))
	if k*k != len(v) || k%2 == 0 || k >= n {
		return nil, fmt.Errorf("%s holds %d values: neither an %d×%d kernel nor an odd k×k one (k < %d); another problem or parametrization", path, len(v), n, n, n)
	}
	img := make([]float64, n*n)
	for i := 0; i < k; i++ {
		copy(img[i*n:i*n+k], v[i*k:(i+1)*k])
	}
	return img, nil
}

func read(dir string, t, want int) []float64 {
	v, err := checkpoint.ReadNPY(filepath.Join(dir, fmt.Sprintf("x_t%04d.npy", t)), want)
	if err != nil {
		log.Fatal(err)
	}
	return v
}

// spectrum returns the 2-D DFT of the n×n image x (row-major).
func spectrum(x []float64, n int) []complex128 {
	f := fourier.NewCmplxFFT(n)
	c := make([]complex128, n*n)
	for i, v := range x {
		c[i] = complex(v, 0)
	}
	row, col := make([]complex128, n), make([]complex128, n)
	for r := 0; r < n; r++ {
		f.Coefficients(c[r*n:(r+1)*n], c[r*n:(r+1)*n])
	}
	for j := 0; j < n; j++ {
		for r := 0; r < n; r++ {
			row[r] = c[r*n+j]
		}
		f.Coefficients(col, row)
		for r := 0; r < n; r++ {
			c[r*n+j] = col[r]
		}
	}
	return c
}

// band returns the index of the radial band of frequency (i, j).
func band(i, j, n int) int {
	fi, fj := min(i, n-i), min(j, n-j)
	r := math.Hypot(float64(fi), float64(fj)) / float64(n/2)
	for k, e := range edges {
		if r <= e+1e-12 {
			return k
		}
	}
	return len(edges) - 1
}

func bandShares(c []complex128, n int) []float64 {
	s, tot := make([]float64, len(edges)), 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			p := cmplx.Abs(c[i*n+j])
			s[band(i, j, n)] += p * p
			tot += p * p
		}
	}
	for k := range s {
		s[k] /= tot
	}
	return s
}

func bandMax(c []complex128, n int) []float64 {
	s := make([]float64, len(edges))
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s[band(i, j, n)] = max(s[band(i, j, n)], cmplx.Abs(c[i*n+j]))
		}
	}
	return s
}

func row(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%8.3g", x)
	}
	return strings.Join(parts, " ")
}

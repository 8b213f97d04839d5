package report

import (
	"flag"
	"math"
	"path/filepath"
	"testing"

	"github.com/greedyl2o/greedyl2o/eval"
)

// galleryDir, when set (go test ./report -run Gallery -gallery DIR), is where
// TestGallery writes a report with every kind of figure and the methods the
// tool names, to look at.
var galleryDir = flag.String("gallery", "", "write a report with every figure kind into this directory")

// galleryMethods are the methods a report usually shows, in display order.
var galleryMethods = []string{"gd", "heavy-ball", "nag", "nag-restart", "lbfgs", "lbfgs(m=40)", "pgd", "silver", "bb",
	"greedy m-ps", "greedy m-pc", "greedy m-pc (safeguarded)", "unrolled m-pc", "banert"}

// galleryCurves builds one curve per name: linear convergence at a rate
// that depends on the position, with a min–max band, over T iterations;
// the fastest ones reach 1e-10. Seconds grow with the index.
func galleryCurves(names []string, T int) []*eval.Curve {
	var out []*eval.Curve
	for i, n := range names {
		rate := math.Pow(10, -(0.04 + 0.6*float64(i+1)/float64(len(names))*10/float64(T)))
		c := &eval.Curve{Method: n, PSNR: map[int][]float64{}}
		for t := 0; t <= T; t++ {
			m := math.Pow(rate, float64(t)) * (1 + 0.3*math.Sin(float64(t+i)/3))
			c.Iter = append(c.Iter, t)
			c.Seconds = append(c.Seconds, float64(t)*0.002*(1+float64(i%4)))
			c.Mean = append(c.Mean, m)
			c.Min = append(c.Min, m/4)
			c.Max = append(c.Max, m*3)
		}
		c.Optimality = make([][]float64, len(c.Mean))
		out = append(out, c)
	}
	return out
}

func TestGallery(t *testing.T) {
	if *galleryDir == "" {
		t.Skip("no -gallery directory")
	}
	names := append(append([]string(nil), galleryMethods...),
		"greedy m-pc [cuda:0 (NVIDIA H100 80GB HBM3)]", "my own method with a rather long descriptive name")
	r := testReport()
	r.Curves = galleryCurves(names, 100)
	r.Curves[10].Mean[90], r.Curves[10].Min[90] = -1e-12, -1e-12 // below f*: the † note
	r.Title = "A rather long report title that names the problem, the data, the noise level and the methods compared"
	r.Scalars.Method = "greedy m-ps trained on STL-10 with noise 0.01 and 25 training images, checkpoint run-2024-06-01"
	r.ReconstructionImage = "test function 1 of 10 of the STL-10 test set (unlabelled split, 96×96, noise σ = 0.01, seed 1)"
	img := r.Reconstructions[0]
	r.Reconstructions = nil
	for _, l := range []string{"ground truth\n ", "observation\n12.34 dB", "nag, t = 15\n23.45 dB", "greedy m-pc (safeguarded), t = 15\n25.67 dB",
		"lbfgs(m=40), t = 15\n24.00 dB", "minimiser\n26.00 dB", "unrolled m-pc [cuda:0], t = 15\n25.00 dB"} {
		p := img
		p.Label = l
		r.Reconstructions = append(r.Reconstructions, p)
	}
	if _, err := r.Write(*galleryDir); err != nil {
		t.Fatal(err)
	}
	// A small report: few methods with short names, a legend to the right,
	// and curves that stay near 1 (an axis of less than two decades).
	small := &Report{Curves: galleryCurves([]string{"gd", "nag", "lbfgs", "greedy m-pc", "greedy m-pc (safeguarded)"}, 30)}
	flat := galleryCurves([]string{"pgd", "bb"}, 30)
	for _, c := range flat {
		for i := range c.Mean {
			c.Mean[i], c.Min[i], c.Max[i] = 0.3+0.7/float64(i+1), 0.2+0.7/float64(i+1), 0.5+0.7/float64(i+1)
		}
	}
	if _, err := small.Write(filepath.Join(*galleryDir, "small")); err != nil {
		t.Fatal(err)
	}
	if _, err := (&Report{Curves: flat}).Write(filepath.Join(*galleryDir, "flat")); err != nil {
		t.Fatal(err)
	}
}

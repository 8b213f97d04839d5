package cmd

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
)

// TestReportLearnedFigures trains M-PS, M-PC and M-PC5 for a few steps on
// Problem 1 and on the small CT problem, evaluates them and runs report on
// each: the scalars in scalars.csv are the checkpoint's θt, φt with the
// heavy-ball reference of --hb-mu in closed form for the checkpoint's L;
// kernels.png (M-PC) and kernels_greedy-m-pc5.png are drawn, and their
// panels are G_θ's impulse response; index.html states L and μ.
func TestReportLearnedFigures(t *testing.T) {
	for _, problem := range []string{"deblur", "ct-small"} {
		t.Run(problem, func(t *testing.T) {
			dir := t.TempDir()
			ck := func(p string) string { return filepath.Join(dir, p) }
			var cmds [][]string
			for _, p := range []string{"m-ps", "m-pc", "m-pc5"} {
				cmds = append(cmds, []string{"train", "greedy", "--problem", problem, "--size", "12", "--n-train", "3", "--param", p, "--max-steps", "3", "--out", ck(p)})
			}
			params := ck("m-ps") + "," + ck("m-pc") + "," + ck("m-pc5")
			cmds = append(cmds,
				[]string{"eval", "--problem", problem, "--params", params, "--methods", "nag", "--n-test", "2", "--iters", "20", "--fstar-iters", "50", "--cache", dir, "--out", ck("eval")},
				[]string{"report", "--curves", filepath.Join(ck("eval"), "curves.json"), "--params", params, "--hb-mu", "1e-3", "--out", ck("report")})
			for _, args := range cmds {
				var o, e bytes.Buffer
				if code := Main(args, &o, &e); code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, e.String())
				}
				if strings.Contains(e.String(), "none of the checkpoints") {
					t.Errorf("%v: the evaluated checkpoints are said not to be: %s", args, e.String())
				}
			}
			if problem == "deblur" {
				// Parameters that were not evaluated are drawn with a note.
				var o, e bytes.Buffer
				for _, args := range [][]string{
					{"train", "greedy", "--size", "12", "--n-train", "2", "--param", "ps", "--max-steps", "1", "--out", ck("other")},
					{"report", "--curves", filepath.Join(ck("eval"), "curves.json"), "--params", ck("other"), "--out", ck("report-other")},
				} {
					if code := Main(args, &o, &e); code != 0 {
						t.Fatalf("%v: exit %d: %s", args, code, e.String())
					}
				}
				if !strings.Contains(e.String(), "--params "+ck("other")+" is none of the checkpoints") {
					t.Errorf("report with parameters the curves were not evaluated from: %s", e.String())
				}
			}
			if b, err := os.ReadFile(filepath.Join(ck("report"), "index.html")); err != nil || !strings.Contains(string(b), "drawn by l2o report --curves") {
				t.Errorf("index.html does not say which command drew it (%v)", err)
			}
			checkReportScalars(t, ck("m-ps"), ck("report"), 1e-3, "μ = 0.001 (--hb-mu)")
			for _, name := range []string{"kernels.png", "kernels_greedy-m-pc5.png", "optimality_seconds.png", "reconstructions.png"} {
				if _, err := os.Stat(filepath.Join(ck("report"), name)); err != nil {
					t.Error(err)
				}
			}
			for _, p := range []string{"m-pc", "m-pc5"} {
				checkKernelImpulse(t, ck(p))
			}
			if problem == "ct-small" {
				checkSavedSinogram(t, filepath.Join(ck("eval"), "recon"), ck("report"))
			}
		})
	}
}

// checkSavedSinogram checks that eval saved the first test function's
// sinogram in recon (12×12 ct-small: 90 angles × 17 bins): bitwise the y
// that ct-small simulates from the saved ground truth with the test set's
// noise (seed 1, offset 1), and that report's caption explains it.
func checkSavedSinogram(t *testing.T, recon, rep string) {
	t.Helper()
	truth, err := checkpoint.ReadNPY(filepath.Join(recon, "truth.npy"), 144)
	if err != nil {
		t.Fatal(err)
	}
	prob, err := problem.Lookup("ct-small", problem.Options{H: 12, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	o, err := prob.Instantiate(truth, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	y, err := checkpoint.ReadNPY(filepath.Join(recon, "observation.npy"), 90*17)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range y {
		if math.Float64bits(v) != math.Float64bits(o.Y[i]) {
			t.Fatalf("recon/observation.npy value %d = %v, the test function's y = %v", i, v, o.Y[i])
		}
	}
	b, _ := os.ReadFile(filepath.Join(rep, "index.html"))
	if page := html.UnescapeString(string(b)); !strings.Contains(page, "The observation y is a sinogram, not an image: its 90 rows are the projection angles") {
		t.Errorf("index.html does not explain the sinogram panel")
	}
}

// checkReportScalars compares scalars.csv and index.html with the
// checkpoint in ckpt and the closed-form heavy-ball values for its L and
// μ = mu, which index.html says was chosen as how.
func checkReportScalars(t *testing.T, ckpt, rep string, mu float64, how string) {
	t.Helper()
	l, man, err := learned.Load(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	sl, sm := math.Sqrt(man.L), math.Sqrt(mu)
	theta, phi := 4/((sl+sm)*(sl+sm)), math.Pow((sl-sm)/(sl+sm), 2)
	b, err := os.ReadFile(filepath.Join(rep, "scalars.csv"))
	if err != nil {
		t.Fatal(err)
	}
	ref := fmt.Sprintf("θ* = 4/(√L+√μ)² = %.4g, φ* = ((√L−√μ)/(√L+√μ))² = %.4g for L = %.4g, μ = %.4g", theta, phi, man.L, mu)
	if !strings.HasPrefix(string(b), "# heavy-ball reference "+ref) {
		t.Errorf("scalars.csv does not start with the reference %q:\n%.300s", ref, b)
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.Comment = '#'
	rows, err := r.ReadAll()
	if err != nil || len(rows) != 1+l.Steps {
		t.Fatalf("scalars.csv: %d rows (%v), want %d", len(rows), err, 1+l.Steps)
	}
	for k := 0; k < l.Steps; k++ {
		th, ph, _ := l.Params(k)
		gt, _ := strconv.ParseFloat(rows[1+k][1], 64)
		gp, _ := strconv.ParseFloat(rows[1+k][2], 64)
		if gt != th[0] || len(ph) == 1 && gp != ph[0] {
			t.Errorf("scalars.csv step %d: θ %g φ %g, checkpoint %v %v", k, gt, gp, th, ph)
		}
	}
	b, _ = os.ReadFile(filepath.Join(rep, "index.html"))
	page := html.UnescapeString(string(b))
	if !strings.Contains(page, ref) || !strings.Contains(page, how) {
		t.Errorf("index.html does not state the reference %q and where μ came from", ref)
	}
}

// checkKernelImpulse checks that the kernel panels of the checkpoint in
// ckpt are the impulse responses of G_θ and H_φ around the image centre.
func checkKernelImpulse(t *testing.T, ckpt string) {
	t.Helper()
	l, _, err := learned.Load(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	panels, cols, _, err := learnedKernels(l, 21)
	if err != nil || cols < 2 || len(panels) != 2*cols-1 {
		t.Fatalf("%s: %d panels in %d columns (%v)", l.Name(), len(panels), cols, err)
	}
	h, w := l.H, l.W
	delta := make([]float64, h*w)
	delta[(h/2)*w+w/2] = 1
	for i, p := range panels {
		term, step := l.Method.G, 0
		if i >= cols {
			term, step = l.Method.H, i-cols+1
		} else {
			fmt.Sscanf(p.Label[strings.LastIndex(p.Label, "=")+1:], "%d", &step)
		}
		theta, phi, _ := l.Params(step)
		v := theta
		if i >= cols {
			v = phi
		}
		b, err := term.(models.Binder).Bind(delta, 1, h, w)
		if err != nil {
			t.Fatal(err)
		}
		resp := make([]float64, h*w)
		if err := b.AddApply(resp, v, 1); err != nil {
			t.Fatal(err)
		}
		s := p.H / 2
		for a := 0; a < p.H; a++ {
			for c := 0; c < p.W; c++ {
				want := resp[(h/2+a-s)*w+w/2+c-s]
				if math.Abs(p.Pix[a*p.W+c]-want) > 1e-9*(1+math.Abs(want)) {
					t.Fatalf("%s panel %q pixel (%d, %d) = %g, impulse response %g", l.Name(), p.Label, a, c, p.Pix[a*p.W+c], want)
				}
			}
		}
	}
}

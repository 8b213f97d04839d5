package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/provenance"
)

// DefaultPSNRIter is the iteration whose PSNR the table shows when
// Report.PSNRIter is zero.
const DefaultPSNRIter = 15

// Report is everything one report shows. Only Curves is required.
type Report struct {
	// Title heads index.html.
	Title string
	// Curves are the methods' records on one test set, in display order.
	Curves []*eval.Curve
	// Tols are the optimality tolerances of the table; nil means
	// eval.DefaultTolerances.
	Tols []float64
	// PSNRIter is the iteration whose mean PSNR the table shows; 0 means
	// DefaultPSNRIter.
	PSNRIter int
	// Scalars, if not nil, are the learned step sizes and momenta of a
	// scalar learned optimizer.
	Scalars *ScalarSeries
	// Kernels are square crops of learned kernels (see KernelCrop), drawn
	// with a symmetric colour scale, KernelColumns per row (0: up to six).
	Kernels       []Panel
	KernelColumns int
	// KernelTitle heads kernels.png, KernelNote is its caption line in
	// index.html (kernel size, crop, convention) and KernelSource where the
	// kernels came from (listed with the provenance); all optional.
	KernelTitle, KernelNote, KernelSource string
	// KernelSets are further kernel figures, one per learned optimizer
	// (kernels_NAME.png), drawn like Kernels.
	KernelSets []KernelSet
	// Reconstructions are images drawn in grey with values clipped to
	// [0, 1] (or from Panel.Lo to Panel.Hi), up to six per row; one of
	// them must be the ground truth (a label starting with
	// GroundTruthLabel).
	Reconstructions []Panel
	// ReconstructionImage names the test image the reconstructions are of
	// ("test function 1 of 10, synthetic seed 1"); the figure and the page
	// show it.
	ReconstructionImage string
	// ReconstructionNote is a sentence added to the figure's caption in
	// index.html, for panels that are not images (a CT observation is a
	// sinogram: what its rows and columns are, and its grey scale).
	ReconstructionNote string
	// Notes are paragraphs of plain text shown under the title.
	Notes []string
	// Sources are lines saying where each figure's inputs came from beyond
	// the curves (checkpoints, the heavy-ball reference's L and μ):
	// index.html lists them with the provenance, scalars.csv starts with
	// them as comments.
	Sources []string
	// Provenance says where the report's curves came from (command, l2o
	// revision, data, seeds, checkpoints): index.html lists it, curves.json
	// keeps it and curves.csv starts with it as comments. Nil: not known.
	Provenance *provenance.Record
}

// GroundTruthLabel starts the label of the ground-truth panel among
// Report.Reconstructions.
const GroundTruthLabel = "ground truth"

// ScalarSeries holds the scalar parameters α_t (step size, θ_t of PS) and
// β_t (momentum, φ_t of M-PS) of a learned optimizer for t = 0, 1, …; the
// figures call them θ_t and φ_t, as the paper does.
type ScalarSeries struct {
	// Method names the learned optimizer.
	Method string
	// Alpha holds α_t; Beta holds β_t (nil or empty without momentum).
	Alpha, Beta []float64
	// AlphaStar and BetaStar are the heavy-ball reference values drawn as
	// horizontal lines; a value that is not positive is not drawn.
	AlphaStar, BetaStar float64
	// L and Mu are the curvature bounds the references were computed for
	// (HeavyBallReference); the figure, its caption and scalars.csv state
	// them when L > 0. Reference says where they came from ("L: the
	// checkpoint's training L; μ = L·10⁻⁴, assumed").
	L, Mu     float64
	Reference string
}

// Panel is one image of a grid: H×W values in row-major order.
type Panel struct {
	Label string
	H, W  int
	Pix   []float64
	// Lo and Hi, when Hi > Lo, are the values drawn black and white in a
	// grey panel (Report.Reconstructions), which then says so under its
	// label; otherwise values are clipped to [0, 1]. Data that are not
	// images (a sinogram) use them.
	Lo, Hi float64
}

func (p Panel) check(what string) error {
	if p.H < 1 || p.W < 1 || len(p.Pix) != p.H*p.W {
		return fmt.Errorf("%s %q: %d values for a %d×%d image: give H·W values", what, p.Label, len(p.Pix), p.H, p.W)
	}
	return nil
}

// KernelCrop returns the size×size centre crop of an h×w convolution kernel
// whose origin is pixel (0, 0), as after an fftshift: the crop's centre pixel
// (size/2, size/2) is the kernel's origin, and pixel (size/2+i, size/2+j)
// is kernel value (i mod h, j mod w). size must be odd and at most min(h, w).
func KernelCrop(label string, kernel []float64, h, w, size int) (Panel, error) {
	if h < 1 || w < 1 || len(kernel) != h*w {
		return Panel{}, fmt.Errorf("kernel %q: %d values for a %d×%d kernel", label, len(kernel), h, w)
	}
	if size < 1 || size%2 == 0 || size > h || size > w {
		return Panel{}, fmt.Errorf("kernel %q: crop size %d must be odd and at most the kernel size %d×%d", label, size, h, w)
	}
	c := size / 2
	pix := make([]float64, size*size)
	for a := 0; a < size; a++ {
		r := ((a-c)%h + h) % h
		for b := 0; b < size; b++ {
			s := ((b-c)%w + w) % w
			pix[a*size+b] = kernel[r*w+s]
		}
	}
	return Panel{Label: label, H: size, W: size, Pix: pix}, nil
}

// Headline is one row of the table: when a method reached each tolerance
// and its mean PSNR at one iteration.
type Headline struct {
	Method string
	// Iters[i] and Seconds[i] say when the mean optimality first reached
	// Tols[i]: −1 and NaN if never.
	Iters   []int
	Seconds []float64
	// PSNR is the mean over the test set of the PSNR at iteration PSNRIter
	// (NaN if not recorded).
	PSNR float64
	// Final is the mean optimality at the last iteration.
	Final float64
	// DivergedAt is the iteration at which the method diverged (0: it did
	// not; eval.Curve.DivergedAt).
	DivergedAt int
}

// Headlines computes the table rows of the curves for the tolerances tols
// (nil: eval.DefaultTolerances) and PSNR at iteration psnrIter.
func Headlines(curves []*eval.Curve, tols []float64, psnrIter int) []Headline {
	if tols == nil {
		tols = eval.DefaultTolerances
	}
	out := make([]Headline, 0, len(curves))
	for _, c := range curves {
		h := Headline{Method: c.Method, PSNR: math.NaN(), Final: math.NaN(), DivergedAt: c.DivergedAt}
		for _, tol := range tols {
			h.Iters = append(h.Iters, c.ItersTo(tol))
			h.Seconds = append(h.Seconds, c.SecondsTo(tol))
		}
		if p, ok := c.PSNR[psnrIter]; ok && len(p) > 0 {
			var s float64
			for _, v := range p {
				s += v
			}
			h.PSNR = s / float64(len(p))
		}
		if n := len(c.Mean); n > 0 {
			h.Final = c.Mean[n-1]
		}
		out = append(out, h)
	}
	return out
}

// The table's number formats, shared by WriteTable and index.html.

// FormatIters formats an iteration count, "—" for −1 (never reached).
func FormatIters(it int) string {
	if it < 0 {
		return "—"
	}
	return strconv.Itoa(it)
}

// FormatSeconds formats seconds with three significant digits, "—" for NaN.
func FormatSeconds(s float64) string {
	if math.IsNaN(s) {
		return "—"
	}
	return strconv.FormatFloat(s, 'g', 3, 64)
}

// FormatPSNR formats a PSNR in dB with two decimals, "—" for NaN.
func FormatPSNR(p float64) string {
	if math.IsNaN(p) {
		return "—"
	}
	return strconv.FormatFloat(p, 'f', 2, 64)
}

// FormatOptimality formats an optimality value with two significant digits.
func FormatOptimality(v float64) string {
	return strconv.FormatFloat(v, 'e', 1, 64)
}

// tableHeader returns the column names of the table.
func tableHeader(tols []float64, psnrIter int) []string {
	cols := []string{"method"}
	for _, tol := range tols {
		cols = append(cols, "iters to "+formatTol(tol), "seconds to "+formatTol(tol))
	}
	return append(cols, fmt.Sprintf("PSNR at %d (dB)", psnrIter), "final optimality")
}

// tableRow returns the formatted cells of one row.
func tableRow(h Headline) []string {
	cells := []string{h.Method}
	for i := range h.Iters {
		cells = append(cells, FormatIters(h.Iters[i]), FormatSeconds(h.Seconds[i]))
	}
	final := FormatOptimality(h.Final)
	if h.DivergedAt > 0 {
		final = fmt.Sprintf("diverged at iteration %d", h.DivergedAt)
	}
	return append(cells, FormatPSNR(h.PSNR), final)
}

func formatTol(tol float64) string {
	return strings.Replace(strconv.FormatFloat(tol, 'e', -1, 64), "e-0", "e-", 1)
}

// WriteTable prints the headline numbers of the curves as an aligned text
// table, with the same formatting as index.html.
func WriteTable(w io.Writer, curves []*eval.Curve, tols []float64, psnrIter int) error {
	if tols == nil {
		tols = eval.DefaultTolerances
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(tableHeader(tols, psnrIter), "\t")+"\t")
	for _, h := range Headlines(curves, tols, psnrIter) {
		fmt.Fprintln(tw, strings.Join(tableRow(h), "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("report: writing table: %w", err)
	}
	return nil
}

// Write writes the report's files into dir (created if needed) and returns
// the path of index.html.
func (r *Report) Write(dir string) (index string, err error) {
	if len(r.Curves) == 0 {
		return "", fmt.Errorf("report: no curves to report")
	}
	for i, c := range r.Curves {
		if c == nil {
			return "", fmt.Errorf("report: curve %d is nil", i)
		}
		n := len(c.Iter)
		if n == 0 || len(c.Seconds) != n || len(c.Mean) != n || len(c.Min) != n || len(c.Max) != n {
			return "", fmt.Errorf("report: curve %q has %d iterations and %d, %d, %d, %d seconds, mean, min and max values: need equal, non-zero lengths",
				c.Method, n, len(c.Seconds), len(c.Mean), len(c.Min), len(c.Max))
		}
	}
	if err := r.checkKernels(); err != nil {
		return "", err
	}
	truth := false
	for _, p := range r.Reconstructions {
		if err := p.check("reconstruction"); err != nil {
			return "", fmt.Errorf("report: %w", err)
		}
		truth = truth || strings.HasPrefix(strings.ToLower(p.Label), GroundTruthLabel)
	}
	if len(r.Reconstructions) > 0 && !truth {
		return "", fmt.Errorf("report: the reconstructions have no ground-truth panel (a label starting with %q) to compare them with", GroundTruthLabel)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	page := r.page()

	if err := writeFile(filepath.Join(dir, "curves.csv"), func(w io.Writer) error { return eval.WriteCSVWith(w, r.Curves, r.provenanceLines()) }); err != nil {
		return "", err
	}
	if err := writeFile(filepath.Join(dir, "curves.json"), func(w io.Writer) error { return eval.WriteJSONWith(w, r.Curves, r.Provenance) }); err != nil {
		return "", err
	}
	for _, x := range []struct {
		name, axis string
		seconds    bool
	}{{"optimality_iter", "iteration t", false}, {"optimality_seconds", "wall-clock seconds", true}} {
		p, err := optimalityPlot(r.Curves, x.seconds, x.axis)
		if err != nil {
			return "", err
		}
		if err := savePlot(p, dir, x.name, 16, 10); err != nil {
			return "", err
		}
	}
	if s := r.Scalars; s != nil && len(s.Alpha) > 0 {
		p, err := scalarPlot(s)
		if err != nil {
			return "", err
		}
		if err := savePlot(p, dir, "scalars", 14, 8); err != nil {
			return "", err
		}
		if err := writeFile(filepath.Join(dir, "scalars.csv"), func(w io.Writer) error { return writeScalarsCSV(w, s, r.scalarComments()) }); err != nil {
			return "", err
		}
	}
	if err := r.writeKernels(dir); err != nil {
		return "", err
	}
	if len(r.Reconstructions) > 0 {
		title := "Reconstructions"
		if r.ReconstructionImage != "" {
			title += " of " + r.ReconstructionImage
		}
		if err := saveGrid(filepath.Join(dir, "reconstructions.png"), title, r.Reconstructions, 0, greyPanel); err != nil {
			return "", err
		}
	}
	index = filepath.Join(dir, "index.html")
	if err := writeFile(index, func(w io.Writer) error { return indexTemplate.Execute(w, page) }); err != nil {
		return "", err
	}
	return index, nil
}

// scalarComments are the comment lines of scalars.csv: the heavy-ball
// reference, the figures' sources and the curves' provenance.
func (r *Report) scalarComments() []string {
	var out []string
	if l := r.Scalars.referenceLine(); l != "" {
		out = append(out, l)
	}
	out = append(out, r.Sources...)
	return append(out, r.provenanceLines()...)
}

// writeScalarsCSV writes '#' comment lines, then t,theta,phi rows (phi
// empty without momentum); read it with pandas' comment='#'.
func writeScalarsCSV(w io.Writer, s *ScalarSeries, comments []string) error {
	for _, c := range comments {
		if _, err := fmt.Fprintf(w, "# %s\n", strings.ReplaceAll(c, "\n", " ")); err != nil {
			return err
		}
	}
	cw := csv.NewWriter(w)
	cw.Write([]string{"t", "theta", "phi"})
	for t, a := range s.Alpha {
		b := ""
		if t < len(s.Beta) {
			b = strconv.FormatFloat(s.Beta[t], 'g', -1, 64)
		}
		cw.Write([]string{strconv.Itoa(t), strconv.FormatFloat(a, 'g', -1, 64), b})
	}
	cw.Flush()
	return cw.Error()
}

// writeFile writes path atomically with what write writes
// (checkpoint.WriteAtomic: never a truncated file under its name), wrapping
// errors with the path.
func writeFile(path string, write func(io.Writer) error) error {
	if err := checkpoint.WriteAtomic(path, write); err != nil {
		return fmt.Errorf("report: writing %s: %w", path, err)
	}
	return nil
}

// provenanceLines are the lines of r.Provenance (nil when unknown).
func (r *Report) provenanceLines() []string {
	if r.Provenance == nil {
		return nil
	}
	return r.Provenance.Lines()
}

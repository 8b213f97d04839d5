package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/provenance"
	"github.com/greedyl2o/greedyl2o/report"
	"gonum.org/v1/gonum/floats"
)

// reconAtFlag parses "15,50,final" into iterations, final as −1.
func reconAtFlag(list []string, flag string) ([]int, error) {
	var at []int
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" || s == "none" {
			continue
		}
		if s == "final" || s == "last" {
			at = append(at, -1)
			continue
		}
		t, err := strconv.Atoi(s)
		if err != nil || t < 0 {
			return nil, usagef("%s %q: give iterations ≥ 0 or final, e.g. 15,50,final", flag, s)
		}
		at = append(at, t)
	}
	return at, nil
}

// reconImage is one saved reconstruction (recon/index.json).
type reconImage struct {
	Label  string  `json:"label"`
	Method string  `json:"method,omitempty"`
	Iter   int     `json:"iter,omitempty"`
	File   string  `json:"file"` // without extension: File.npy and File.png
	PSNR   float64 `json:"psnr,omitempty"`
	SSIM   float64 `json:"ssim,omitempty"`
	// Shape is the saved array's rows and columns when they are not the
	// index's height and width (CT's observation: angles × detector bins),
	// Axes what those rows and columns are, and Grey the values drawn
	// black and white in its PNG and report panel when not [0, 1] (values
	// clipped): a sinogram's smallest and largest value.
	Shape []int     `json:"shape,omitempty"`
	Axes  string    `json:"axes,omitempty"`
	Grey  []float64 `json:"grey,omitempty"`
}

// dims returns the rows and columns of im's array in an index of h×w
// images.
func (im reconImage) dims(h, w int) (int, int) {
	if len(im.Shape) == 2 {
		return im.Shape[0], im.Shape[1]
	}
	return h, w
}

// grey returns the values im's PNG and panel draw black and white.
func (im reconImage) grey() (lo, hi float64) {
	if len(im.Grey) == 2 {
		return im.Grey[0], im.Grey[1]
	}
	return 0, 1
}

// reconIndex lists the reconstructions of one test image.
type reconIndex struct {
	Image  string       `json:"image"` // the test image's name
	H      int          `json:"height"`
	W      int          `json:"width"`
	Images []reconImage `json:"images"`
}

// reconWriter keeps eval's snapshots of the first test function and writes
// them, with the ground truth, the observation and a minimiser, to recon/.
type reconWriter struct {
	one   *problem.Objective
	image string
	shots []reconImage
	pix   map[string][]float64
}

func newReconWriter(test *problem.Objective, image string) (*reconWriter, error) {
	one, err := test.Subset([]int{0})
	if err != nil {
		return nil, err
	}
	return &reconWriter{one: one, image: image, pix: map[string][]float64{}}, nil
}

// take is eval.Options.Snapshot.
func (r *reconWriter) take(method string, t int, x []float64) {
	file := fmt.Sprintf("%s_t%04d", slug(method), t)
	r.shots = append(r.shots, reconImage{Label: fmt.Sprintf("%s, t = %d", method, t), Method: method, Iter: t, File: file})
	r.pix[file] = x
}

// write saves every image as .npy and .png in dir with recon/index.json;
// the minimiser is fstarMethod's iterate after iters iterations.
func (r *reconWriter) write(dir, fstarMethod string, iters int) error {
	o := r.one
	var list []reconImage
	if o.Truth != nil {
		list = append(list, reconImage{Label: "ground truth", File: "truth"})
		r.pix["truth"] = o.Truth
	}
	if obs, ok := reconObservation(o); ok {
		list = append(list, obs)
		r.pix[obs.File] = o.Y
	}
	list = append(list, r.shots...)
	m, err := baselines.ParseMethod(fstarMethod)
	if err != nil {
		return asUsage(err)
	}
	x, err := runIters(m, o, iters)
	if err != nil {
		return fmt.Errorf("reconstructions: the minimiser: %w", err)
	}
	list = append(list, reconImage{Label: fmt.Sprintf("minimiser (%s, t = %d)", fstarMethod, iters), File: "minimiser"})
	r.pix["minimiser"] = x
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := range list {
		im := &list[i]
		if o.Truth != nil && im.File != "truth" && im.Shape == nil {
			im.PSNR, im.SSIM = eval.PSNR(r.pix[im.File], o.Truth), eval.SSIM(r.pix[im.File], o.Truth, o.H, o.W)
		}
		h, w := im.dims(o.H, o.W)
		lo, hi := im.grey()
		if err := writeGreyFiles(filepath.Join(dir, im.File), r.pix[im.File], h, w, lo, hi); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(reconIndex{Image: r.image, H: o.H, W: o.W, Images: list}, "", "  ")
	if err != nil {
		return err
	}
	return checkpoint.WriteFileAtomic(filepath.Join(dir, "index.json"), append(b, '\n'))
}

// reconObservation describes the observation y of o's one function: an
// image when y has the image's size (deblurring); for the ray transform
// (CT) the sinogram, with its shape (angles × detector bins), what its rows
// and columns are, and its range as the grey scale; false for other data,
// which are not saved.
func reconObservation(o *problem.Objective) (reconImage, bool) {
	im := reconImage{Label: "observation y", File: "observation"}
	if len(o.Y) == o.ImageLen() {
		return im, true
	}
	rt := rayTransformOf(o.A)
	if rt == nil || len(o.Y) == 0 {
		return im, false
	}
	g := rt.P.Geometry()
	if g.Angles*g.Det != len(o.Y) {
		return im, false
	}
	deg := func(a int) float64 { return g.Angle(a) * 180 / math.Pi }
	im.Label = fmt.Sprintf("observation y: sinogram (rows: %d angles, columns: %d detector bins)", g.Angles, g.Det)
	im.Shape = []int{g.Angles, g.Det}
	im.Axes = fmt.Sprintf("a sinogram, not an image: its %d rows are the projection angles θ = %.4g°, %.4g°, …, %.4g° (top to bottom), "+
		"its %d columns the detector bins, 1 pixel wide, at s = %g … %g pixels from the rotation axis (left to right)",
		g.Angles, deg(0), deg(1), deg(g.Angles-1), g.Det, g.BinCentre(0), g.BinCentre(g.Det-1))
	if lo, hi := floats.Min(o.Y), floats.Max(o.Y); hi > lo {
		im.Grey = []float64{lo, hi}
	}
	return im, true
}

// rayTransformOf returns the ray transform under a (scaled) operator, or
// nil.
func rayTransformOf(a problem.Operator) *problem.RayTransform {
	for {
		switch op := a.(type) {
		case *problem.RayTransform:
			return op
		case *problem.Scaled:
			a = op.Op
		default:
			return nil
		}
	}
}

// runIters runs m for iters iterations on o and returns its last iterate.
func runIters(m baselines.Method, o *problem.Objective, iters int) ([]float64, error) {
	it, err := m.Start(o)
	if err != nil {
		return nil, err
	}
	for t := 0; t < iters; t++ {
		if err := it.Next(); err != nil {
			return nil, fmt.Errorf("%s, iteration %d: %w", m.Name(), t+1, err)
		}
	}
	return append([]float64(nil), it.X()...), nil
}

// readRecon reads recon/index.json of an eval directory (nil when absent).
func readRecon(dir string) (*reconIndex, map[string][]float64, error) {
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if os.IsNotExist(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var idx reconIndex
	if err := json.Unmarshal(b, &idx); err != nil {
		return nil, nil, fmt.Errorf("%s/index.json: %w", dir, err)
	}
	pix := map[string][]float64{}
	for _, im := range idx.Images {
		h, w := im.dims(idx.H, idx.W)
		if len(im.Shape) != 0 && (len(im.Shape) != 2 || h < 1 || w < 1) {
			return nil, nil, fmt.Errorf("%s/index.json: %s has shape %v: want [rows, columns]", dir, im.File, im.Shape)
		}
		if lo, hi := im.grey(); len(im.Grey) != 0 && (len(im.Grey) != 2 || !(hi > lo)) {
			return nil, nil, fmt.Errorf("%s/index.json: %s has grey range %v: want [black, white] with black < white", dir, im.File, im.Grey)
		}
		v, err := checkpoint.ReadNPY(filepath.Join(dir, im.File+".npy"), h*w)
		if err != nil {
			return nil, nil, err
		}
		pix[im.File] = v
	}
	return &idx, pix, nil
}

// slug turns a method's name into a file name.
func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.':
			b.WriteRune(r)
		default:
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "-") {
				b.WriteByte('-')
			}
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// writeImageFiles writes x (h×w, row-major) as base.npy (float64, shape
// (h, w)) and base.png (grey, values clipped to [0, 1]).
func writeImageFiles(base string, x []float64, h, w int) error {
	return writeGreyFiles(base, x, h, w, 0, 1)
}

// writeGreyFiles writes x (h×w, row-major) as base.npy (float64, shape
// (h, w)) and base.png (grey from lo, black, to hi, white; clipped).
func writeGreyFiles(base string, x []float64, h, w int, lo, hi float64) error {
	if err := checkpoint.WriteNPYShape(base+".npy", x, h, w); err != nil {
		return err
	}
	var buf bytes.Buffer
	im := &data.Image{H: h, W: w, Pix: make([]float64, len(x))}
	for i, v := range x {
		im.Pix[i] = math.Min(1, math.Max(0, (v-lo)/(hi-lo)))
	}
	if err := data.WritePNG(&buf, im); err != nil {
		return err
	}
	return checkpoint.WriteFileAtomic(base+".png", buf.Bytes())
}

// sortedKeys returns the keys of m in increasing order.
func sortedKeys(m map[int][]float64) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

// evalRecon sets eval's snapshots of the first test function at the
// iterations of the --recon-at list; nil when the list is empty.
func evalRecon(opts *eval.Options, test *problem.Objective, rec *provenance.Test, list []string) (*reconWriter, error) {
	at, err := reconAtFlag(list, "--recon-at")
	if err != nil || len(at) == 0 {
		return nil, err
	}
	name := "test function 0"
	if rec != nil && len(rec.Images) > 0 {
		name = rec.Images[0].Name
	}
	r, err := newReconWriter(test, name)
	if err != nil {
		return nil, err
	}
	opts.Snapshot, opts.SnapshotAt = r.take, at
	return r, nil
}

// applySaver writes apply's iterates at chosen iterations: x_tNNNN.npy
// (shape N×H×W), one PNG per function and saved.json with their PSNR and
// SSIM against the ground truth when it exists.
type applySaver struct {
	dir   string
	o     *problem.Objective
	at    map[int]bool
	final bool
	saved []appliedIterate
	names []string // the test images' names
	// lastIter is the iteration last saved (−1: none).
	lastIter int
}

// appliedIterate is one saved iterate of apply (saved.json).
type appliedIterate struct {
	Iter  int       `json:"iter"`
	File  string    `json:"file"`
	PSNR  []float64 `json:"psnr,omitempty"`
	SSIM  []float64 `json:"ssim,omitempty"`
	Names []string  `json:"images,omitempty"`
}

func newApplySaver(dir string, o *problem.Objective, list []string) (*applySaver, error) {
	at, err := reconAtFlag(list, "--save-at")
	if err != nil {
		return nil, err
	}
	s := &applySaver{dir: dir, o: o, at: map[int]bool{}, lastIter: -1}
	for _, t := range at {
		if t < 0 {
			s.final = true
		} else {
			s.at[t] = true
		}
	}
	return s, nil
}

// wants reports whether save writes x_t: when t was asked for, or when
// last and final (unless x_t was just written).
func (s *applySaver) wants(t int, last bool) bool {
	return s != nil && (s.at[t] || last && s.final) && !(last && s.at[t] && s.lastIter == t)
}

// skip records that x_t was saved elsewhere (by rank 0 under mpirun).
func (s *applySaver) skip(t int) { s.lastIter = t }

// count is the number of iterates saved.
func (s *applySaver) count() int { return len(s.saved) }

// save writes x_t when t was asked for (or always when last and final).
func (s *applySaver) save(t int, x []float64, last bool) error {
	if !s.wants(t, last) {
		return nil
	}
	o, hw := s.o, s.o.ImageLen()
	rec := appliedIterate{Iter: t, File: fmt.Sprintf("x_t%04d", t), Names: s.names}
	if err := checkpoint.WriteNPYShape(filepath.Join(s.dir, rec.File+".npy"), x, o.N, o.H, o.W); err != nil {
		return err
	}
	for k := range o.N {
		xk := x[k*hw : (k+1)*hw]
		if err := writeImageFiles(filepath.Join(s.dir, fmt.Sprintf("%s_f%02d", rec.File, k)), xk, o.H, o.W); err != nil {
			return err
		}
		os.Remove(filepath.Join(s.dir, fmt.Sprintf("%s_f%02d.npy", rec.File, k))) // the stack holds the values
		if o.Truth != nil {
			tk := o.Truth[k*hw : (k+1)*hw]
			rec.PSNR, rec.SSIM = append(rec.PSNR, eval.PSNR(xk, tk)), append(rec.SSIM, eval.SSIM(xk, tk, o.H, o.W))
		}
	}
	s.saved, s.lastIter = append(s.saved, rec), t
	b, err := json.MarshalIndent(s.saved, "", "  ")
	if err != nil {
		return err
	}
	return checkpoint.WriteFileAtomic(filepath.Join(s.dir, "saved.json"), append(b, '\n'))
}

// reportRecon adds the paper's reconstruction figure to rep from an eval's
// recon/ folder (nothing when it has none): ground truth, observation, NAG
// and every learned method at iteration t, and the minimiser.
func reportRecon(rep *report.Report, dir string, t int) error {
	idx, pix, err := readRecon(dir)
	if err != nil || idx == nil {
		return err
	}
	for _, im := range idx.Images {
		shown := im.Method == "" || (im.Iter == t && (im.Method == "nag" || isLearnedName(im.Method)))
		if !shown {
			continue
		}
		label := im.Label
		if im.PSNR != 0 {
			label = fmt.Sprintf("%s\n%s dB, SSIM %.3f", label, report.FormatPSNR(im.PSNR), im.SSIM)
		}
		p := report.Panel{Label: label, Pix: pix[im.File]}
		p.H, p.W = im.dims(idx.H, idx.W)
		if len(im.Grey) == 2 {
			p.Lo, p.Hi = im.grey()
		}
		rep.Reconstructions = append(rep.Reconstructions, p)
		if im.Axes != "" {
			rep.ReconstructionNote = fmt.Sprintf("The %s is %s; drawn from its smallest value %.3g (black) to its largest %.3g (white), not clipped.",
				strings.SplitN(im.Label, ":", 2)[0], im.Axes, p.Lo, p.Hi)
		}
	}
	rep.ReconstructionImage = idx.Image
	return nil
}

// isLearnedName reports whether a curve's method is a learned optimizer.
func isLearnedName(m string) bool {
	for _, p := range []string{"greedy", "unrolled", "unroll", "banert"} {
		if strings.HasPrefix(strings.ToLower(m), p) {
			return true
		}
	}
	return false
}

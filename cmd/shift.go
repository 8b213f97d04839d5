package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/provenance"
)

// shiftSpec is one out-of-distribution setting of eval --shift: the test
// functions of the trained problem with one thing changed. The learned
// parameters are applied unchanged.
type shiftSpec struct {
	Label string  // as written, e.g. "sigma=2"
	Sigma float64 // blur width σ (deblurring problems)
	Noise float64 // noise standard deviation
	// Angles is the number of projection angles (CT problems; 0:
	// unchanged): a sparser or denser scan.
	Angles int
	Size   int // image size (size-free parametrizations only)
	// Images is another image source: "phantoms" (built-in CT-like
	// ellipse phantoms), "synthetic", or any --data source (e.g. a folder
	// of CT slices), resampled to the image size (data.Resize).
	Images string
	// AlphaScale multiplies the regularizer's weight α (0: unchanged), and
	// with it L: the paper's reg-plot-all tests parameters trained at α on
	// 5α and 10α.
	AlphaScale float64
}

// allShifts is what --shift all stands for: issue 17's list, with the
// built-in CT-like phantoms as the other images (pass images=DIR for real
// CT slices).
var allShifts = []string{"sigma=1", "sigma=2", "noise=0.005", "noise=0.02", "size=64", "size=128", "images=phantoms"}

// parseShifts reads the values of --shift.
func parseShifts(list []string) ([]shiftSpec, error) {
	var specs []shiftSpec
	for _, item := range list {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if item == "all" {
			more, err := parseShifts(allShifts)
			if err != nil {
				return nil, err
			}
			specs = append(specs, more...)
			continue
		}
		key, val, ok := strings.Cut(item, "=")
		if !ok || val == "" {
			return nil, usagef("--shift %q: write KEY=VALUE with KEY one of alpha, sigma, noise, angles, size, images (e.g. alpha=10,sigma=2,noise=0.02,size=64,images=phantoms), or all", item)
		}
		s := shiftSpec{Label: item}
		switch key {
		case "alpha":
			v, err := strconv.ParseFloat(val, 64)
			if err != nil || !(v > 0) || math.IsInf(v, 0) {
				return nil, usagef("--shift %s: alpha is a positive factor of the trained α (alpha=10: ten times α)", item)
			}
			s.AlphaScale = v
		case "sigma", "noise":
			v, err := strconv.ParseFloat(val, 64)
			if err != nil || !(v > 0) || math.IsInf(v, 0) {
				return nil, usagef("--shift %s: %s must be a positive number", item, key)
			}
			if key == "sigma" {
				s.Sigma = v
			} else {
				s.Noise = v
			}
		case "angles":
			v, err := strconv.Atoi(val)
			if err != nil || v < 1 || v > 4096 {
				return nil, usagef("--shift %s: angles must be an integer in [1, 4096] (the CT problems' number of projection angles)", item)
			}
			s.Angles = v
		case "size":
			v, err := strconv.Atoi(val)
			if err != nil || v < 8 || v > 4096 {
				return nil, usagef("--shift %s: size must be an integer in [8, 4096]", item)
			}
			s.Size = v
		case "images":
			if val != "phantoms" && val != "synthetic" {
				if _, err := os.Stat(val); err != nil {
					return nil, usagef("--shift %s: images are phantoms, synthetic or a data folder: %v", item, err)
				}
			}
			s.Images = val
		default:
			return nil, usagef("--shift %s: unknown key %q; use alpha, sigma, noise, angles, size or images", item, key)
		}
		specs = append(specs, s)
	}
	return specs, nil
}

// shiftOptions are the problem options of pf's problem under the shift
// (before α is scaled).
func shiftOptions(pf *problemFlags, sh shiftSpec) problem.Options {
	size := pf.Size
	if sh.Size > 0 {
		size = sh.Size
	}
	opt := problem.Options{H: size, Seed: uint64(pf.Seed), WCRRWeights: pf.WCRRWeights, BlurBoundary: pf.BlurBoundary,
		Alpha: pf.Alpha, BlurSigma: sh.Sigma, Noise: sh.Noise}
	if sh.Angles > 0 {
		opt.Angles = []int{sh.Angles}
	}
	return opt
}

// checkShifts refuses, before anything is evaluated, a shift that pf's
// problem does not have (angles of a blur, a blur width of a scan).
// The problem is built at 8×8 (unless the shift is one of size): what is
// checked does not depend on the size, and no operator of the test size is
// built and normed before the data.
func checkShifts(pf *problemFlags, specs []shiftSpec) error {
	for _, sh := range specs {
		opt := shiftOptions(pf, sh)
		if sh.Size == 0 {
			opt.H, opt.W = 8, 8
		}
		if _, err := problem.Lookup(pf.Problem, opt); err != nil {
			return usagef("--shift %s: %v", sh.Label, err)
		}
	}
	return nil
}

// shiftedTest builds the test functions of pf's problem under the shift:
// same problem, conventions, α, seed and number of functions; the test
// images of --data (or those of the shift's source), resampled when the
// shift changes the size or the source's size differs.
func shiftedTest(pf *problemFlags, sh shiftSpec, exclude map[string]bool) (*problem.Objective, []data.Ref, error) {
	opt := shiftOptions(pf, sh)
	prob, err := problem.Lookup(pf.Problem, opt)
	if err != nil {
		return nil, nil, usagef("--shift %s: %v", sh.Label, err)
	}
	if sh.AlphaScale > 0 {
		opt.Alpha = prob.Alpha * sh.AlphaScale
		if prob, err = problem.Lookup(pf.Problem, opt); err != nil {
			return nil, nil, usagef("--shift %s: %v", sh.Label, err)
		}
	}
	source, nTrain := pf.Data, pf.NTrain
	if sh.Images != "" {
		source, nTrain = sh.Images, 1
	}
	seed := pf.Seed + 1_000_003 // as problemFlags.build draws the test images
	var imgs []*data.Image
	var refs []data.Ref
	generated := func(kind string) {
		refs = data.Refs(imgs, func(k int) string { return fmt.Sprintf("%s(seed %d)#%d", kind, seed, k) })
	}
	switch {
	case source == "phantoms" || ((source == "" || source == "synthetic") && strings.HasPrefix(pf.Problem, "ct")):
		imgs = data.Phantoms(pf.NTest, prob.H, seed)
		generated("phantoms")
	case source == "" || source == "synthetic":
		imgs = data.Synthetic(pf.NTest, prob.H, prob.W, seed)
		generated("synthetic")
	default:
		// The main evaluation's request: other data than the training's
		// gives its test images only (problemFlags.testOnly).
		req := data.Request{NTrain: nTrain, NTest: pf.NTest, Seed: pf.Seed, Exclude: exclude, TestOnly: pf.testOnly && sh.Images == ""}
		sel, err := data.Select(source, req)
		if err != nil {
			return nil, nil, usagef("--shift %s: images from %s: %v", sh.Label, source, err)
		}
		refs = sel.TestRefs
		test := sel.Test
		for i, im := range test {
			if test[i], err = data.Resize(im, prob.H, prob.W); err != nil {
				return nil, nil, usagef("--shift %s: image %d of %s: %v", sh.Label, i, source, err)
			}
		}
		imgs = test
	}
	if len(imgs) != pf.NTest {
		return nil, nil, usagef("--shift %s: %d test images, want --n-test %d", sh.Label, len(imgs), pf.NTest)
	}
	n, h, w, pix, err := data.Stack(imgs)
	if err != nil {
		return nil, nil, usagef("--shift %s: %v", sh.Label, err)
	}
	if h != prob.H || w != prob.W {
		return nil, nil, usagef("--shift %s: images are %d×%d but the problem needs %d×%d", sh.Label, h, w, prob.H, prob.W)
	}
	if bad := data.Overlap(refsOf(exclude), refs); len(bad) > 0 {
		return nil, nil, usagef("--shift %s: the test image %s equals an image the checkpoints were trained on; choose another --seed", sh.Label, bad[0].Name)
	}
	o, err := prob.Instantiate(pix, n, 1)
	return o, refs, err
}

// shiftMethods are the methods of one shifted evaluation: each learned
// optimizer (resized for a size shift when its parametrization is size-free,
// otherwise left out with a reason) and its safeguarded copies, then the
// baselines.
func shiftMethods(infos []*LearnedInfo, rules []string, base []baselines.Method, h, w int) (ms []baselines.Method, skipped []string) {
	for _, info := range infos {
		in := *info
		if info.H > 0 && (info.H != h || info.W != w) {
			l, ok := info.Method.(*learned.Optimizer)
			if !ok {
				skipped = append(skipped, fmt.Sprintf("%s: runs only at the %d×%d size it was trained on", info.Method.Name(), info.H, info.W))
				continue
			}
			r, err := l.Resized(h, w)
			if err != nil {
				skipped = append(skipped, err.Error())
				continue
			}
			in.Method, in.H, in.W = r, h, w
		}
		ms = append(ms, in.Method)
		for _, rule := range rules {
			if g, ok := safeguardedBy(&in, rule); ok {
				ms = append(ms, g)
			}
		}
	}
	return append(ms, base...), skipped
}

// shiftResult is one block of the out-of-distribution table.
type shiftResult struct {
	Label   string
	Curves  []*eval.Curve
	Skipped []string
	// Notes say L against 2·L_train and each learned method's certificate
	// at that L.
	Notes []string
}

// runShifts evaluates methods under every shift, writes each shift's curves
// to out/shift/LABEL/ and the table to out/shift.md, and prints it.
func runShifts(env *Env, mt *meter, pf *problemFlags, exclude map[string]bool, prov *provenance.Record, specs []shiftSpec, infos []*LearnedInfo, rules []string, base []baselines.Method,
	inDist []*eval.Curve, iters, fstarIters int, fstarMethod, cache, out string, at []int) error {
	results := []shiftResult{{Label: "none (trained setting)", Curves: inDist}}
	if len(inDist) > 0 && pf.Problem != "" {
		if base, _, err := shiftedTest(pf, shiftSpec{Label: "none"}, exclude); err == nil {
			results[0].Notes = shiftNotes(infos, base.L, base.A)
		}
	}
	for _, sh := range specs {
		test, refs, err := shiftedTest(pf, sh, exclude)
		if err != nil {
			return err
		}
		ms, skipped := shiftMethods(infos, rules, base, test.H, test.W)
		fstar, err := optimumProgress(env, mt, test, fstarMethod, fstarIters, cache)
		if err != nil {
			return fmt.Errorf("--shift %s: f*: %w", sh.Label, err)
		}
		curves, err := eval.Run(test, fstar, ms, eval.Options{Iters: iters, Progress: evalProgress(mt, ms, iters, test.N)})
		if err != nil {
			return fmt.Errorf("--shift %s: %w", sh.Label, err)
		}
		for _, c := range curves {
			if c.Setting == nil {
				c.Setting = map[string]string{}
			}
			c.Setting["shift"] = sh.Label
		}
		sp := *prov
		if sp.Test != nil {
			t := *sp.Test
			if sh.Images != "" {
				// Other images: the ones it ran on.
				t.Source, t.Images, t.Fingerprint = sh.Images, refs, data.Fingerprint(refs)
				t.Note = strings.TrimSpace(t.Note + " shift " + sh.Label)
			} else {
				t.Note = strings.TrimSpace(t.Note + " shift " + sh.Label + " (images as listed before the shift)")
			}
			sp.Test = &t
		}
		if err := writeCurves(filepath.Join(out, "shift", shiftDirName(sh.Label)), curves, &sp); err != nil {
			return err
		}
		results = append(results, shiftResult{Label: sh.Label, Curves: curves, Skipped: skipped, Notes: shiftNotes(infos, test.L, test.A)})
	}
	var cols []int
	for _, t := range at {
		if t >= 0 && t <= iters {
			cols = append(cols, t)
		}
	}
	writeShiftTable(env.Stdout, results, cols, false)
	if err := checkpoint.WriteAtomic(filepath.Join(out, "shift.md"), func(w io.Writer) error {
		writeShiftTable(w, results, cols, true)
		return nil
	}); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "out-of-distribution curves written to %s (table: %s)\n", filepath.Join(out, "shift"), filepath.Join(out, "shift.md"))
	return nil
}

// shiftDirName makes a shift's label a directory name.
func shiftDirName(label string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '_'
	}, label)
}

// writeShiftTable prints the mean optimality of every method at the
// iterations cols, one block per shift; a method left out of a shift gets a
// line with the reason.
func writeShiftTable(w io.Writer, results []shiftResult, cols []int, md bool) {
	head := []string{"shift", "method"}
	for _, t := range cols {
		head = append(head, fmt.Sprintf("it %d", t))
	}
	type line struct {
		cells []string // shift, method, one value per column; or shift and a note
		note  bool
	}
	var lines []line
	for _, r := range results {
		for _, c := range r.Curves {
			cells := []string{r.Label, c.Method}
			for _, t := range cols {
				switch {
				case t < len(c.Mean):
					cells = append(cells, fmtOpt(c.Mean[t]))
				case c.Diverged():
					cells = append(cells, fmt.Sprintf("diverged at %d", c.DivergedAt))
				default:
					cells = append(cells, "—")
				}
			}
			lines = append(lines, line{cells: cells})
		}
		for _, s := range r.Skipped {
			lines = append(lines, line{cells: []string{r.Label, "not run: " + s}, note: true})
		}
		for _, s := range r.Notes {
			lines = append(lines, line{cells: []string{r.Label, s}, note: true})
		}
	}
	fmt.Fprintln(w, "out-of-distribution evaluation (--shift): mean optimality (f − f*)/(f(x⁰) − f*) of the learned parameters applied unchanged")
	if md {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| "+strings.Join(head, " | ")+" |")
		fmt.Fprintln(w, "|"+strings.Repeat(" --- |", len(head)))
		for _, l := range lines {
			cells := l.cells
			if l.note {
				cells = append(cells, make([]string, len(cols))...)
			}
			fmt.Fprintln(w, "| "+strings.Join(cells, " | ")+" |")
		}
		return
	}
	width := make([]int, len(head))
	for _, l := range append([]line{{cells: head}}, lines...) {
		for i, v := range l.cells {
			if !(l.note && i == 1) {
				width[i] = max(width[i], len([]rune(v)))
			}
		}
	}
	for _, l := range append([]line{{cells: head}}, lines...) {
		var b strings.Builder
		for i, v := range l.cells {
			pad := strings.Repeat(" ", max(width[i]-len([]rune(v)), 0))
			switch {
			case i == 0:
				b.WriteString(v + pad)
			case i == 1 && l.note:
				b.WriteString("  " + v)
			case i == 1:
				b.WriteString("  " + v + pad)
			default:
				b.WriteString("  " + pad + v)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// printBreakEven prints, for each learned curve with a known training time
// and each baseline curve, the number of problems after which training has
// paid for itself at mean optimality tol, and writes them to
// out/breakeven.json.
func printBreakEven(env *Env, curves []*eval.Curve, trainSeconds map[string]float64, tol float64) []eval.BreakEven {
	var learned, base []*eval.Curve
	for _, c := range curves {
		if _, ok := trainSeconds[c.Method]; ok {
			learned = append(learned, c)
		} else {
			base = append(base, c)
		}
	}
	if len(learned) == 0 || len(base) == 0 {
		return nil
	}
	var all []eval.BreakEven
	fmt.Fprintf(env.Stdout, "break-even at mean optimality %.0e: problems after which training has paid for itself, M = C_train/(C_base − C_learned), C = measured seconds per function to reach it (batch time / functions); never: the learned method is no faster or does not reach it; ≤ M: the baseline did not reach it in its run (a bound); ?: cannot tell (training time unknown, or a baseline that did not reach it was cheaper up to its end)\n", tol)
	width := 22
	for _, c := range learned {
		width = max(width, len([]rune(c.Method)))
	}
	fmt.Fprintf(env.Stdout, "%-*s %9s %10s", width, "learned", "train s", "s/fn")
	for _, b := range base {
		fmt.Fprintf(env.Stdout, " %12s", truncRunes(b.Method, 12))
	}
	fmt.Fprintln(env.Stdout)
	fmt.Fprintf(env.Stdout, "%-*s %9s %10s", width, "(baseline s/fn)", "", "")
	for _, b := range base {
		cell := "not reached"
		if s := b.SecondsPerFunctionTo(tol); !math.IsNaN(s) {
			cell = fmt.Sprintf("%.3g", s)
		}
		fmt.Fprintf(env.Stdout, " %12s", cell)
	}
	fmt.Fprintln(env.Stdout)
	for _, l := range learned {
		ts := trainSeconds[l.Method]
		row := make([]eval.BreakEven, len(base))
		for i, b := range base {
			row[i] = eval.BreakEvenOf(l, b, ts, tol)
		}
		train, per := "unknown", "not reached"
		if ts > 0 {
			train = fmt.Sprintf("%.1f", ts)
		}
		if len(row) > 0 && !math.IsNaN(row[0].LearnedSeconds) {
			per = fmt.Sprintf("%.3g", row[0].LearnedSeconds)
		}
		fmt.Fprintf(env.Stdout, "%-*s %9s %10s", width, l.Method, train, per)
		for _, b := range row {
			fmt.Fprintf(env.Stdout, " %12s", b.String())
		}
		fmt.Fprintln(env.Stdout)
		all = append(all, row...)
	}
	return all
}

func truncRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// writeBreakEven writes break-even counts as JSON; counts that are not a
// number (never, unknown) are null with the table's word beside them.
func writeBreakEven(path string, be []eval.BreakEven) error {
	type row struct {
		Learned         string   `json:"learned"`
		Baseline        string   `json:"baseline"`
		Tol             float64  `json:"tol"`
		TrainSeconds    float64  `json:"train_seconds"`
		LearnedSeconds  *float64 `json:"learned_seconds_per_function"`
		BaselineSeconds *float64 `json:"baseline_seconds_per_function"`
		Problems        *float64 `json:"problems"`
		AtMost          bool     `json:"at_most,omitempty"`
		Cell            string   `json:"cell"`
	}
	num := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	rows := make([]row, len(be))
	for i, b := range be {
		rows[i] = row{b.Learned, b.Baseline, b.Tol, b.TrainSeconds, num(b.LearnedSeconds), num(b.BaselineSeconds), num(b.Problems), b.AtMost, b.String()}
	}
	buf, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return err
	}
	return checkpoint.WriteFileAtomic(path, append(buf, '\n'))
}

// shiftNotes say the shifted functions' L against 2·L_train (convergence of
// the learned steps is expected only below it: the paper's reg-plot-all) and
// each greedy-format optimizer's certificates of its last step at that L
// (Algorithm 2 repeats that step): the paper's P with its h1/h2 bound, and
// the Lyapunov P. Operator-aware terms (npoly) are certified with the
// shifted functions' operator a, as Algorithm 2 runs them.
func shiftNotes(infos []*LearnedInfo, l float64, a graph.LinearMap) []string {
	var out []string
	for _, info := range infos {
		if info.L <= 0 {
			continue
		}
		side := "below"
		if l >= 2*info.L {
			side = "above"
		}
		note := fmt.Sprintf("%s: L = %.4g, %s 2·L_train = %.4g", info.Method.Name(), l, side, 2*info.L)
		if opt, ok := info.Method.(*learned.Optimizer); ok && info.Tau > 0 && opt.Steps > 0 {
			theta, phi, err := opt.Params(opt.Steps - 1)
			if err == nil {
				if c, err := learned.CertifyParamsBoth(opt.Method.ForOperator(a), theta, phi, info.Tau, l, info.H, info.W); err == nil {
					h, name := c.Paper.H()
					note += fmt.Sprintf("; certificate of step %d at this L: paper P = %.3g (%s = %.4g, certified %v), lyapunov P = %.3g (certified %v)",
						opt.Steps-1, c.Paper.P, name, h, c.Paper.Certified, c.Lyapunov.P, c.Lyapunov.P < 0)
				}
			}
		}
		out = append(out, note)
	}
	return out
}

package cmd

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/provenance"
	"github.com/greedyl2o/greedyl2o/report"
	"github.com/greedyl2o/greedyl2o/steploss"
	"gorgonia.org/tensor"
)

func init() {
	register(&Command{Name: "report", Summary: "build an HTML report (figures, table) from saved curves and greedy checkpoints", Run: runReport})
}

// hbMuUsage explains --hb-mu of report and demo.
const hbMuUsage = "μ of the heavy-ball reference θ* = 4/(√L+√μ)², φ* = ((√L−√μ)/(√L+√μ))² drawn with the learned scalars (L: the checkpoint's): " +
	"a value, or rel:R for R·L (the default L·10⁻⁴ is the heavy-ball baseline's own; 0 gives the limits 4/L and 1)"

// reportOpts are the flags of 'l2o report'.
type reportOpts struct {
	curves, out, title string
	params             []string
	psnrIter           int
	psnrIterGiven      bool
	force              bool
	// hbMu is μ of the heavy-ball reference (a value, or rel:R for R·L);
	// kernelCrop the side of the centre crops of image-sized kernels.
	hbMu       string
	kernelCrop int
}

// parseReportFlags reads report's flags into o.
func parseReportFlags(env *Env, args []string) (*reportOpts, error) {
	o := &reportOpts{}
	fs := newFlags(env, "report", "report --curves DIR/curves.json [--params DIR…] --out DIR")
	fs.StringVar(&o.curves, "curves", "", "curves written by 'l2o eval' or 'l2o demo' (curves.json)")
	fs.StringSliceVar(&o.params, "params", nil, "learned checkpoint directories: θt, φt of PS/M-PS against the heavy-ball values, and the kernels of PC/M-PC (centre crops) and PCk/M-PCk (whole) are drawn")
	fs.StringVar(&o.out, "out", "", "output directory of the report")
	fs.StringVar(&o.title, "title", "greedyl2o report", "title of index.html")
	fs.IntVar(&o.psnrIter, "psnr-iter", report.DefaultPSNRIter, "iteration whose mean PSNR the table shows")
	fs.BoolVar(&o.force, "force", false, "replace the report (or results) already in --out")
	fs.StringVar(&o.hbMu, "hb-mu", "rel:1e-4", hbMuUsage)
	fs.IntVar(&o.kernelCrop, "kernel-crop", 21, "side of the centre crops of image-sized learned kernels (odd)")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	o.psnrIterGiven = fs.Changed("psnr-iter")
	switch {
	case o.curves == "" || o.out == "":
		return nil, usagef("--curves and --out are required")
	case o.psnrIter < 0:
		return nil, usagef("--psnr-iter must be ≥ 0 (got %d)", o.psnrIter)
	case o.kernelCrop < 1 || o.kernelCrop%2 == 0:
		return nil, usagef("--kernel-crop must be odd and positive (got %d)", o.kernelCrop)
	}
	if _, _, err := heavyBallMu(o.hbMu, 1); err != nil {
		return nil, usagef("--hb-mu: %v", err)
	}
	return o, nil
}

func runReport(env *Env, args []string) error {
	o, err := parseReportFlags(env, args)
	if err != nil {
		return err
	}
	f, err := os.Open(o.curves)
	if err != nil {
		return usagef("--curves: %v", err)
	}
	curves, prov, err := eval.ReadJSONWith(f)
	f.Close()
	if err != nil {
		return usagef("--curves %s: %v", o.curves, err)
	}
	if len(curves) == 0 {
		return usagef("--curves %s holds no curves", o.curves)
	}
	if last := curves[0].Iter[len(curves[0].Iter)-1]; o.psnrIter > last {
		if o.psnrIterGiven {
			return usagef("--psnr-iter %d is beyond the curves' last iteration %d", o.psnrIter, last)
		}
		o.psnrIter = last // the default, past short curves: their last iteration
	}
	lock, err := claimResultsDir(env, "--out", o.out, o.force)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	if err := clearResults(o.out, append(reportResults, "scalars.csv")...); err != nil {
		return err
	}
	inv := env.invocation()
	rep := &report.Report{Title: o.title, Curves: curves, PSNRIter: o.psnrIter,
		Notes: []string{fmt.Sprintf("Curves from %s; drawn by %s (l2o revision %s, %s).", o.curves, inv.Command, cmp.Or(inv.Build.Revision, "not recorded"), inv.Time)}}
	if set := curves[0].Setting; set != nil {
		rep.Notes = append(rep.Notes, "Functions: "+settingString(set)+".")
	}
	rep.Provenance = prov
	if err := reportRecon(rep, filepath.Join(filepath.Dir(o.curves), "recon"), o.psnrIter); err != nil {
		return usagef("--curves %s: reconstructions: %v", o.curves, err)
	}
	for _, dir := range o.params {
		if note := notEvaluated(dir, prov, o.curves); note != "" {
			fmt.Fprintf(env.Stderr, "note: %s\n", note)
			rep.Notes = append(rep.Notes, note)
		}
		if err := addLearnedToReport(rep, dir, o); err != nil {
			return err
		}
	}
	index, err := rep.Write(o.out)
	if err != nil {
		return err
	}
	if err := report.WriteTable(env.Stdout, curves, nil, o.psnrIter); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, report.Winner(curves, nil))
	lines := append(report.BestClassicalLines(curves, nil), report.SafeguardLines(curves)...)
	for _, l := range append(lines, report.FigureNotes(curves)...) {
		fmt.Fprintln(env.Stdout, l)
	}
	fmt.Fprintf(env.Stdout, "report: %s\n", index)
	return nil
}

// notEvaluated says when the checkpoint dir is none of those the curves
// were evaluated from (by its manifest's SHA-256): its figures then sit
// beside curves of other parameters. Curves without a record say nothing.
func notEvaluated(dir string, prov *provenance.Record, curves string) string {
	if prov == nil || len(prov.Checkpoints) == 0 {
		return ""
	}
	sum, err := provenance.FileSHA256(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return ""
	}
	for _, c := range prov.Checkpoints {
		if c.ManifestSHA256 == sum {
			return ""
		}
	}
	return fmt.Sprintf("--params %s is none of the checkpoints %s was evaluated from: its figures are not those of the curves' learned methods.", dir, curves)
}

// settingString writes a curve's setting as sorted "key=value" pairs.
func settingString(s map[string]string) string {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + s[k]
	}
	return strings.Join(parts, ", ")
}

// orNone2 returns a, or b when a is empty.
func orNone2(a, b string) string {
	if a == "" {
		return b
	}
	return a
}

// orFloat64 names a checkpoint's training precision (float64 when none is
// recorded).
func orFloat64(p steploss.Precision) string {
	if p == "" {
		return string(steploss.Float64)
	}
	return string(p)
}

// addLearnedToReport adds the learned scalars (PS, M-PS: the first such
// checkpoint) or kernels (PC, M-PC, PCk, M-PCk: every such checkpoint) of
// the checkpoint in dir to rep, the figures' sources, and a note on its
// training.
func addLearnedToReport(rep *report.Report, dir string, o *reportOpts) error {
	l, man, err := learned.Load(dir)
	if err != nil {
		return usagef("--params %s: %v", dir, err)
	}
	return addLearned(rep, l, man, dir, o)
}

// addLearned adds the learned scalars or kernels of l, loaded with its
// manifest man from dir, to rep (addLearnedToReport); l2o demo uses it for
// its checkpoints as well.
func addLearned(rep *report.Report, l *learned.Optimizer, man *checkpoint.Manifest, dir string, o *reportOpts) error {
	s, err := learnedScalars(l, man.L, o.hbMu)
	if err != nil {
		return fmt.Errorf("--params %s: %w", dir, err)
	}
	switch {
	case s != nil && rep.Scalars == nil:
		rep.Scalars = s
		rep.Sources = append(rep.Sources, fmt.Sprintf("scalars.png, scalars.csv: θt, φt of %s (%d steps) from %s; %s; %s.",
			l.Name(), l.Steps, dir, scalarReferenceNote(s, man.Problem, dir), mu0Note(s.L)))
	case s != nil:
		rep.Notes = append(rep.Notes, fmt.Sprintf("The scalars of %s (%s) are not drawn: scalars.png shows %s's; run report with --params %s alone for its figure.", l.Name(), dir, rep.Scalars.Method, dir))
	}
	panels, cols, what, err := learnedKernels(l, o.kernelCrop)
	if err != nil {
		return fmt.Errorf("--params %s: %w", dir, err)
	}
	if len(panels) > 0 {
		title := fmt.Sprintf("Learned kernels of %s: %s", l.Name(), what)
		src := fmt.Sprintf("%s (%d steps), from %s", l.Name(), l.Steps, dir)
		if rep.Kernels == nil {
			rep.Kernels, rep.KernelColumns, rep.KernelTitle, rep.KernelSource = panels, cols, title, src
		} else {
			rep.KernelSets = append(rep.KernelSets, report.KernelSet{Method: l.Name(), Title: title, Panels: panels, Columns: cols, Source: src})
		}
	}
	rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %d steps trained on %d %s functions of %d×%d (%s; inner solver %s in %s; λ %s, μ %s; stopped: %s), from %s.",
		l.Name(), l.Steps, man.NTrain, man.Problem, man.H, man.W, orNone(man.Conventions.String()), orNone2(man.InnerSettings, man.Inner),
		orFloat64(man.Precision), man.Lambda, man.Mu, man.StopCause, dir))
	return nil
}

// heavyBallMu returns the μ of --hb-mu for smoothness l and how it was
// chosen: a value, or rel:R for R·l.
func heavyBallMu(spec string, l float64) (float64, string, error) {
	if r, ok := strings.CutPrefix(spec, "rel:"); ok {
		v, err := strconv.ParseFloat(r, 64)
		if err != nil || !(v >= 0 && v < 1) {
			return 0, "", fmt.Errorf("%q: rel:R needs 0 ≤ R < 1", spec)
		}
		return v * l, fmt.Sprintf("μ = L·%g (--hb-mu %s)", v, spec), nil
	}
	v, err := strconv.ParseFloat(spec, 64)
	if err != nil || !(v >= 0) || math.IsInf(v, 0) {
		return 0, "", fmt.Errorf("%q: give μ ≥ 0 or rel:R", spec)
	}
	return v, fmt.Sprintf("μ = %g (--hb-mu)", v), nil
}

// learnedScalars returns θt and φt of a scalar learned optimizer (PS,
// M-PS) with the heavy-ball reference for curvature in [μ, lip], μ from
// --hb-mu; nil for other parametrizations. Without a finite positive lip
// the reference is left out.
func learnedScalars(l *learned.Optimizer, lip float64, hbMu string) (*report.ScalarSeries, error) {
	if l == nil || l.Method.G == nil || l.Method.G.Name() != "ps" {
		return nil, nil
	}
	s := &report.ScalarSeries{Method: l.Name()}
	for t := 0; t < l.Steps; t++ {
		theta, phi, err := l.Params(t)
		if err != nil {
			return nil, fmt.Errorf("parameters of %s at step %d: %w", l.Name(), t, err)
		}
		if len(theta) != 1 || len(phi) > 1 {
			return nil, fmt.Errorf("%s: step %d has %d step-size and %d momentum parameters, want 1 and at most 1", l.Name(), t, len(theta), len(phi))
		}
		s.Alpha = append(s.Alpha, theta[0])
		if len(phi) == 1 {
			s.Beta = append(s.Beta, phi[0])
		}
	}
	if !(lip > 0) || math.IsInf(lip, 0) {
		return s, nil
	}
	mu, how, err := heavyBallMu(hbMu, lip)
	if err != nil {
		return nil, fmt.Errorf("--hb-mu: %w", err)
	}
	if mu >= lip {
		return nil, fmt.Errorf("--hb-mu: μ = %g is not below L = %g", mu, lip)
	}
	s.AlphaStar, s.BetaStar, err = report.HeavyBallReference(lip, mu)
	if err != nil {
		return nil, err
	}
	s.L, s.Mu, s.Reference = lip, mu, "L: the checkpoint's training L; "+how
	return s, nil
}

// scalarReferenceNote says which L and μ the heavy-ball reference of s
// uses and why μ is a choice.
func scalarReferenceNote(s *report.ScalarSeries, problem, dir string) string {
	if s.L == 0 {
		return "no heavy-ball reference: the checkpoint records no finite L"
	}
	why := "μ is not known for this problem: the blur's or ray transform's AᵀA has eigenvalues near 0 and Huber-TV no curvature along constant images"
	if strings.Contains(problem, "wcrr") {
		why = "μ is not known for this problem: the WCRR objective is only weakly convex (its Hessian may have negative eigenvalues)"
	}
	return fmt.Sprintf("heavy-ball reference θ* = %.4g, φ* = %.4g for L = %.4g (the training functions' smoothness constant, manifest of %s) and %s; %s",
		s.AlphaStar, s.BetaStar, s.L, dir, strings.TrimPrefix(s.Reference, "L: the checkpoint's training L; "), why)
}

// mu0Note gives the μ → 0 limits of the heavy-ball reference.
func mu0Note(l float64) string {
	if !(l > 0) {
		return "no L"
	}
	return fmt.Sprintf("μ → 0 gives θ* = 4/L = %.4g and φ* = 1", 4/l)
}

// learnedKernels returns the kernels of a convolution learned optimizer at
// a few steps t: θt (one row), then φt: centre crops of crop×crop (at most
// the image) of image-sized kernels (PC), whole K×K kernels (PCk) drawn as
// convolution kernels; nil for other parametrizations. It also returns the
// number of columns and what the panels are.
func learnedKernels(l *learned.Optimizer, crop int) ([]report.Panel, int, string, error) {
	if l == nil {
		return nil, 0, "", nil
	}
	gk, hk := kernelKind(l, l.Method.G), kernelKind(l, l.Method.H)
	if gk == 0 {
		return nil, 0, "", nil
	}
	size := min(crop, l.H, l.W)
	if size%2 == 0 {
		size--
	}
	var steps []int
	for _, t := range []int{0, 1, 2, 5, 10, 20, l.Steps - 1} {
		if t < l.Steps && (len(steps) == 0 || t > steps[len(steps)-1]) {
			steps = append(steps, t)
		}
	}
	if len(steps) > 6 {
		steps = append(steps[:5], steps[len(steps)-1])
	}
	panel := func(label string, k int, v []float64) (report.Panel, error) {
		if k < 0 {
			return report.KernelCrop(label, v, l.H, l.W, size)
		}
		return report.SmallKernelPanel(label, v, k, 0)
	}
	var thetas, phis []report.Panel
	for _, t := range steps {
		theta, phi, err := l.Params(t)
		if err != nil {
			return nil, 0, "", fmt.Errorf("parameters of %s at step %d: %w", l.Name(), t, err)
		}
		p, err := panel(fmt.Sprintf("G kernel θ, t = %d", t), gk, theta)
		if err != nil {
			return nil, 0, "", err
		}
		thetas = append(thetas, p)
		if hk != 0 && t > 0 && len(phi) > 0 {
			p, err := panel(fmt.Sprintf("H kernel φ, t = %d", t), hk, phi)
			if err != nil {
				return nil, 0, "", err
			}
			phis = append(phis, p)
		}
	}
	return append(thetas, phis...), len(thetas), kernelWhat(l, gk, hk, size), nil
}

// kernelKind says what kind of kernel p's parameters are: −1 an
// image-sized convolution kernel (pc), K a K×K one (pcK), 0 no kernel.
func kernelKind(l *learned.Optimizer, p interface {
	Name() string
	ParamShape(h, w int) tensor.Shape
}) int {
	if l == nil || p == nil || !strings.HasPrefix(p.Name(), "pc") {
		return 0
	}
	if p.Name() == "pc" {
		return -1
	}
	if sh := p.ParamShape(l.H, l.W); len(sh) == 2 && sh[0] == sh[1] && sh[0]%2 == 1 {
		return sh[0]
	}
	return 0
}

// kernelWhat describes the panels of learnedKernels.
func kernelWhat(l *learned.Optimizer, gk, hk, size int) string {
	what := func(k int) string {
		if k < 0 {
			return fmt.Sprintf("%d×%d centre crops of the %d×%d kernels", size, size, l.H, l.W)
		}
		return fmt.Sprintf("the whole %d×%d kernels (correlations, drawn flipped as convolution kernels)", k, k)
	}
	if hk == 0 || hk == gk {
		return what(gk)
	}
	return "θ: " + what(gk) + "; φ: " + what(hk)
}

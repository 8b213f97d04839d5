package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/report"
	"github.com/greedyl2o/greedyl2o/steploss"
)

func init() {
	register(&Command{Name: "report", Summary: "build an HTML report (figures, table) from saved curves and greedy checkpoints", Run: runReport})
}

func runReport(env *Env, args []string) error {
	fs := newFlags(env, "report", "report --curves DIR/curves.json [--params DIR…] --out DIR")
	curvesPath := fs.String("curves", "", "curves written by 'l2o eval' or 'l2o demo' (curves.json)")
	params := fs.StringSlice("params", nil, "greedy checkpoint directories: scalars of PS/M-PS and kernels of PC/M-PC are drawn")
	out := fs.String("out", "", "output directory of the report")
	title := fs.String("title", "greedyl2o report", "title of index.html")
	psnrIter := fs.Int("psnr-iter", report.DefaultPSNRIter, "iteration whose mean PSNR the table shows")
	force := fs.Bool("force", false, "replace the report (or results) already in --out")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *curvesPath == "" || *out == "" {
		return usagef("--curves and --out are required")
	}
	if *psnrIter < 0 {
		return usagef("--psnr-iter must be ≥ 0 (got %d)", *psnrIter)
	}
	f, err := os.Open(*curvesPath)
	if err != nil {
		return usagef("--curves: %v", err)
	}
	curves, prov, err := eval.ReadJSONWith(f)
	f.Close()
	if err != nil {
		return usagef("--curves %s: %v", *curvesPath, err)
	}
	if len(curves) == 0 {
		return usagef("--curves %s holds no curves", *curvesPath)
	}
	lock, err := claimResultsDir(env, "--out", *out, *force)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	if err := clearResults(*out, reportResults...); err != nil {
		return err
	}
	rep := &report.Report{Title: *title, Curves: curves, PSNRIter: *psnrIter,
		Notes: []string{fmt.Sprintf("Curves from %s.", *curvesPath)}}
	if set := curves[0].Setting; set != nil {
		rep.Notes = append(rep.Notes, "Functions: "+settingString(set)+".")
	}
	rep.Provenance = prov
	if err := reportRecon(rep, filepath.Join(filepath.Dir(*curvesPath), "recon"), *psnrIter); err != nil {
		return usagef("--curves %s: reconstructions: %v", *curvesPath, err)
	}
	for _, dir := range *params {
		if err := addLearnedToReport(rep, dir); err != nil {
			return err
		}
	}
	index, err := rep.Write(*out)
	if err != nil {
		return err
	}
	if err := report.WriteTable(env.Stdout, curves, nil, *psnrIter); err != nil {
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

// addLearnedToReport adds the learned scalars (PS, M-PS) or kernels (PC,
// M-PC) of the checkpoint in dir to rep, and a note on its training.
func addLearnedToReport(rep *report.Report, dir string) error {
	l, man, err := learned.Load(dir)
	if err != nil {
		return usagef("--params %s: %v", dir, err)
	}
	s, err := scalarSeries(l, baselines.HeavyBall{}, man.L)
	if err != nil {
		return fmt.Errorf("--params %s: %w", dir, err)
	}
	if s != nil && rep.Scalars == nil {
		rep.Scalars = s
	}
	k, cols, err := kernelPanels(l, 21)
	if err != nil {
		return fmt.Errorf("--params %s: %w", dir, err)
	}
	if len(k) > 0 && rep.Kernels == nil {
		rep.Kernels, rep.KernelColumns = k, cols
	}
	rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %d steps trained on %d %s functions of %d×%d (%s; inner solver %s in %s; λ %s, μ %s; stopped: %s), from %s.",
		l.Name(), l.Steps, man.NTrain, man.Problem, man.H, man.W, orNone(man.Conventions.String()), orNone2(man.InnerSettings, man.Inner),
		orFloat64(man.Precision), man.Lambda, man.Mu, man.StopCause, dir))
	return nil
}

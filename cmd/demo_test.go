package cmd

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/report"
)

// TestQuickDemoWritesAValidReport runs the tiny demo and checks every file of
// its report: PNGs decode, SVGs are XML, the CSV parses and the headline
// numbers printed and written to index.html come from the saved curves; and
// its claims (checkDemoNumbers): the minimiser above the observation in
// PSNR, the plain M-PC below L-BFGS within its trained steps, the winner
// line.
func TestQuickDemoWritesAValidReport(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := Main([]string{"demo", "--quick", "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("demo exited %d: %s", code, errb.String())
	}
	for _, name := range []string{"optimality_iter.png", "optimality_seconds.png", "kernels.png", "reconstructions.png", "scalars.png"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s does not decode: %v", name, err)
		}
		if b := img.Bounds(); b.Dx() < 20 || b.Dy() < 20 {
			t.Errorf("%s is only %v", name, b)
		}
	}
	for _, name := range []string{"optimality_iter.svg", "optimality_seconds.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		dec := xml.NewDecoder(bytes.NewReader(b))
		for {
			if _, err := dec.Token(); err != nil {
				if err.Error() != "EOF" {
					t.Fatalf("%s is not XML: %v", name, err)
				}
				break
			}
		}
	}
	cf, err := os.Open(filepath.Join(dir, "curves.csv"))
	if err != nil {
		t.Fatal(err)
	}
	cr := csv.NewReader(cf)
	cr.Comment = '#' // the provenance
	rows, err := cr.ReadAll()
	cf.Close()
	if err != nil || len(rows) < 2 {
		t.Fatalf("curves.csv does not parse (%d rows): %v", len(rows), err)
	}
	jf, err := os.Open(filepath.Join(dir, "curves.json"))
	if err != nil {
		t.Fatal(err)
	}
	curves, err := eval.ReadJSON(jf)
	jf.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(curves) != 11 {
		t.Fatalf("%d curves, want 11 (M-PC, M-PS, the safeguarded M-PC and 8 baselines)", len(curves))
	}
	for _, name := range []string{"silver", "nag-restart", "bb"} {
		curveOf(t, curves, name)
	}
	// The comparison with the best classical method, printed and in
	// index.html, is the one computed from the saved curves.
	best := report.BestClassicalLines(curves, demoTols)
	if len(best) == 0 {
		t.Fatal("no best-classical lines for the demo's curves")
	}
	for _, l := range best {
		if !strings.Contains(out.String(), l+"\n") {
			t.Errorf("the demo does not print %q:\n%s", l, out.String())
		}
	}
	html, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	checkDemoNumbers(t, dir, out.String(), string(html), curves)
	var table bytes.Buffer
	if err := report.WriteTable(&table, curves, nil, 15); err != nil {
		t.Fatal(err)
	}
	for _, h := range report.Headlines(curves, nil, 15) {
		if !strings.Contains(string(html), h.Method) {
			t.Errorf("index.html does not mention %s", h.Method)
		}
		psnr := report.FormatPSNR(h.PSNR)
		if !strings.Contains(string(html), psnr) || !strings.Contains(out.String(), psnr) {
			t.Errorf("PSNR %s of %s missing from index.html or the printed table", psnr, h.Method)
		}
	}
	if !strings.Contains(out.String(), table.String()) {
		t.Errorf("the printed table differs from the one computed from curves.json:\nprinted:\n%s\nfrom curves.json:\n%s", out.String(), table.String())
	}
	// index.html's cells: iterations and seconds to 1e-4 and 1e-6, PSNR at 15.
	rowRE := regexp.MustCompile(`<tr><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td>`)
	rowsHTML := rowRE.FindAllStringSubmatch(string(html), -1)
	if len(rowsHTML) != len(curves) {
		t.Fatalf("index.html has %d table rows for %d curves", len(rowsHTML), len(curves))
	}
	for i, c := range curves {
		want := []string{c.Method}
		for _, tol := range []float64{1e-4, 1e-6} {
			it, sec := "—", "—"
			for k, m := range c.Mean {
				if m <= tol {
					it, sec = strconv.Itoa(c.Iter[k]), strconv.FormatFloat(c.Seconds[k], 'g', 3, 64)
					break
				}
			}
			want = append(want, it, sec)
		}
		want = append(want, report.FormatPSNR(meanOf(c.PSNR[15])))
		for j, w := range want {
			if rowsHTML[i][j+1] != w {
				t.Errorf("index.html row %s column %d = %q, want %q", c.Method, j, rowsHTML[i][j+1], w)
			}
		}
	}
	if !strings.Contains(out.String(), filepath.Join(dir, "index.html")) {
		t.Errorf("the demo did not print the report's path:\n%s", out.String())
	}

	// l2o report rebuilds the report from the saved curves and checkpoints.
	rdir := filepath.Join(t.TempDir(), "rebuilt")
	out.Reset()
	args := []string{"report", "--curves", filepath.Join(dir, "curves.json"), "--params",
		filepath.Join(dir, "checkpoints", "m-ps") + "," + filepath.Join(dir, "checkpoints", "m-pc"), "--out", rdir}
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("report exited %d: %s", code, errb.String())
	}
	for _, name := range []string{"index.html", "scalars.png", "kernels.png", "optimality_iter.svg"} {
		if _, err := os.Stat(filepath.Join(rdir, name)); err != nil {
			t.Errorf("l2o report: %v", err)
		}
	}
	if !strings.Contains(out.String(), table.String()) {
		t.Errorf("l2o report printed a different table:\n%s", out.String())
	}
	checkDemoScalars(t, dir, rdir)
}

// checkDemoScalars checks that the demo's scalar figure states L and μ as
// l2o report's does: scalars.csv and index.html of both (the demo in dir,
// report on its checkpoints in rdir) give M-PS's θt, φt and the heavy-ball
// reference for the checkpoint's L and μ = L·10⁻⁴ in closed form, and the
// two scalars.csv have the same reference line and rows.
func checkDemoScalars(t *testing.T, dir, rdir string) {
	t.Helper()
	ckpt := filepath.Join(dir, "checkpoints", "m-ps")
	_, man, err := learned.Load(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(man.L-1.32) > 0.01 {
		t.Errorf("the demo's M-PS checkpoint records L = %g, want the paper's 1.32", man.L)
	}
	var csvs [2][]string
	for i, d := range []string{dir, rdir} {
		checkReportScalars(t, ckpt, d, man.L*1e-4, "μ = L·0.0001 (--hb-mu rel:1e-4)")
		b, err := os.ReadFile(filepath.Join(d, "scalars.csv"))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(l, "# ") || strings.HasPrefix(l, "# heavy-ball reference") {
				csvs[i] = append(csvs[i], l)
			}
		}
	}
	if strings.Join(csvs[0], "\n") != strings.Join(csvs[1], "\n") {
		t.Errorf("the demo's scalars.csv (reference and rows)\n%s\ndiffers from l2o report's\n%s", strings.Join(csvs[0], "\n"), strings.Join(csvs[1], "\n"))
	}
}

// curveOf returns the curve of method, failing the test without one.
func curveOf(t *testing.T, curves []*eval.Curve, method string) *eval.Curve {
	t.Helper()
	for _, c := range curves {
		if c.Method == method {
			return c
		}
	}
	t.Fatalf("no curve of %q", method)
	return nil
}

// checkDemoNumbers checks the quick demo's claims against its own data: the
// problem line, the minimiser above the observation in PSNR, the learned
// M-PC below L-BFGS within its trained steps, and the winner line.
func checkDemoNumbers(t *testing.T, dir, printed, html string, curves []*eval.Curve) {
	t.Helper()
	if !strings.Contains(printed, fmt.Sprintf("α = 0.0002, noise %g (the paper's: 0.01), zero blur boundary", demoNoise)) {
		t.Errorf("the demo does not print its α, noise and boundary:\n%s", printed)
	}

	// Reconstructions of test function 1: the minimiser beats the
	// observation, over the whole image and inside the rim; the printed
	// observation and L-BFGS values are those of the curves.
	num := `(-?[0-9]+\.[0-9]+)/(-?[0-9]+\.[0-9]+)`
	psnr := func(label string) (whole, inside float64) {
		t.Helper()
		m := regexp.MustCompile(regexp.QuoteMeta(label) + " " + num).FindStringSubmatch(printed)
		if m == nil {
			t.Fatalf("no PSNR of %q printed:\n%s", label, printed)
		}
		whole, _ = strconv.ParseFloat(m[1], 64)
		inside, _ = strconv.ParseFloat(m[2], 64)
		return whole, inside
	}
	yw, yi := psnr("observation y")
	xw, xi := psnr(fmt.Sprintf("minimiser (L-BFGS, t = %d)", quickDefaults.FinalIters))
	if !(xw > yw+1) || !(xi > yi+1) {
		t.Errorf("minimiser %.2f/%.2f dB is not 1 dB above the observation %.2f/%.2f dB", xw, xi, yw, yi)
	}
	lb := curveOf(t, curves, "lbfgs")
	if got := report.FormatPSNR(lb.PSNR[0][0]); got != report.FormatPSNR(yw) {
		t.Errorf("printed observation PSNR %.2f, the curves' PSNR of x⁰ = y on test function 1 is %s", yw, got)
	}
	if w, _ := psnr(fmt.Sprintf("lbfgs, t = %d", quickDefaults.ReconIter)); report.FormatPSNR(w) != report.FormatPSNR(lb.PSNR[quickDefaults.ReconIter][0]) {
		t.Errorf("printed L-BFGS PSNR %.2f at t = %d, the curves' %.2f", w, quickDefaults.ReconIter, lb.PSNR[quickDefaults.ReconIter][0])
	}

	// Plain M-PC (Algorithm 2, no safeguard) is below L-BFGS at every
	// iteration that uses trained parameters.
	man, err := checkpoint.ReadManifest(filepath.Join(dir, "checkpoints", "m-pc"))
	if err != nil {
		t.Fatal(err)
	}
	steps := len(man.Steps)
	if steps < 10 {
		t.Fatalf("M-PC trained only %d steps", steps)
	}
	pc := curveOf(t, curves, "greedy m-pc")
	if len(pc.Mean) <= steps || len(lb.Mean) <= steps {
		t.Fatalf("M-PC's or L-BFGS's curve ends before iteration %d (%d and %d points)", steps, len(pc.Mean), len(lb.Mean))
	}
	for it := 1; it <= steps; it++ {
		if !(pc.Mean[it] < lb.Mean[it]) {
			t.Errorf("iteration %d ≤ T+1 = %d: M-PC's mean optimality %.3g is not below L-BFGS's %.3g", it, steps, pc.Mean[it], lb.Mean[it])
		}
	}
	// The safeguarded copy never raises a function's value.
	sg := curveOf(t, curves, "greedy m-pc (safeguarded)")
	for it := 1; it < len(sg.F); it++ {
		for k, f := range sg.F[it] {
			if f > sg.F[it-1][k]*(1+1e-12) {
				t.Errorf("safeguarded M-PC raises f_%d at iteration %d: %.10g > %.10g", k, it, f, sg.F[it-1][k])
			}
		}
	}

	// The winner line: every method it names has a curve, reaches the
	// tolerance at the iteration (or time) it states, and none does better.
	line := regexp.MustCompile(`(?m)^winner: (.*)$`).FindStringSubmatch(printed)
	if line == nil {
		t.Fatalf("no winner line printed:\n%s", printed)
	}
	if !strings.Contains(html, "Winner: "+line[1]) {
		t.Errorf("index.html does not state the winner line %q", line[1])
	}
	clauseRE := regexp.MustCompile(`^(fewest iterations|least time) to ([0-9e.-]+): (.+) \(([0-9.e-]+)( s)?\)$`)
	clauses := strings.Split(line[1], "; ")
	if len(clauses) == 0 || !clauseRE.MatchString(clauses[0]) {
		t.Fatalf("winner line %q does not start with a clause like 'fewest iterations to 1e-4: M (n)'", line[1])
	}
	for _, cl := range clauses {
		if strings.HasPrefix(cl, "no method reaches ") {
			tol, _ := strconv.ParseFloat(strings.TrimPrefix(cl, "no method reaches "), 64)
			for _, c := range curves {
				if c.ItersTo(tol) >= 0 {
					t.Errorf("%q, but %s does at iteration %d", cl, c.Method, c.ItersTo(tol))
				}
			}
			continue
		}
		m := clauseRE.FindStringSubmatch(cl)
		if m == nil {
			t.Errorf("winner clause %q does not parse", cl)
			continue
		}
		tol, _ := strconv.ParseFloat(m[2], 64)
		score := func(c *eval.Curve) string {
			if m[1] == "fewest iterations" {
				return report.FormatIters(c.ItersTo(tol))
			}
			return report.FormatSeconds(c.SecondsTo(tol))
		}
		better := func(c *eval.Curve) bool {
			if m[1] == "fewest iterations" {
				n, _ := strconv.Atoi(m[4])
				return c.ItersTo(tol) >= 0 && c.ItersTo(tol) < n
			}
			s, _ := strconv.ParseFloat(m[4], 64)
			return !math.IsNaN(c.SecondsTo(tol)) && c.SecondsTo(tol) < s*(1-5e-3)
		}
		for _, name := range strings.Split(m[3], " and ") {
			if got := score(curveOf(t, curves, name)); got != m[4] {
				t.Errorf("winner clause %q: %s has %s", cl, name, got)
			}
		}
		for _, c := range curves {
			if better(c) {
				t.Errorf("winner clause %q: %s does better (%s)", cl, c.Method, score(c))
			}
		}
	}
}

func meanOf(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func TestDemoAndReportRejectBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"demo", "--size", "10"},
		{"demo", "--n-test", "-1"},
		{"demo", "--out", ""},
		{"demo", "--noise", "0"},
		{"demo", "--lambda", "-1"},
		{"demo", "--safeguard", "gd"},
		{"demo", "--hb-mu", "-1"},
		{"demo", "--hb-mu", "rel:2"},
		{"report", "--curves", "x", "--out", "y", "--hb-mu", "rel:x"},
		{"report", "--out", "x"},
		{"report", "--curves", "/nonexistent/curves.json", "--out", "x"},
	} {
		var out, errb bytes.Buffer
		if code := Main(args, &out, &errb); code != 2 {
			t.Errorf("%v exited %d, want 2 (usage error): %s", args, code, errb.String())
		}
	}
}

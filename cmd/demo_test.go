package cmd

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/report"
)

// TestQuickDemoWritesAValidReport runs the tiny demo and checks every file of
// its report: PNGs decode, SVGs are XML, the CSV parses and the headline
// numbers printed and written to index.html come from the saved curves.
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
	rows, err := csv.NewReader(cf).ReadAll()
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
	if len(curves) != 7 {
		t.Fatalf("%d curves, want 7 methods", len(curves))
	}
	html, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
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
		{"report", "--out", "x"},
		{"report", "--curves", "/nonexistent/curves.json", "--out", "x"},
	} {
		var out, errb bytes.Buffer
		if code := Main(args, &out, &errb); code != 2 {
			t.Errorf("%v exited %d, want 2 (usage error): %s", args, code, errb.String())
		}
	}
}

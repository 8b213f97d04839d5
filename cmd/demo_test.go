package cmd

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"image/png"
	"os"
	"path/filepath"
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
	if !strings.Contains(out.String(), filepath.Join(dir, "index.html")) {
		t.Errorf("the demo did not print the report's path:\n%s", out.String())
	}
}

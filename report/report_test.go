package report

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/eval"
)

// naiveShiftCrop rolls the kernel by (h/2, w/2) like numpy.fft.fftshift and
// cuts the size×size block centred on the origin's new position.
func naiveShiftCrop(k []float64, h, w, size int) []float64 {
	shifted := make([]float64, h*w)
	for i := 0; i < h; i++ {
		for j := 0; j < w; j++ {
			shifted[((i+h/2)%h)*w+(j+w/2)%w] = k[i*w+j]
		}
	}
	out := make([]float64, 0, size*size)
	for a := h/2 - size/2; a <= h/2+size/2; a++ {
		for b := w/2 - size/2; b <= w/2+size/2; b++ {
			out = append(out, shifted[a*w+b])
		}
	}
	return out
}

func TestKernelCropMatchesFFTShift(t *testing.T) {
	for _, sz := range [][3]int{{24, 24, 21}, {25, 31, 21}, {8, 9, 5}, {5, 5, 5}, {7, 4, 3}} {
		h, w, size := sz[0], sz[1], sz[2]
		k := make([]float64, h*w)
		for i := range k {
			k[i] = float64(i) + 0.5
		}
		p, err := KernelCrop("k", k, h, w, size)
		if err != nil {
			t.Fatal(err)
		}
		want := naiveShiftCrop(k, h, w, size)
		for i := range want {
			if p.Pix[i] != want[i] {
				t.Fatalf("%d×%d crop %d: pixel %d = %g, want %g", h, w, size, i, p.Pix[i], want[i])
			}
		}
		if c := p.Pix[(size/2)*size+size/2]; c != k[0] {
			t.Errorf("%d×%d: centre %g is not the origin value %g", h, w, c, k[0])
		}
	}
	for _, bad := range [][3]int{{24, 24, 22}, {10, 24, 21}, {24, 24, 0}} {
		if _, err := KernelCrop("k", make([]float64, bad[0]*bad[1]), bad[0], bad[1], bad[2]); err == nil {
			t.Errorf("crop %d of %d×%d: no error", bad[2], bad[0], bad[1])
		}
	}
	if _, err := KernelCrop("k", make([]float64, 10), 4, 4, 3); err == nil {
		t.Error("10 values for a 4×4 kernel: no error")
	}
}

// testCurves builds curves by hand: "fast" reaches 1e-4 at t = 3 and 1e-6
// at t = 5, "slow" 1e-4 at t = 6 and never 1e-6, "bad" diverges.
func testCurves() []*eval.Curve {
	mk := func(name string, mean []float64) *eval.Curve {
		c := &eval.Curve{Method: name, PSNR: map[int][]float64{}}
		for i, m := range mean {
			c.Iter = append(c.Iter, i)
			c.Seconds = append(c.Seconds, 0.0125*float64(i)*float64(len(name)))
			c.Mean = append(c.Mean, m)
			c.Min = append(c.Min, m/3)
			c.Max = append(c.Max, m*2)
			c.Optimality = append(c.Optimality, []float64{m / 3, m * 2})
		}
		return c
	}
	fast := mk("greedy fast", []float64{1, 1e-2, 1e-3, 1e-4, 1e-5, 5e-7, -1e-9, 0})
	fast.PSNR[6] = []float64{30, 31}
	slow := mk("slow", []float64{1, 0.5, 0.1, 0.01, 1e-3, 2e-4, 1e-4, 9e-5})
	slow.PSNR[6] = []float64{20.5, 21.25}
	bad := mk("bad", []float64{1, 10, 1e3, 1e8, 1e20, math.Inf(1), math.Inf(1), math.Inf(1)})
	return []*eval.Curve{fast, slow, bad}
}

func TestHeadlines(t *testing.T) {
	hs := Headlines(testCurves(), []float64{1e-4, 1e-6}, 6)
	want := []struct {
		iters []int
		psnr  float64
	}{{[]int{3, 5}, 30.5}, {[]int{6, -1}, 20.875}, {[]int{-1, -1}, math.NaN()}}
	for i, h := range hs {
		for j, it := range want[i].iters {
			if h.Iters[j] != it {
				t.Errorf("%s: iterations to tolerance %d = %d, want %d", h.Method, j, h.Iters[j], it)
			}
			if it < 0 && !math.IsNaN(h.Seconds[j]) {
				t.Errorf("%s: seconds to an unreached tolerance = %g, want NaN", h.Method, h.Seconds[j])
			}
			if it >= 0 && h.Seconds[j] != 0.0125*float64(it)*float64(len(h.Method)) {
				t.Errorf("%s: seconds %g at iteration %d", h.Method, h.Seconds[j], it)
			}
		}
		if p := want[i].psnr; !(h.PSNR == p || math.IsNaN(p) && math.IsNaN(h.PSNR)) {
			t.Errorf("%s: PSNR %g, want %g", h.Method, h.PSNR, p)
		}
	}
}

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, testCurves(), nil, 6); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("table has %d lines, want a header and 3 rows:\n%s", len(lines), b.String())
	}
	if f := strings.Fields(lines[1]); strings.Join(f[:6], " ") != "greedy fast 3 0.413 5 0.688" {
		t.Errorf("first row %q", lines[1])
	}
	if f := strings.Fields(lines[3]); f[1] != "—" || f[5] != "—" {
		t.Errorf("diverging row %q should show — for unreached tolerances and missing PSNR", lines[3])
	}
}

func testReport() *Report {
	k := make([]float64, 32*32)
	k[0], k[1], k[32], k[32*31] = 0.7, -0.1, 0.05, -0.02
	crop, _ := KernelCrop("θ", k, 32, 32, 21)
	img := make([]float64, 16*20)
	for i := range img {
		img[i] = float64(i%20)/10 - 0.5 // values outside [0, 1] too
	}
	return &Report{
		Title:               "test <report>",
		Curves:              testCurves(),
		PSNRIter:            6,
		Scalars:             &ScalarSeries{Method: "m-ps", Alpha: []float64{1, 2, 2.5}, Beta: []float64{0, 0.5, 0.7}, AlphaStar: 3, BetaStar: 0.9},
		Kernels:             []Panel{crop, crop},
		Reconstructions:     []Panel{{Label: "ground truth", H: 16, W: 20, Pix: img}, {Label: "b", H: 16, W: 20, Pix: img}},
		ReconstructionImage: "test image 3 <of> 10",
		Notes:               []string{"a note & more"},
	}
}

func TestWriteProducesValidFiles(t *testing.T) {
	dir := t.TempDir()
	r := testReport()
	index, err := r.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	if index != filepath.Join(dir, "index.html") {
		t.Errorf("index path %s", index)
	}
	for _, name := range []string{"optimality_iter.png", "optimality_seconds.png", "scalars.png", "kernels.png", "reconstructions.png"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s does not decode: %v", name, err)
		}
		if b := img.Bounds(); b.Dx() < 200 || b.Dy() < 100 {
			t.Errorf("%s is only %v", name, b)
		}
	}
	for _, name := range []string{"optimality_iter.svg", "optimality_seconds.svg", "scalars.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		dec := xml.NewDecoder(bytes.NewReader(b))
		root := ""
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s is not XML: %v", name, err)
			}
			if s, ok := tok.(xml.StartElement); ok && root == "" {
				root = s.Name.Local
			}
		}
		if root != "svg" {
			t.Errorf("%s: root element %q, want svg", name, root)
		}
	}

	// curves.csv holds every curve's mean, min and max.
	f, err := os.Open(filepath.Join(dir, "curves.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+3*8 {
		t.Fatalf("curves.csv has %d rows, want 25", len(rows))
	}
	for i, row := range rows[1:] {
		c := r.Curves[i/8]
		mean, err := strconv.ParseFloat(row[3], 64)
		if err != nil || row[0] != c.Method || !(mean == c.Mean[i%8] || math.IsInf(mean, 1) && math.IsInf(c.Mean[i%8], 1)) {
			t.Errorf("curves.csv row %d = %v, want %s mean %g", i+1, row, c.Method, c.Mean[i%8])
		}
	}
	sf, err := os.Open(filepath.Join(dir, "scalars.csv"))
	if err != nil {
		t.Fatal(err)
	}
	sr := csv.NewReader(sf)
	sr.Comment = '#'
	srows, err := sr.ReadAll()
	sf.Close()
	if err != nil || len(srows) != 4 || srows[3][1] != "2.5" || srows[3][2] != "0.7" {
		t.Errorf("scalars.csv = %v (%v)", srows, err)
	}

	// index.html's table: numbers computed here from the curves.
	html, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	page := string(html)
	if !strings.Contains(page, "test &lt;report&gt;") || !strings.Contains(page, "a note &amp; more") {
		t.Error("index.html does not show the escaped title and note")
	}
	rowRE := regexp.MustCompile(`<tr><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td>`)
	got := rowRE.FindAllStringSubmatch(page, -1)
	if len(got) != 3 {
		t.Fatalf("index.html has %d table rows, want 3", len(got))
	}
	for i, c := range r.Curves {
		first := func(tol float64) (string, string) {
			for k, m := range c.Mean {
				if m <= tol {
					return strconv.Itoa(k), strconv.FormatFloat(c.Seconds[k], 'g', 3, 64)
				}
			}
			return "—", "—"
		}
		i4, s4 := first(1e-4)
		i6, s6 := first(1e-6)
		psnr := "—"
		if p, ok := c.PSNR[6]; ok {
			psnr = strconv.FormatFloat((p[0]+p[1])/2, 'f', 2, 64)
		}
		want := []string{c.Method, i4, s4, i6, s6, psnr}
		for j, w := range want {
			if got[i][j+1] != w {
				t.Errorf("index.html row %d column %d = %q, want %q", i, j, got[i][j+1], w)
			}
		}
	}
	for _, img := range []string{"optimality_iter.png", "optimality_seconds.png", "scalars.png", "kernels.png", "reconstructions.png"} {
		if !strings.Contains(page, `src="`+img+`"`) {
			t.Errorf("index.html does not show %s", img)
		}
	}
}

func TestWriteLeavesOutMissingExtras(t *testing.T) {
	dir := t.TempDir()
	if _, err := (&Report{Curves: testCurves()[:1]}).Write(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"scalars.png", "kernels.png", "reconstructions.png"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s written without its input", name)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	if strings.Contains(string(html), "kernels.png") {
		t.Error("index.html links a kernel figure that was not written")
	}
}

func TestWriteRejectsBadInput(t *testing.T) {
	short := testCurves()[0]
	short.Mean = short.Mean[:3]
	for name, r := range map[string]*Report{
		"no curves":      {},
		"nil curve":      {Curves: []*eval.Curve{nil}},
		"short mean":     {Curves: []*eval.Curve{short}},
		"bad panel":      {Curves: testCurves(), Reconstructions: []Panel{{Label: "x", H: 4, W: 4, Pix: make([]float64, 15)}}},
		"no truth":       {Curves: testCurves(), Reconstructions: []Panel{{Label: "x", H: 4, W: 4, Pix: make([]float64, 16)}}},
		"bad kernel":     {Curves: testCurves(), Kernels: []Panel{{Label: "x", H: 0, W: 4}}},
		"nan in scalars": {Curves: testCurves(), Scalars: &ScalarSeries{Alpha: []float64{1, math.NaN()}}},
	} {
		if _, err := r.Write(t.TempDir()); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestImageColours(t *testing.T) {
	img, _ := greyImage(Panel{H: 1, W: 4, Pix: []float64{-1, 0.5, 2, math.NaN()}})
	s := upscale(1, 4)
	for i, want := range []uint8{0, 128, 255, 0} {
		r, _, _, _ := img.At(i*s, 0).RGBA()
		if uint8(r>>8) != want {
			t.Errorf("grey value of pixel %d = %d, want %d", i, r>>8, want)
		}
	}
	// A panel with a grey range (a sinogram) maps Lo to black and Hi to
	// white, clips outside and says so under its label.
	img, caption := greyImage(Panel{H: 1, W: 5, Pix: []float64{-2, 1, 4, 7, 10}, Lo: 1, Hi: 7})
	s = upscale(1, 5)
	for i, want := range []uint8{0, 0, 128, 255, 255} {
		r, _, _, _ := img.At(i*s, 0).RGBA()
		if uint8(r>>8) != want {
			t.Errorf("grey range [1, 7]: value of pixel %d = %d, want %d", i, r>>8, want)
		}
	}
	if caption != "grey: black 1, white 7" {
		t.Errorf("grey range [1, 7]: caption %q", caption)
	}
	if c := diverging(0); c.R != 255 || c.G != 255 || c.B != 255 {
		t.Errorf("zero maps to %v, want white", c)
	}
	if r, b := diverging(1), diverging(-5); !(r.R > r.B && b.B > b.R) || b != diverging(-1) {
		t.Errorf("+1 maps to %v (want red), −5 to %v (want the blue end)", r, b)
	}
}

func TestDecadeTicks(t *testing.T) {
	ticks := decadeTicks{}.Ticks(1e-12, 100)
	labels := map[string]bool{}
	for _, tk := range ticks {
		e := math.Log10(tk.Value)
		if math.Abs(e-math.Round(e)) > 1e-12 {
			t.Errorf("tick at %g is not a power of ten", tk.Value)
		}
		if tk.Label != "" {
			labels[tk.Label] = true
		}
	}
	if len(ticks) != 15 || !labels["1e-12"] || !labels["1"] || !labels["1e-6"] {
		t.Errorf("%d ticks with labels %v", len(ticks), labels)
	}
}

func TestNiceTicks(t *testing.T) {
	for _, r := range [][2]float64{{0, 2.7}, {0, 300}, {0, 0.013}, {0, 40}} {
		ticks := niceTicks{}.Ticks(r[0], r[1])
		if len(ticks) < 3 || len(ticks) > 11 {
			t.Errorf("range %v: %d ticks", r, len(ticks))
		}
		for _, tk := range ticks {
			if tk.Value < r[0] || tk.Value > r[1]*(1+1e-9) {
				t.Errorf("range %v: tick %g outside", r, tk.Value)
			}
		}
	}
	if got := (niceTicks{}).Ticks(0, 300); got[1].Label != "100" {
		t.Errorf("ticks of [0, 300]: %v", got)
	}
}

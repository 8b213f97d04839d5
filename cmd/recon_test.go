package cmd

import (
	"bytes"
	"encoding/json"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/report"
)

// TestReconstructionsAgree trains a small M-PS, saves iterates with apply
// --out --save-at and with eval's --recon-at, and checks that both give the
// same iterate and PSNR of the first test function at iteration 5, that the
// stack has the shape N×H×W, that eval records PSNR and SSIM at the
// report's iteration, and that report draws the reconstruction figure.
func TestReconstructionsAgree(t *testing.T) {
	dir := t.TempDir()
	ckpt, applied, evaled := filepath.Join(dir, "m-ps"), filepath.Join(dir, "apply"), filepath.Join(dir, "eval")
	for _, args := range [][]string{
		{"train", "greedy", "--size", "12", "--n-train", "3", "--param", "m-ps", "--max-steps", "3", "--out", ckpt},
		{"apply", "--params", ckpt, "--n-test", "3", "--iters", "20", "--out", applied, "--save-at", "5,final"},
		{"eval", "--params", ckpt, "--methods", "nag", "--n-test", "3", "--iters", "20", "--fstar-iters", "50", "--cache", dir, "--recon-at", "5,15", "--out", evaled},
		{"report", "--curves", filepath.Join(evaled, "curves.json"), "--out", filepath.Join(dir, "report")},
	} {
		var o, e bytes.Buffer
		if code := Main(args, &o, &e); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, e.String())
		}
	}
	b, err := os.ReadFile(filepath.Join(applied, "x_t0005.npy"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b[:128]), "'shape': (3, 12, 12)") {
		t.Errorf("x_t0005.npy header %q does not give the shape (3, 12, 12)", b[10:80])
	}
	stack, err := checkpoint.DecodeNPY(b, "x_t0005.npy", 3*144)
	if err != nil {
		t.Fatal(err)
	}
	one, err := checkpoint.ReadNPY(filepath.Join(evaled, "recon", "greedy-m-ps_t0005.npy"), 144)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range one {
		if v != stack[i] {
			t.Fatalf("pixel %d of the first function at t = 5: apply %g, eval %g", i, stack[i], v)
		}
	}
	var saved []appliedIterate
	if b, err := os.ReadFile(filepath.Join(applied, "saved.json")); err != nil || json.Unmarshal(b, &saved) != nil {
		t.Fatalf("saved.json: %v", err)
	}
	// Where the iterates came from: runs show reads apply's provenance.json.
	var o, e bytes.Buffer
	if code := Main([]string{"runs", "show", applied}, &o, &e); code != 0 || !strings.Contains(o.String(), "command: l2o apply") || !strings.Contains(o.String(), "applied iterates: ") {
		t.Errorf("runs show of apply's folder: exit %d: %s%s", code, o.String(), e.String())
	}
	idx, _, err := readRecon(filepath.Join(evaled, "recon"))
	if err != nil {
		t.Fatal(err)
	}
	var psnr5 float64
	for _, im := range idx.Images {
		if im.File == "greedy-m-ps_t0005" {
			psnr5 = im.PSNR
		}
	}
	if len(saved) != 2 || saved[0].Iter != 5 || saved[1].Iter != 20 || len(saved[0].PSNR) != 3 || math.Abs(saved[0].PSNR[0]-psnr5) > 1e-12 || psnr5 == 0 {
		t.Errorf("apply saved %+v; eval's PSNR at 5 %g", saved, psnr5)
	}
	curves, _ := readCurvesFile(t, evaled)
	if p, s := curves[0].PSNR[15], curves[0].SSIM[15]; len(p) != 3 || len(s) != 3 || !(s[0] > 0 && s[0] <= 1) {
		t.Errorf("eval recorded PSNR %v and SSIM %v at the report's iteration 15", p, s)
	}
	if _, err := os.Stat(filepath.Join(dir, "report", "reconstructions.png")); err != nil {
		t.Errorf("report drew no reconstruction figure: %v", err)
	}
}

// TestReconSavesTheSinogram saves the reconstructions of a small CT
// function: the observation is its sinogram y (90 angles × 17 detector
// bins), saved bitwise with that shape, without a PSNR, as a PNG of its
// size, and drawn by report as a 90×17 panel labelled as a sinogram whose
// grey scale is y's range, with its axes in the figure's caption.
func TestReconSavesTheSinogram(t *testing.T) {
	prob, err := problem.Lookup("ct-small", problem.Options{H: 12})
	if err != nil {
		t.Fatal(err)
	}
	truth := make([]float64, 2*144)
	for i := range truth {
		truth[i] = float64((i*7)%11) / 10
	}
	o, err := prob.Instantiate(truth, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	const angles, bins = 90, 17 // ⌈12√2⌉ bins
	y0 := o.Y[:angles*bins]     // the first function's sinogram
	r, err := newReconWriter(o, "test phantom 0")
	if err != nil {
		t.Fatal(err)
	}
	r.take("nag", 3, make([]float64, 144))
	dir := filepath.Join(t.TempDir(), "recon")
	if err := r.write(dir, "nag", 5); err != nil {
		t.Fatal(err)
	}
	idx, pix, err := readRecon(dir)
	if err != nil {
		t.Fatal(err)
	}
	var obs *reconImage
	for i := range idx.Images {
		if idx.Images[i].File == "observation" {
			obs = &idx.Images[i]
		}
	}
	if obs == nil {
		t.Fatalf("recon/index.json lists no observation: %+v", idx.Images)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range y0 {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if len(obs.Shape) != 2 || obs.Shape[0] != angles || obs.Shape[1] != bins || obs.PSNR != 0 ||
		len(obs.Grey) != 2 || obs.Grey[0] != lo || obs.Grey[1] != hi || !strings.Contains(obs.Label, "sinogram") {
		t.Errorf("observation record %+v: want shape [%d %d], no PSNR, grey [%g %g], a sinogram label", *obs, angles, bins, lo, hi)
	}
	if len(pix["observation"]) != len(y0) {
		t.Fatalf("observation.npy holds %d values, the sinogram %d", len(pix["observation"]), len(y0))
	}
	for i, v := range pix["observation"] {
		if math.Float64bits(v) != math.Float64bits(y0[i]) {
			t.Fatalf("observation.npy value %d = %v, y = %v", i, v, y0[i])
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "observation.npy"))
	if err != nil || !strings.Contains(string(b[:128]), "'shape': (90, 17)") {
		t.Errorf("observation.npy header %q (%v) does not give the shape (90, 17)", b[10:80], err)
	}
	f, err := os.Open(filepath.Join(dir, "observation.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil || img.Bounds().Dx() != bins || img.Bounds().Dy() != angles {
		t.Errorf("observation.png: %v (%v), want %d×%d pixels", img.Bounds(), err, bins, angles)
	}

	rep := &report.Report{}
	if err := reportRecon(rep, dir, 3); err != nil {
		t.Fatal(err)
	}
	var panel *report.Panel
	for i, p := range rep.Reconstructions {
		if strings.HasPrefix(p.Label, "observation y: sinogram") {
			panel = &rep.Reconstructions[i]
		}
	}
	if panel == nil || panel.H != angles || panel.W != bins || panel.Lo != lo || panel.Hi != hi || len(panel.Pix) != len(y0) {
		t.Fatalf("the report's observation panel %+v: want %d×%d with grey [%g, %g]", panel, angles, bins, lo, hi)
	}
	for i, v := range panel.Pix {
		if math.Float64bits(v) != math.Float64bits(y0[i]) {
			t.Fatalf("observation panel value %d = %v, y = %v", i, v, y0[i])
		}
	}
	for _, want := range []string{"sinogram, not an image", "90 rows are the projection angles θ = 0°, 2°, …, 178° (top to bottom)",
		"17 columns the detector bins, 1 pixel wide, at s = -8 … 8 pixels from the rotation axis (left to right)"} {
		if !strings.Contains(rep.ReconstructionNote, want) {
			t.Errorf("the figure's caption %q does not say %q", rep.ReconstructionNote, want)
		}
	}
}

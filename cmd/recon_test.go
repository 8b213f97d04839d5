package cmd

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
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

package data

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/refdata"
)

// pillowLumaRGB are RGB triples and, in pillowLuma, the grey levels Pillow
// 9.4 gives them (Image.frombytes("RGB", ...).convert("L"); the same for
// RGBA with alpha 7).
var pillowLumaRGB = [][3]uint8{{0, 0, 0}, {255, 255, 255}, {255, 0, 0}, {0, 255, 0}, {0, 0, 255},
	{1, 2, 3}, {128, 128, 127}, {200, 100, 50}, {17, 200, 240}, {254, 1, 128}}

const pillowLuma = "00ff4c961d02807c965b"

// lumaPNG encodes the triples as a 1×10 PNG: RGB when alpha is 255 (Go
// writes an opaque image as truecolour), RGBA otherwise.
func lumaPNG(t *testing.T, alpha uint8) []byte {
	t.Helper()
	im := image.NewNRGBA(image.Rect(0, 0, len(pillowLumaRGB), 1))
	for x, c := range pillowLumaRGB {
		im.SetNRGBA(x, 0, color.NRGBA{c[0], c[1], c[2], alpha})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, im); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestPillowGreyMatchesPillow(t *testing.T) {
	for _, alpha := range []uint8{255, 7} {
		pix, h, w, err := PillowGrey(lumaPNG(t, alpha))
		if err != nil {
			t.Fatal(err)
		}
		if h != 1 || w != len(pillowLumaRGB) || hex.EncodeToString(pix) != pillowLuma {
			t.Errorf("alpha %d: %d×%d %x, Pillow %s", alpha, h, w, pix, pillowLuma)
		}
	}
}

// TestPillowResizeBicubicMatchesPillow compares with Pillow 9.4's
// Image.resize((w, h), Image.BICUBIC) of a 7×11 "L" image with pixels
// (37i + 91j + 13ij) mod 256: down, up, one axis only, and the CT size.
func TestPillowResizeBicubicMatchesPillow(t *testing.T) {
	const h, w = 7, 11
	src := make([]uint8, h*w)
	for i := range h {
		for j := range w {
			src[i*w+j] = uint8((i*37 + j*91 + i*j*13) % 256)
		}
	}
	for _, c := range []struct {
		oh, ow int
		want   string // hex of the pixels, or "sha1:" and their SHA-1
	}{
		{5, 4, "5f78888080747fa496a3a46181889e679a808a8a"},
		{13, 17, "002063ad720a4096d4521e6cc8c3305a9d062b73c68c2166999e5a539dbaa7626474194493f0b950ab9d3a67b3f6a074bf772d2b61a7b59d7a8b74424f86d1af98b991693f80b64f61a13f408a2f1c78d2dc75a3de529fdd5779d95962d15c42b0d7ad2f78cf66aeec84a3f4919cf99f96fcc05c04448c838081919393b0b3a4beccba602e534d409f5a26a18c40acad5fc2de862b23946628b36e40d0c4615a78a595a3d3975d537a9cc68e63c8d2953a52b87c88f2c67a418edadcb0755e8dc884565496b8a463539ea092e7c27e2567e2ac591ea4d3792b3dd1aa69"},
		{7, 4, "4e6b7b7e868f9e8b785f66b3aab7ba56698d924fa07fa78c93827d84"},
		{3, 11, "1b88b6517f7c48b5b27e7b6fa77fab77af7bbe7f4b83c35aa0996f76aeb54c848b"},
		{2, 30, "2c375a88a1a49f94837673757b87918869536898b9bcb1a1876e6a758083afa9947b7381919aa1a1927e757b889199a0acb9b8966a555a68737d8587"},
		{256, 256, "sha1:06a9b4f7b8119ca3242f5ea719df9b753171b120"},
	} {
		got, err := PillowResizeBicubic(src, h, w, c.oh, c.ow)
		if err != nil {
			t.Fatal(err)
		}
		g := hex.EncodeToString(got)
		if strings.HasPrefix(c.want, "sha1:") {
			sum := sha1.Sum(got)
			g = "sha1:" + hex.EncodeToString(sum[:])
		}
		if g != c.want {
			t.Errorf("%d×%d → %d×%d: %s, Pillow %s", h, w, c.oh, c.ow, g, c.want)
		}
	}
	if _, err := PillowResizeBicubic(src, h, w+1, 3, 3); err == nil {
		t.Error("wrong pixel count: no error")
	}
}

// tinyMirror writes two test-made PNGs into a mirror folder and returns
// the folder and a data set converting them to grey PGMs.
func tinyMirror(t *testing.T) (string, *Dataset) {
	t.Helper()
	dir := t.TempDir()
	d := &Dataset{Name: "tiny", What: "two test images", Licence: "made by the test"}
	for i, alpha := range []uint8{255, 7} {
		b := lumaPNG(t, alpha)
		s := SourceFile{Repo: "owner/repo", Commit: "0123", Path: fmt.Sprintf("dir with space/im %d.png", i)}
		sum := sha256.Sum256(b)
		s.SHA256 = hex.EncodeToString(sum[:])
		p := filepath.Join(dir, filepath.FromSlash(s.Repo), filepath.FromSlash(s.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		d.Sources = append(d.Sources, s)
	}
	d.build = func(paths []string) (map[string][]byte, error) {
		out := map[string][]byte{}
		for i, p := range paths {
			pix, h, w, err := readGrey(p)
			if err != nil {
				return nil, err
			}
			out[fmt.Sprintf("grey/%03d.pgm", i)] = pgmBytes(pix, h, w)
		}
		return out, nil
	}
	return dir, d
}

// wantTiny is the PGM Pillow's grey conversion gives for each tiny image.
func wantTiny(t *testing.T) []byte {
	raw, _ := hex.DecodeString(pillowLuma)
	return append([]byte("P5\n10 1\n255\n"), raw...)
}

func checkTiny(t *testing.T, to string) {
	t.Helper()
	for i := range 2 {
		got, err := os.ReadFile(filepath.Join(to, "tiny", "grey", fmt.Sprintf("%03d.pgm", i)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, wantTiny(t)) {
			t.Errorf("grey/%03d.pgm = %q, want %q", i, got, wantTiny(t))
		}
	}
}

func TestFetchFromFolderAndServer(t *testing.T) {
	mirror, d := tinyMirror(t)
	var mu sync.Mutex
	var ranges []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ranges = append(ranges, r.Header.Get("Range"))
		mu.Unlock()
		http.FileServer(http.Dir(mirror)).ServeHTTP(w, r)
	}))
	defer srv.Close()

	for _, from := range []string{mirror, srv.URL} {
		to := t.TempDir()
		var log bytes.Buffer
		if err := fetchOne(d, FetchOptions{From: from, To: to, Log: &log}.withDefaults()); err != nil {
			t.Fatalf("from %s: %v", from, err)
		}
		checkTiny(t, to)
		if !strings.Contains(log.String(), "licence: made by the test") {
			t.Errorf("log does not print the licence: %q", log.String())
		}
		// A second fetch keeps the identical outputs and the verified sources.
		log.Reset()
		if err := fetchOne(d, FetchOptions{From: from, To: to, Log: &log}.withDefaults()); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(log.String(), "(0 fetched, 2 already here); 0 written, 2 already identical") {
			t.Errorf("second fetch: %q", log.String())
		}
		// An output edited since is not overwritten.
		edited := filepath.Join(to, "tiny", "grey", "001.pgm")
		if err := os.WriteFile(edited, []byte("P5\n1 1\n255\n\x00"), 0o644); err != nil {
			t.Fatal(err)
		}
		err := fetchOne(d, FetchOptions{From: from, To: to}.withDefaults())
		if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), edited) {
			t.Errorf("edited output: error %v, want ErrExists naming %s", err, edited)
		}
	}

	// Resume: half of the first file is there already; the server is asked
	// for the rest and the completed file verifies.
	to := t.TempDir()
	s := d.Sources[0]
	full, _ := os.ReadFile(filepath.Join(mirror, filepath.FromSlash(s.Repo), filepath.FromSlash(s.Path)))
	part := filepath.Join(to, ".sources", filepath.FromSlash(s.Repo), filepath.FromSlash(s.Path)) + ".part"
	if err := os.MkdirAll(filepath.Dir(part), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(part, full[:len(full)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	ranges = nil
	if err := fetchOne(d, FetchOptions{From: srv.URL, To: to}.withDefaults()); err != nil {
		t.Fatal(err)
	}
	checkTiny(t, to)
	if want := fmt.Sprintf("bytes=%d-", len(full)/2); len(ranges) != 2 || ranges[0] != want || ranges[1] != "" {
		t.Errorf("requests' Range headers %q, want [%q, \"\"]", ranges, want)
	}
}

func TestFetchRefusesChangedByte(t *testing.T) {
	mirror, d := tinyMirror(t)
	s := d.Sources[1]
	p := filepath.Join(mirror, filepath.FromSlash(s.Repo), filepath.FromSlash(s.Path))
	b, _ := os.ReadFile(p)
	b[len(b)/2] ^= 1
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(mirror)))
	defer srv.Close()
	for _, from := range []string{mirror, srv.URL} {
		to := t.TempDir()
		err := fetchOne(d, FetchOptions{From: from, To: to}.withDefaults())
		if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), s.Path) {
			t.Errorf("from %s: error %v, want ErrChecksum naming %s", from, err, s.Path)
		}
		if _, err := os.Stat(filepath.Join(to, "tiny")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("from %s: outputs written despite a refused source", from)
		}
	}
}

func TestSourceURL(t *testing.T) {
	s := SourceFile{Repo: "o/r", Commit: "abc", Path: "Dataset/COVID/Covid (1).png"}
	if got, want := sourceURL(s, ""), Upstream+"/o/r/abc/Dataset/COVID/Covid%20%281%29.png"; got != want {
		t.Errorf("upstream URL %s, want %s", got, want)
	}
	if got, want := sourceURL(s, "http://m/x/"), "http://m/x/o/r/Dataset/COVID/Covid%20%281%29.png"; got != want {
		t.Errorf("mirror URL %s, want %s", got, want)
	}
	if err := Fetch([]string{"cifar"}, FetchOptions{To: t.TempDir()}); !errors.Is(err, ErrUnknown) {
		t.Errorf("unknown data set: error %v", err)
	}
}

// TestFetchFullMirror converts every pinned STL-10 and CT source of the
// mirror named by $L2O_MIRROR; the conversion itself checks each image
// against its pinned pixel SHA-1.
func TestFetchFullMirror(t *testing.T) {
	mirror := refdata.Mirror()
	if mirror == "" {
		t.Skip("set L2O_MIRROR to an offline mirror of the upstream files (OWNER/REPO/PATH) to convert all 250 images")
	}
	if err := Fetch([]string{"stl10", "covid-ct"}, FetchOptions{From: mirror, To: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
}

func TestClipThresholds(t *testing.T) {
	const n, step = 101, 0.002
	// Raw float32 coefficients whose slopes (1.4 and −0.1) the projection
	// clamps to 1 and 0.
	cvx, ccv := make([]float64, n), make([]float64, n)
	for k := range n {
		x := -0.1 + float64(k)*step
		h := max(-0.002, min(0.002, x))
		cvx[k] = float64(float32(1.5*h - 0.1*x))
		ccv[k] = float64(float32(1.5*(max(-0.098, min(0.098, x))-h) - 0.1*x))
	}
	h, T, err := clipThresholds(cvx, ccv, step)
	if err != nil || math.Abs(h-0.002) > 1e-15 || math.Abs(T-0.098) > 1e-15 {
		t.Errorf("clipThresholds = %v, %v, %v; want 0.002, 0.098", h, T, err)
	}
	for k := 61; k < n; k++ { // a slope of 1/2 between knots 60 and 61 has no clip form
		ccv[k] -= 0.9 * step
	}
	if _, _, err := clipThresholds(cvx, ccv, step); err == nil {
		t.Error("slope 1/2: no error")
	}
}

// TestExportWCRR exports the pretrained checkpoint (from $L2O_MIRROR or a
// fetched folder's verified sources) with L computed on 32×32 images, and
// compares every constant with the reference values to 1e-12 relative.
func TestExportWCRR(t *testing.T) {
	var paths []string
	for _, s := range wcrrSources {
		var p string
		if m := refdata.Mirror(); m != "" {
			p = filepath.Join(m, filepath.FromSlash(s.Repo), filepath.FromSlash(s.Path))
		} else {
			p, _ = refdata.File(".sources", filepath.FromSlash(s.Repo), filepath.FromSlash(s.Path))
		}
		if sum, err := fileSHA256(p); err != nil || sum != s.SHA256 {
			t.Skipf("WCRR checkpoint not available (%v): %s, or set L2O_MIRROR", err, refdata.SkipReason)
		}
		paths = append(paths, p)
	}
	b, err := exportWCRR(paths[0], paths[1], 32)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Mu, MuLog, L float64
		Conv         struct {
			Layers []struct{ Weight [][][][]float64 }
		}
		Potential struct {
			Scaling    struct{ S, Lambda []float64 }
			ClosedForm struct{ H, T []float64 }
		}
	}
	if err := json.Unmarshal(bytes.NewBufferString(strings.NewReplacer(`"mu_log_param"`, `"MuLog"`, `"lambda_at_sigma"`, `"Lambda"`,
		`"closed_form"`, `"ClosedForm"`, `"h_c"`, `"H"`, `"T_c"`, `"T"`).Replace(string(b))).Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../wcrr/testdata/wcrr_sigma18_check.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Export struct {
			Mu        float64            `json:"mu"`
			MuLog     float64            `json:"mu_log_param"`
			LBySize   map[string]float64 `json:"L_by_image_size"`
			Lambda    []float64          `json:"lambda_at_sigma"`
			S         []float64          `json:"s"`
			H         []float64          `json:"h_c"`
			T         []float64          `json:"T_c"`
			LayerSums []struct {
				Sum   float64 `json:"sum"`
				SumSq float64 `json:"sum_sq"`
			} `json:"layer_sums"`
		} `json:"export"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	e := ref.Export
	rel := func(what string, g, w float64) {
		if d := math.Abs(g-w) / math.Abs(w); d > 1e-12 {
			t.Errorf("%s = %.17g, reference %.17g (rel %.2g)", what, g, w, d)
		}
	}
	rel("mu", got.Mu, e.Mu)
	rel("mu_log_param", got.MuLog, e.MuLog)
	rel("L on 32×32", got.L, e.LBySize["32"])
	for name, pair := range map[string][2][]float64{"s": {got.Potential.Scaling.S, e.S}, "lambda": {got.Potential.Scaling.Lambda, e.Lambda},
		"h_c": {got.Potential.ClosedForm.H, e.H}, "T_c": {got.Potential.ClosedForm.T, e.T}} {
		if len(pair[0]) != 60 || len(pair[1]) != 60 {
			t.Fatalf("%s: %d values, reference %d, want 60", name, len(pair[0]), len(pair[1]))
		}
		for c := range pair[0] {
			rel(fmt.Sprintf("%s[%d]", name, c), pair[0][c], pair[1][c])
		}
	}
	for l, layer := range got.Conv.Layers {
		var sum, sumSq float64
		for _, o := range layer.Weight {
			for _, c := range o {
				for _, r := range c {
					for _, v := range r {
						sum, sumSq = sum+v, sumSq+v*v
					}
				}
			}
		}
		rel(fmt.Sprintf("layer %d Σw²", l), sumSq, e.LayerSums[l].SumSq)
		if math.Abs(sum-e.LayerSums[l].Sum) > 1e-12*math.Sqrt(sumSq) {
			t.Errorf("layer %d: Σw = %.17g, reference %.17g", l, sum, e.LayerSums[l].Sum)
		}
	}
}

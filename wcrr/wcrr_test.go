package wcrr

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/greedyl2o/greedyl2o/internal/refdata"
)

// dataDir returns the folder holding the fetched pretrained model
// (wcrr_sigma18.json, made by "l2o data fetch wcrr"), or "" when it has not
// been fetched.
func dataDir() string {
	p, ok := refdata.File("wcrr", "wcrr_sigma18.json")
	if !ok {
		return ""
	}
	return filepath.Dir(p)
}

// checkFile holds the reference values of the pretrained model, computed
// with the repository's own code in float64.
const checkFile = "testdata/wcrr_sigma18_check.json"

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func norm(a []float64) float64 { return math.Sqrt(dot(a, a)) }

func randImages(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.Float64()
	}
	return x
}

func randNormal(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

func axpy(a float64, x, y []float64) []float64 {
	out := make([]float64, len(y))
	for i := range y {
		out[i] = y[i] + a*x[i]
	}
	return out
}

type checkImage struct {
	S         float64     `json:"S"`
	Grad      [][]float64 `json:"grad"`
	WxEntries []struct {
		C, I, J  int
		Wx, Dpsi float64
	} `json:"Wx_entries"`
	Regions struct {
		BelowH  int `json:"below_h"`
		Between int `json:"between_h_T"`
		AboveT  int `json:"above_T"`
	} `json:"region_counts_abs_sWx"`
	AltL struct {
		L           float64 `json:"L"`
		S           float64 `json:"S"`
		GradEntries []struct {
			I, J  int
			Value float64
		} `json:"grad_entries"`
	} `json:"alt_L_fourier"`
}

func flatten(a [][]float64) []float64 {
	var out []float64
	for _, row := range a {
		out = append(out, row...)
	}
	return out
}

func TestPretrainedAgainstReference(t *testing.T) {
	dir := dataDir()
	if dir == "" {
		t.Skip("pretrained WCRR weights not fetched: " + refdata.SkipReason)
	}
	m, err := Load(filepath.Join(dir, "wcrr_sigma18.json"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Channels() != 60 {
		t.Fatalf("Channels() = %d, want 60", m.Channels())
	}
	raw, err := os.ReadFile(checkFile)
	if err != nil {
		t.Fatal(err)
	}
	var check struct {
		Export exportCheck           `json:"export"`
		Images map[string]checkImage `json:"images"`
	}
	if err := json.Unmarshal(raw, &check); err != nil {
		t.Fatal(err)
	}
	check.Export.compare(t, m)
	// λmax(CᵀC) on 32×32, listed in the README (computed there by Lanczos).
	unnormalised := &Model{Layers: m.Layers, L: 1, Mu: m.Mu, H: m.H, T: m.T}
	lambda32, _, err := unnormalised.NormSquared(32, 32, 150, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := 394.03504895914074; math.Abs(lambda32-want) > 1e-9*want {
		t.Errorf("λmax(CᵀC) on 32×32 = %.14g, README %.14g", lambda32, want)
	}

	names := []string{"pattern", "lcg_noise"}
	const h, w = 32, 32
	var x []float64
	for _, name := range names {
		if _, ok := check.Images[name]; !ok {
			t.Fatalf("check file: image %q missing", name)
		}
		x = append(x, refdata.WCRRCheckImage(name)...)
	}
	n := len(names)
	grad := make([]float64, len(x))
	values, err := m.ValueGrad(grad, x, n, h, w)
	if err != nil {
		t.Fatal(err)
	}
	onlyValues, err := m.Value(x, n, h, w)
	if err != nil {
		t.Fatal(err)
	}
	onlyGrad := make([]float64, len(x))
	if err := m.Grad(onlyGrad, x, n, h, w); err != nil {
		t.Fatal(err)
	}
	z := make([]float64, n*m.Channels()*h*w)
	if err := m.Apply(z, x, n, h, w); err != nil {
		t.Fatal(err)
	}
	dz := make([]float64, len(z))
	if err := m.PsiPrime(dz, z, n, h, w); err != nil {
		t.Fatal(err)
	}
	for k, name := range names {
		img := check.Images[name]
		for _, got := range []float64{values[k], onlyValues[k]} {
			if rel := math.Abs(got-img.S) / img.S; rel > 1e-12 {
				t.Errorf("%s: S = %.17g, reference %.17g, rel %g", name, got, img.S, rel)
			}
		}
		want := flatten(img.Grad)
		var maxErr float64
		for i, g := range want {
			maxErr = max(maxErr, math.Abs(grad[k*h*w+i]-g), math.Abs(onlyGrad[k*h*w+i]-g))
		}
		if maxErr > 1e-14 {
			t.Errorf("%s: max |∇S − reference| = %g > 1e-14", name, maxErr)
		}
		for _, e := range img.WxEntries {
			i := ((k*m.Channels()+e.C)*h+e.I)*w + e.J
			if d := math.Abs(z[i] - e.Wx); d > 1e-14*(1+math.Abs(e.Wx)) {
				t.Errorf("%s: (Wx)_%d[%d][%d] = %g, reference %g", name, e.C, e.I, e.J, z[i], e.Wx)
			}
			if d := math.Abs(dz[i] - e.Dpsi); d > 1e-13*(1+math.Abs(e.Dpsi)) {
				t.Errorf("%s: ψ'_%d at [%d][%d] = %g, reference %g", name, e.C, e.I, e.J, dz[i], e.Dpsi)
			}
		}
		var below, between, above int
		for c := range m.Channels() {
			plane := z[(k*m.Channels()+c)*h*w : (k*m.Channels()+c+1)*h*w]
			for _, v := range plane {
				switch a := math.Abs(v); {
				case a < m.H[c]:
					below++
				case a < m.T[c]:
					between++
				default:
					above++
				}
			}
		}
		if below != img.Regions.BelowH || between != img.Regions.Between || above != img.Regions.AboveT {
			t.Errorf("%s: region counts %d/%d/%d, reference %d/%d/%d", name, below, between, above,
				img.Regions.BelowH, img.Regions.Between, img.Regions.AboveT)
		}

		// The same model with the Fourier estimate of L.
		alt := &Model{Layers: m.Layers, L: img.AltL.L, Mu: m.Mu, H: m.H, T: m.T}
		xk := x[k*h*w : (k+1)*h*w]
		ag := make([]float64, h*w)
		av, err := alt.ValueGrad(ag, xk, 1, h, w)
		if err != nil {
			t.Fatal(err)
		}
		if rel := math.Abs(av[0]-img.AltL.S) / img.AltL.S; rel > 1e-12 {
			t.Errorf("%s with Fourier L: S = %.17g, reference %.17g", name, av[0], img.AltL.S)
		}
		for _, e := range img.AltL.GradEntries {
			if d := math.Abs(ag[e.I*w+e.J] - e.Value); d > 1e-14 {
				t.Errorf("%s with Fourier L: ∇S[%d][%d] = %g, reference %g", name, e.I, e.J, ag[e.I*w+e.J], e.Value)
			}
		}
	}
}

// exportCheck holds the reference export's constants and sums of its
// weights (the weights themselves carry no licence to hold them here).
type exportCheck struct {
	Mu        float64   `json:"mu"`
	L         float64   `json:"L"`
	H         []float64 `json:"h_c"`
	T         []float64 `json:"T_c"`
	LayerSums []struct {
		Count  int     `json:"count"`
		Sum    float64 `json:"sum"`
		SumAbs float64 `json:"sum_abs"`
		SumSq  float64 `json:"sum_sq"`
	} `json:"layer_sums"`
}

// compare checks m's constants against the reference export to 1e-12
// relative (the weights through their sum, sum of |w| and sum of w²).
func (e exportCheck) compare(t *testing.T, m *Model) {
	t.Helper()
	rel := func(what string, got, want float64) {
		if d := math.Abs(got-want) / math.Abs(want); d > 1e-12 {
			t.Errorf("%s = %.17g, reference %.17g (rel %.2g)", what, got, want, d)
		}
	}
	rel("mu", m.Mu, e.Mu)
	rel("L", m.L, e.L)
	if len(e.H) != m.Channels() || len(e.T) != m.Channels() || len(e.LayerSums) != 3 {
		t.Fatalf("check file: %d h_c, %d T_c, %d layer sums; want %d, %d, 3", len(e.H), len(e.T), len(e.LayerSums), m.Channels(), m.Channels())
	}
	for c := range e.H {
		rel(fmt.Sprintf("h_c[%d]", c), m.H[c], e.H[c])
		rel(fmt.Sprintf("T_c[%d]", c), m.T[c], e.T[c])
	}
	for l, want := range e.LayerSums {
		var sum, sumAbs, sumSq float64
		for _, v := range m.Layers[l].Weight {
			sum, sumAbs, sumSq = sum+v, sumAbs+math.Abs(v), sumSq+v*v
		}
		if len(m.Layers[l].Weight) != want.Count {
			t.Errorf("layer %d: %d weights, reference %d", l, len(m.Layers[l].Weight), want.Count)
		}
		rel(fmt.Sprintf("layer %d: Σ|w|", l), sumAbs, want.SumAbs)
		rel(fmt.Sprintf("layer %d: Σw²", l), sumSq, want.SumSq)
		if d := math.Abs(sum - want.Sum); d > 1e-12*sumAbs {
			t.Errorf("layer %d: Σw = %.17g, reference %.17g", l, sum, want.Sum)
		}
	}
}

func TestAdjoint(t *testing.T) {
	m := Random(1, [3]int{2, 3, 4}, 5)
	rng := rand.New(rand.NewPCG(7, 8))
	for _, sz := range [][3]int{{2, 13, 17}, {1, 4, 3}, {3, 8, 8}} {
		n, h, w := sz[0], sz[1], sz[2]
		u := randNormal(rng, n*h*w)
		v := randNormal(rng, n*m.Channels()*h*w)
		wu := make([]float64, len(v))
		wtv := make([]float64, len(u))
		if err := m.Apply(wu, u, n, h, w); err != nil {
			t.Fatal(err)
		}
		if err := m.Adjoint(wtv, v, n, h, w); err != nil {
			t.Fatal(err)
		}
		lhs, rhs := dot(wu, v), dot(u, wtv)
		if rel := math.Abs(lhs-rhs) / (norm(wu) * norm(v)); rel > 1e-12 {
			t.Errorf("%v: ⟨Wu, v⟩ = %v, ⟨u, Wᵀv⟩ = %v, rel %g", sz, lhs, rhs, rel)
		}
	}
}

// regionCounts returns how many responses of W x fall where ψ” = μ, −1, 0,
// checking on the way that PsiSecond takes no other value.
func regionCounts(t *testing.T, m *Model, x []float64, n, h, w int) [3]int {
	t.Helper()
	z := make([]float64, n*m.Channels()*h*w)
	if err := m.Apply(z, x, n, h, w); err != nil {
		t.Fatal(err)
	}
	if err := m.PsiSecond(z, z, n, h, w); err != nil {
		t.Fatal(err)
	}
	var counts [3]int
	for i, v := range z {
		switch v {
		case m.Mu:
			counts[0]++
		case -1:
			counts[1]++
		case 0:
			counts[2]++
		default:
			t.Fatalf("ψ''[%d] = %v, want one of μ = %v, −1, 0", i, v, m.Mu)
		}
	}
	return counts
}

func TestGradAgainstFiniteDifferences(t *testing.T) {
	m := Random(2, [3]int{2, 3, 4}, 8)
	rng := rand.New(rand.NewPCG(9, 10))
	const n, h, w = 2, 20, 23
	x := randImages(rng, n*h*w)
	counts := regionCounts(t, m, x, n, h, w)
	for r, c := range counts {
		if c == 0 {
			t.Fatalf("region %d of ψ is not exercised (counts %v): the test would be weak", r, counts)
		}
	}
	grad := make([]float64, len(x))
	values, err := m.ValueGrad(grad, x, n, h, w)
	if err != nil {
		t.Fatal(err)
	}
	const eps = 1e-6
	for trial := range 3 {
		d := randNormal(rng, len(x))
		plus, err := m.Value(axpy(eps, d, x), n, h, w)
		if err != nil {
			t.Fatal(err)
		}
		minus, err := m.Value(axpy(-eps, d, x), n, h, w)
		if err != nil {
			t.Fatal(err)
		}
		for k := range n {
			fd := (plus[k] - minus[k]) / (2 * eps)
			gk, dk := grad[k*h*w:(k+1)*h*w], d[k*h*w:(k+1)*h*w]
			an := dot(gk, dk)
			if diff := math.Abs(fd - an); diff > 1e-6*norm(gk)*norm(dk) {
				t.Errorf("trial %d image %d: FD %v, ⟨∇S, d⟩ %v (S = %v)", trial, k, fd, an, values[k])
			}
		}
	}
}

func TestHessVecAgainstFiniteDifferences(t *testing.T) {
	m := Random(3, [3]int{2, 3, 4}, 6)
	rng := rand.New(rand.NewPCG(11, 12))
	const n, h, w = 2, 16, 19
	x := randImages(rng, n*h*w)
	v := randNormal(rng, n*h*w)
	hv := make([]float64, len(x))
	if err := m.HessVec(hv, x, v, n, h, w); err != nil {
		t.Fatal(err)
	}
	// ψ' is piecewise linear, so the central difference of ∇S is exact up to
	// rounding unless a response crosses a kink within ±eps·Wv.
	const eps = 1e-7
	gp := make([]float64, len(x))
	gm := make([]float64, len(x))
	if err := m.Grad(gp, axpy(eps, v, x), n, h, w); err != nil {
		t.Fatal(err)
	}
	if err := m.Grad(gm, axpy(-eps, v, x), n, h, w); err != nil {
		t.Fatal(err)
	}
	fd := make([]float64, len(x))
	for i := range fd {
		fd[i] = (gp[i] - gm[i]) / (2 * eps)
	}
	diff := axpy(-1, fd, hv)
	if rel := norm(diff) / norm(hv); rel > 1e-6 {
		t.Errorf("‖HessVec − FD‖/‖HessVec‖ = %g", rel)
	}
	// Curvature along v is bounded by the spectrum of ψ'': −‖Wv‖² ≤ ⟨v, ∇²S v⟩ ≤ μ‖Wv‖².
	wv := make([]float64, n*m.Channels()*h*w)
	if err := m.Apply(wv, v, n, h, w); err != nil {
		t.Fatal(err)
	}
	q, wv2 := dot(v, hv), dot(wv, wv)
	if q < -wv2*(1+1e-12) || q > m.Mu*wv2*(1+1e-12) {
		t.Errorf("⟨v, ∇²S v⟩ = %v outside [−‖Wv‖², μ‖Wv‖²] = [%v, %v]", q, -wv2, m.Mu*wv2)
	}
}

func TestLipschitz(t *testing.T) {
	const mu = 10
	m := Random(4, [3]int{2, 3, 4}, mu)
	const h, w = 32, 32
	// Random normalises ‖W‖ = 1 on 32×32; an independent start must agree.
	normSq, top, err := m.NormSquared(h, w, 150, 99)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(normSq-1) > 1e-6 {
		t.Errorf("‖W‖² on 32×32 = %v, want 1 (Random's normalisation)", normSq)
	}
	rng := rand.New(rand.NewPCG(13, 14))
	gu := make([]float64, h*w)
	gv := make([]float64, h*w)
	bound := m.LipschitzBound() * normSq * (1 + 1e-6)
	for trial := range 5 {
		u := randImages(rng, h*w)
		v := axpy(0.1*float64(trial+1), randNormal(rng, h*w), u)
		if err := m.Grad(gu, u, 1, h, w); err != nil {
			t.Fatal(err)
		}
		if err := m.Grad(gv, v, 1, h, w); err != nil {
			t.Fatal(err)
		}
		ratio := norm(axpy(-1, gv, gu)) / norm(axpy(-1, v, u))
		if ratio > bound {
			t.Errorf("trial %d: ‖∇S(u) − ∇S(v)‖/‖u − v‖ = %v > μ‖W‖² = %v", trial, ratio, bound)
		}
	}
	// Near 0 every response is in the inner region, ∇S(x) = μ WᵀW x, so along
	// the top eigenvector the bound is attained.
	scale := 1e-3 * m.H[0]
	u := make([]float64, h*w)
	for i := range u {
		u[i] = scale * top[i]
	}
	if err := m.Grad(gu, u, 1, h, w); err != nil {
		t.Fatal(err)
	}
	ratio := norm(gu) / norm(u)
	if math.Abs(ratio-mu*normSq) > 1e-6*mu {
		t.Errorf("at the top eigenvector near 0: ‖∇S(u)‖/‖u‖ = %v, want μ‖W‖² = %v", ratio, mu*normSq)
	}
}

func TestPotentials(t *testing.T) {
	m := Random(5, [3]int{1, 1, 3}, 7)
	const n, h, w = 1, 1, 400
	c := m.Channels()
	z := make([]float64, n*c*h*w)
	for ch := range c {
		for i := range w {
			// Sweep [−2T, 2T], avoiding the kinks by an irrational offset.
			z[ch*w+i] = m.T[ch] * (-2 + 4*(float64(i)+math.Sqrt2/3)/w)
		}
	}
	psi := make([]float64, len(z))
	d1 := make([]float64, len(z))
	d2 := make([]float64, len(z))
	for _, err := range []error{m.Psi(psi, z, n, h, w), m.PsiPrime(d1, z, n, h, w), m.PsiSecond(d2, z, n, h, w)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	zp, zm := make([]float64, len(z)), make([]float64, len(z))
	const eps = 1e-9
	for i := range z {
		zp[i], zm[i] = z[i]+eps, z[i]-eps
	}
	psiP, psiM := make([]float64, len(z)), make([]float64, len(z))
	d1P, d1M := make([]float64, len(z)), make([]float64, len(z))
	_ = m.Psi(psiP, zp, n, h, w)
	_ = m.Psi(psiM, zm, n, h, w)
	_ = m.PsiPrime(d1P, zp, n, h, w)
	_ = m.PsiPrime(d1M, zm, n, h, w)
	for i := range z {
		ch := i / w
		hc, tc := m.H[ch], m.T[ch]
		a := math.Abs(z[i])
		if fd := (psiP[i] - psiM[i]) / (2 * eps); math.Abs(fd-d1[i]) > 1e-6*(math.Abs(d1[i])+hc) {
			t.Errorf("channel %d z = %g: ψ' = %g, FD of ψ = %g", ch, z[i], d1[i], fd)
		}
		if math.Abs(a-hc) > 2*eps && math.Abs(a-tc) > 2*eps {
			if fd := (d1P[i] - d1M[i]) / (2 * eps); math.Abs(fd-d2[i]) > 1e-5*m.Mu {
				t.Errorf("channel %d z = %g: ψ'' = %g, FD of ψ' = %g", ch, z[i], d2[i], fd)
			}
		}
		// Closed-form values from the definition.
		var want2 float64
		switch {
		case a < hc:
			want2 = m.Mu
		case a < tc:
			want2 = -1
		}
		if d2[i] != want2 {
			t.Errorf("channel %d z = %g: ψ'' = %g, want %g", ch, z[i], d2[i], want2)
		}
		if a >= tc {
			slope := math.Copysign((m.Mu+1)*hc-tc, z[i])
			if math.Abs(d1[i]-slope) > 1e-15 {
				t.Errorf("channel %d z = %g: far-field ψ' = %g, want %g", ch, z[i], d1[i], slope)
			}
		}
		if a < hc && math.Abs(psi[i]-m.Mu*z[i]*z[i]/2) > 1e-15 {
			t.Errorf("channel %d z = %g: inner ψ = %g, want μz²/2 = %g", ch, z[i], psi[i], m.Mu*z[i]*z[i]/2)
		}
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	layer := func(in, out int) string {
		var f []string
		for range out {
			var ch []string
			for range in {
				ch = append(ch, "[[1,0,0],[0,1,0],[0,0,1]]")
			}
			f = append(f, "["+strings.Join(ch, ",")+"]")
		}
		return fmt.Sprintf(`{"in_channels":%d,"out_channels":%d,"kernel_size":3,"padding":1,"weight":[%s]}`, in, out, strings.Join(f, ","))
	}
	valid := `{"mu":2,"L":3,"conv":{"layers":[` + layer(1, 2) + "," + layer(2, 2) + "," + layer(2, 1) +
		`]},"potential":{"closed_form":{"h_c":[0.1],"T_c":[0.5]}}}`
	if _, err := Load(write("valid.json", valid)); err != nil {
		t.Fatalf("valid file: %v", err)
	}
	cases := []struct{ name, body, want string }{
		{"notjson.json", `{"mu":`, "malformed JSON"},
		{"nan.json", strings.Replace(valid, `"mu":2`, `"mu":NaN`, 1), "malformed JSON"},
		{"nomu.json", strings.Replace(valid, `"mu":2,`, ``, 1), `"mu"`},
		{"badL.json", strings.Replace(valid, `"L":3`, `"L":-3`, 1), "L = -3"},
		{"chain.json", strings.Replace(valid, layer(2, 2), layer(3, 2), 1), "Cin"},
		{"shape.json", strings.Replace(valid, "[[1,0,0],[0,1,0],[0,0,1]]", "[[1,0,0],[0,1,0]]", 1), "conv.layers[0]: weight[0][0] has 2 rows"},
		{"hT.json", strings.Replace(valid, `"T_c":[0.5]`, `"T_c":[0.05]`, 1), "0 < h < T"},
		{"count.json", strings.Replace(valid, `"T_c":[0.5]`, `"T_c":[0.5,1]`, 1), "len(T_c) = 2"},
	}
	for _, c := range cases {
		p := write(c.name, c.body)
		_, err := Load(p)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s: error %v, want one naming the file and %q", c.name, err, c.want)
		}
	}
	if _, err := Load(filepath.Join(dir, "absent.json")); err == nil {
		t.Error("Load of a missing file: no error")
	}
	m := Random(6, [3]int{1, 2, 3}, 4)
	if err := m.Grad(make([]float64, 5), make([]float64, 6), 1, 2, 3); err == nil || !strings.Contains(err.Error(), "len(dst)") {
		t.Errorf("Grad with short dst: error %v", err)
	}
	if _, err := m.Value(nil, 0, 2, 3); err == nil {
		t.Error("Value with n = 0: no error")
	}
	if err := m.PsiPrime(make([]float64, 3), make([]float64, 18), 1, 2, 3); err == nil {
		t.Error("PsiPrime with short dst: no error")
	}
}

func BenchmarkGrad25x96(b *testing.B) {
	var m *Model
	if dir := dataDir(); dir != "" {
		var err error
		if m, err = Load(filepath.Join(dir, "wcrr_sigma18.json")); err != nil {
			b.Fatal(err)
		}
	} else {
		b.Log("pretrained model absent: using a random 1→4→8→60 model")
		m = Random(1, [3]int{4, 8, 60}, 48)
	}
	const n, h, w = 25, 96, 96
	x := randImages(rand.New(rand.NewPCG(1, 1)), n*h*w)
	g := make([]float64, len(x))
	if err := m.Grad(g, x, n, h, w); err != nil { // warm up the scratch buffers
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuSeconds()
	for b.Loop() {
		if err := m.Grad(g, x, n, h, w); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/op")
	// CPU time of all threads: a steadier figure than wall time on a
	// shared machine (about twice the idle wall time on 2 cores).
	b.ReportMetric((cpuSeconds()-cpu0)*1e3/float64(b.N), "cpu-ms/op")
}

// cpuSeconds returns the user+system CPU time of the process.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

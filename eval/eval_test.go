package eval

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/problem"
)

// denoising returns f_k(x) = ½‖x − y_k‖² (A = I), x⁰ = 0, truth = y.
func denoising(n, h, w int) *problem.Objective {
	r := rand.New(rand.NewPCG(1, 2))
	y := make([]float64, n*h*w)
	for i := range y {
		y[i] = r.Float64()
	}
	return &problem.Objective{
		A: problem.Identity{}, Reg: problem.NoRegularizer{}, N: n, H: h, W: w,
		Y: y, Truth: append([]float64(nil), y...), X0: make([]float64, len(y)), L: 1, NormA: 1,
	}
}

// TestRunAggregates: gradient descent with step ½ on ½‖x − y‖² from 0 gives
// x^t = (1 − 2^−t) y exactly, so every recorded quantity has a closed form.
func TestRunAggregates(t *testing.T) {
	n, h, w, T := 3, 4, 5, 6
	o := denoising(n, h, w)
	hw := h * w
	fstar := []float64{-0.5, 0, -2} // deliberately not the true minima (0)
	progress := 0
	curves, err := Run(o, fstar, []baselines.Method{baselines.GradientDescent{Step: 0.5}},
		Options{Iters: T, PSNRAt: []int{0, 2, T, T + 5}, Progress: func(string, int) { progress++ }})
	if err != nil {
		t.Fatal(err)
	}
	if len(curves) != 1 || progress != T+1 {
		t.Fatalf("%d curves and %d progress calls, want 1 and %d", len(curves), progress, T+1)
	}
	c := curves[0]
	if c.Method != "gd" || len(c.Iter) != T+1 || c.Iter[T] != T {
		t.Fatalf("curve %q with iterations %v", c.Method, c.Iter)
	}
	f0 := make([]float64, n)
	ny := make([]float64, n)
	for k := 0; k < n; k++ {
		for _, v := range o.Y[k*hw : (k+1)*hw] {
			f0[k] += 0.5 * v * v
			ny[k] += v * v
		}
		ny[k] = math.Sqrt(ny[k])
	}
	close := func(got, want float64) bool { return math.Abs(got-want) <= 1e-12*math.Max(1, math.Abs(want)) }
	for tt := 0; tt <= T; tt++ {
		q := math.Pow(0.25, float64(tt))
		var mean float64
		lo, hi := math.Inf(1), math.Inf(-1)
		for k := 0; k < n; k++ {
			f := q * f0[k]
			opt := (f - fstar[k]) / (f0[k] - fstar[k])
			mean += opt / float64(n)
			lo, hi = math.Min(lo, opt), math.Max(hi, opt)
			if !close(c.F[tt][k], f) {
				t.Errorf("F[%d][%d] = %g, want %g", tt, k, c.F[tt][k], f)
			}
			if !close(c.GradNorm[tt][k], math.Pow(0.5, float64(tt))*ny[k]) {
				t.Errorf("GradNorm[%d][%d] = %g, want %g", tt, k, c.GradNorm[tt][k], math.Pow(0.5, float64(tt))*ny[k])
			}
			if !close(c.Optimality[tt][k], opt) {
				t.Errorf("Optimality[%d][%d] = %g, want %g", tt, k, c.Optimality[tt][k], opt)
			}
		}
		if !close(c.Mean[tt], mean) || !close(c.Min[tt], lo) || !close(c.Max[tt], hi) {
			t.Errorf("t=%d: mean/min/max %g %g %g, want %g %g %g", tt, c.Mean[tt], c.Min[tt], c.Max[tt], mean, lo, hi)
		}
		if tt > 0 && c.Seconds[tt] < c.Seconds[tt-1] {
			t.Errorf("Seconds decreases at %d: %v", tt, c.Seconds)
		}
	}
	if c.Seconds[0] != 0 {
		t.Errorf("Seconds[0] = %g", c.Seconds[0])
	}
	if got := c.PSNRIters(); len(got) != 3 || got[0] != 0 || got[1] != 2 || got[2] != T {
		t.Errorf("PSNR recorded at %v, want [0 2 %d]", got, T)
	}
	for _, tt := range []int{0, 2, T} {
		for k := 0; k < n; k++ {
			// x − truth = −2^−t y_k, so MSE = 4^−t ‖y_k‖²/hw.
			want := -10 * math.Log10(math.Pow(0.25, float64(tt))*ny[k]*ny[k]/float64(hw))
			if !close(c.PSNR[tt][k], want) {
				t.Errorf("PSNR[%d][%d] = %g, want %g", tt, k, c.PSNR[tt][k], want)
			}
		}
	}
}

func TestRunErrors(t *testing.T) {
	o := denoising(2, 3, 3)
	gd := []baselines.Method{baselines.GradientDescent{}}
	if _, err := Run(o, []float64{0}, gd, Options{}); err == nil || !strings.Contains(err.Error(), "Optimum") {
		t.Errorf("wrong number of optimal values: %v", err)
	}
	if _, err := Run(o, []float64{0, math.NaN()}, gd, Options{}); err == nil {
		t.Error("NaN optimal value accepted")
	}
	if _, err := Run(o, []float64{0, 0}, nil, Options{}); err == nil {
		t.Error("no methods accepted")
	}
	curves, err := Run(o, []float64{0, 0}, []baselines.Method{baselines.GradientDescent{}, failing{}}, Options{Iters: 20})
	if err == nil || !strings.Contains(err.Error(), "failing") || len(curves) != 1 {
		t.Errorf("failing second method: %d curves, error %v; want the first curve and an error", len(curves), err)
	}
}

// TestDivergenceIsAResult runs a gradient descent whose step is far too
// long: it diverges, and Run reports the iteration where it did (the curve
// keeps the finite iterations before it) instead of failing or recording
// +Inf; the CSV and JSON files say so.
func TestDivergenceIsAResult(t *testing.T) {
	o := denoising(2, 3, 3)
	curves, err := Run(o, []float64{0, 0}, []baselines.Method{baselines.GradientDescent{}, baselines.GradientDescent{Step: 5}}, Options{Iters: 2000})
	if err != nil || len(curves) != 2 {
		t.Fatalf("diverging second method: %d curves, error %v; want both curves and no error", len(curves), err)
	}
	if curves[0].Diverged() || len(curves[0].Iter) != 2001 {
		t.Errorf("gradient descent: diverged at %d with %d iterations", curves[0].DivergedAt, len(curves[0].Iter))
	}
	c := curves[1]
	if !c.Diverged() || len(c.Iter) != c.DivergedAt || c.Status() != fmt.Sprintf("diverged at iteration %d", c.DivergedAt) {
		t.Fatalf("step 5: diverged at %d, %d iterations recorded, status %q", c.DivergedAt, len(c.Iter), c.Status())
	}
	for i, m := range c.Mean {
		if math.IsNaN(m) || math.IsInf(m, 0) || m > DefaultDivergeAbove {
			t.Errorf("iteration %d: mean optimality %g recorded before the divergence", i, m)
		}
	}
	var csvOut, jsonOut bytes.Buffer
	if err := WriteCSV(&csvOut, curves); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(csvOut.String()), "\n")
	if want := fmt.Sprintf("%s,%d,,,,,%s,%s", c.Method, c.DivergedAt, settingString(c.Setting), c.Status()); lines[len(lines)-1] != want {
		t.Errorf("last CSV row %q, want the divergence row %q", lines[len(lines)-1], want)
	}
	if strings.Contains(csvOut.String(), "Inf") || strings.Contains(csvOut.String(), "NaN") {
		t.Error("CSV holds a non-finite value")
	}
	if err := WriteJSON(&jsonOut, curves); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(jsonOut.String(), `"status":"diverged at iteration`) {
		t.Errorf("JSON does not report the divergence")
	}
	back, err := ReadJSON(&jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	if back[1].DivergedAt != c.DivergedAt || back[0].Diverged() {
		t.Errorf("read back: diverged at %d and %d", back[0].DivergedAt, back[1].DivergedAt)
	}
}

// failing is a method whose first iteration fails (not a divergence).
type failing struct{}

func (failing) Name() string { return "failing" }
func (failing) Start(o *problem.Objective) (baselines.Iterator, error) {
	return failingIterator(append([]float64(nil), o.X0...)), nil
}

type failingIterator []float64

func (failingIterator) Next() error    { return errors.New("failing: out of paper") }
func (x failingIterator) X() []float64 { return x }

// idleIterator's iterations do nothing.
type idleIterator struct{ x []float64 }

func (it *idleIterator) Next() error  { return nil }
func (it *idleIterator) X() []float64 { return it.x }

// TestRecordingNotTimed: only the iterations are timed, not the recording
// between them. A fake clock advances 1 s in each iteration (Next) and
// 100 s in the progress report that follows each recording: the recorded
// time after T iterations must be T s exactly.
func TestRecordingNotTimed(t *testing.T) {
	o := testProblem(t, 4, 64)
	clock := time.Unix(0, 0)
	defer func(f func() time.Time) { now = f }(now)
	now = func() time.Time { return clock }
	const T = 20
	tick := func(d time.Duration) { clock = clock.Add(d) }
	curves, err := Run(o, make([]float64, o.N), []baselines.Method{ticking{tick}}, Options{Iters: T,
		Progress: func(string, int) { tick(100 * time.Second) }})
	if err != nil {
		t.Fatal(err)
	}
	if got := curves[0].Seconds[T]; got != T {
		t.Errorf("recorded %g s after %d iterations of 1 s each (the recording took 100 s each)", got, T)
	}
}

// ticking is a method whose iterations do nothing but advance a fake clock by 1 s.
type ticking struct{ tick func(time.Duration) }

func (ticking) Name() string { return "ticking" }
func (m ticking) Start(o *problem.Objective) (baselines.Iterator, error) {
	return &tickingIterator{idleIterator{x: append([]float64(nil), o.X0...)}, m.tick}, nil
}

type tickingIterator struct {
	idleIterator
	tick func(time.Duration)
}

func (it *tickingIterator) Next() error { it.tick(time.Second); return nil }

func TestItersToSecondsTo(t *testing.T) {
	c := &Curve{
		Method:  "m",
		Iter:    []int{0, 1, 2, 3},
		Seconds: []float64{0, 0.5, 1.25, 2},
		Mean:    []float64{1, 1e-3, 1e-5, 1e-7},
		Min:     make([]float64, 4), Max: make([]float64, 4),
	}
	cases := []struct {
		tol     float64
		iters   int
		seconds float64
	}{{1, 0, 0}, {1e-3, 1, 0.5}, {1e-4, 2, 1.25}, {1e-6, 3, 2}, {1e-8, -1, math.NaN()}}
	for _, tc := range cases {
		if got := c.ItersTo(tc.tol); got != tc.iters {
			t.Errorf("ItersTo(%g) = %d, want %d", tc.tol, got, tc.iters)
		}
		got := c.SecondsTo(tc.tol)
		if got != tc.seconds && !(math.IsNaN(got) && math.IsNaN(tc.seconds)) {
			t.Errorf("SecondsTo(%g) = %g, want %g", tc.tol, got, tc.seconds)
		}
	}
	s := Summaries([]*Curve{c}, nil)
	if len(s) != 2 || s[0].Tol != 1e-4 || s[0].Iters != 2 || s[1].Iters != 3 || s[1].Seconds != 2 {
		t.Errorf("Summaries = %+v", s)
	}
}

func TestPSNR(t *testing.T) {
	truth := []float64{0, 0.5, 1, 0.25}
	x := make([]float64, len(truth))
	for i, v := range truth {
		x[i] = v + 0.1*float64(1-2*(i%2)) // ±0.1: MSE 0.01
	}
	if got := PSNR(x, truth); math.Abs(got-20) > 1e-12 {
		t.Errorf("PSNR with error ±0.1 = %g dB, want 20", got)
	}
	if got := PSNR(truth, truth); !math.IsInf(got, 1) {
		t.Errorf("PSNR of identical images = %g, want +Inf", got)
	}
	if got := PSNR(x[:2], truth); !math.IsNaN(got) {
		t.Errorf("PSNR of different lengths = %g, want NaN", got)
	}
}

func testCurves(t *testing.T) []*Curve {
	t.Helper()
	o := denoising(2, 3, 3)
	curves, err := Run(o, []float64{-0.1, 0}, []baselines.Method{baselines.GradientDescent{Step: 0.5}, baselines.NAG{}}, Options{Iters: 5})
	if err != nil {
		t.Fatal(err)
	}
	return curves
}

func TestCSVParsesBack(t *testing.T) {
	curves := testCurves(t)
	var buf bytes.Buffer
	if err := WriteCSV(&buf, curves); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1+2*6 || strings.Join(recs[0], ",") != "method,iter,seconds,mean,min,max,setting,status" {
		t.Fatalf("%d records, header %v", len(recs), recs[0])
	}
	row := 1
	for _, c := range curves {
		for i := range c.Iter {
			r := recs[row]
			row++
			it, _ := strconv.Atoi(r[1])
			nums := make([]float64, 4)
			for j := range nums {
				if nums[j], err = strconv.ParseFloat(r[2+j], 64); err != nil {
					t.Fatal(err)
				}
			}
			if r[6] != settingString(c.Setting) || !strings.Contains(r[6], "size=") {
				t.Errorf("row %v: setting column %q, want %q", r, r[6], settingString(c.Setting))
			}
			if r[0] != c.Method || it != c.Iter[i] || nums[0] != c.Seconds[i] || nums[1] != c.Mean[i] || nums[2] != c.Min[i] || nums[3] != c.Max[i] {
				t.Errorf("row %v does not match curve %s at %d", r, c.Method, i)
			}
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	curves := testCurves(t)
	curves[0].PSNR[5][1] = math.Inf(1)
	curves[1].Optimality[2][0] = math.NaN()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, curves); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := range back {
		if settingString(back[i].Setting) != settingString(curves[i].Setting) || back[i].Setting["size"] == "" {
			t.Errorf("curve %d: setting %v read back as %v", i, curves[i].Setting, back[i].Setting)
		}
	}
	same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
	eq1 := func(a, b []float64) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if !same(a[i], b[i]) {
				return false
			}
		}
		return true
	}
	eq2 := func(a, b [][]float64) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if !eq1(a[i], b[i]) {
				return false
			}
		}
		return true
	}
	if len(back) != len(curves) {
		t.Fatalf("%d curves read back, want %d", len(back), len(curves))
	}
	for i, c := range curves {
		b := back[i]
		if b.Method != c.Method || len(b.Iter) != len(c.Iter) || !eq1(b.Seconds, c.Seconds) || !eq2(b.F, c.F) ||
			!eq2(b.GradNorm, c.GradNorm) || !eq2(b.Optimality, c.Optimality) || !eq1(b.Mean, c.Mean) ||
			!eq1(b.Min, c.Min) || !eq1(b.Max, c.Max) || len(b.PSNR) != len(c.PSNR) {
			t.Errorf("curve %d (%s) changed in the round trip", i, c.Method)
		}
		for it, p := range c.PSNR {
			if !eq1(b.PSNR[it], p) {
				t.Errorf("curve %d: PSNR at %d = %v, want %v", i, it, b.PSNR[it], p)
			}
		}
	}
	if _, err := ReadJSON(strings.NewReader(`{"format":"other","curves":[]}`)); err == nil {
		t.Error("foreign JSON accepted")
	}
}

// problem returns Problem 1 on n synthetic size×size images.
func testProblem(tb testing.TB, n, size int) *problem.Objective {
	tb.Helper()
	p, err := problem.Deblur(problem.Options{H: size})
	if err != nil {
		tb.Fatal(err)
	}
	_, _, _, truth, err := data.Stack(data.Synthetic(n, size, size, 7))
	if err != nil {
		tb.Fatal(err)
	}
	o, err := p.Instantiate(truth, n, 0)
	if err != nil {
		tb.Fatal(err)
	}
	return o
}

// BenchmarkEval is one batched evaluation of f and ∇f for Problem 1 at full
// size (25 images of 96×96).
func BenchmarkEval(b *testing.B) {
	o := testProblem(b, 25, 96)
	vals, grad := make([]float64, o.N), make([]float64, len(o.X0))
	var ws problem.Workspace
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if err := o.Eval(vals, grad, o.X0, &ws); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1e3/float64(b.N), "ms/eval")
}

// BenchmarkIteration is one iteration (Next) of each baseline for Problem 1
// at full size (25 images of 96×96).
func BenchmarkIteration(b *testing.B) {
	o := testProblem(b, 25, 96)
	for _, name := range baselines.MethodNames() {
		b.Run(name, func(b *testing.B) {
			m, err := baselines.ParseMethod(name)
			if err != nil {
				b.Fatal(err)
			}
			it, err := m.Start(o)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if err := it.Next(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(time.Since(start).Microseconds())/1e3/float64(b.N), "ms/iter")
		})
	}
}

// TestJSONRefusesChangedCurves: curves edited after they were written (a
// mean lowered, a method renamed) no longer match the file's SHA-256 and
// are refused; the file as written reads.
func TestJSONRefusesChangedCurves(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, testCurves(t)); err != nil {
		t.Fatal(err)
	}
	for _, edit := range []func(c map[string]any){
		func(c map[string]any) { c["mean"].([]any)[1] = 1e-11 },
		func(c map[string]any) { c["method"] = "nag" },
	} {
		var file map[string]any
		if err := json.Unmarshal(buf.Bytes(), &file); err != nil {
			t.Fatal(err)
		}
		edit(file["curves"].([]any)[0].(map[string]any))
		b, err := json.Marshal(file)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ReadJSON(bytes.NewReader(b)); err == nil || !strings.Contains(err.Error(), "changed after they were written") {
			t.Errorf("edited curves: %v", err)
		}
	}
	if _, err := ReadJSON(bytes.NewReader(buf.Bytes())); err != nil {
		t.Errorf("the curves as written: %v", err)
	}
}

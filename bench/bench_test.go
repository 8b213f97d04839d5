package bench

import (
	"bytes"
	"encoding/csv"
	"errors"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// measure runs Measure and fails the test on an error.
func measure(t *testing.T, trainer string, T int, cfg Config) Row {
	t.Helper()
	r, err := Measure(trainer, T, cfg)
	if err != nil {
		t.Fatalf("%s T=%d: %v", trainer, T, err)
	}
	return r
}

// batchBytes is the size of one float64 array of the training batch,
// batch·H·W·8 bytes.
func batchBytes(r Row) int64 { return int64(r.Batch) * int64(r.Size) * int64(r.Size) * 8 }

// TestGreedyLiveHeapConstantInT measures greedy training with the Go
// runtime: the live heap it keeps at the end of a step must not grow with the
// number of steps. Between T = 2 and T = 8 it may differ by less than one
// step's parameters (θt and φt of M-PC, one H×W kernel each), so that keeping
// any per-step state (the parameters, an iterate, a graph) fails. The step
// loss's tally must also be part of what is live.
func TestGreedyLiveHeapConstantInT(t *testing.T) {
	cfg := Config{Size: 32, NTrain: 2, GreedyEvals: 3, Epochs: 1} // M-PC
	r2, r8 := measure(t, Greedy, 2, cfg), measure(t, Greedy, 8, cfg)
	perStep := int64(2 * cfg.Size * cfg.Size * 8)
	growth := r8.LiveHeap - r2.LiveHeap
	t.Logf("greedy live heap %d bytes at T=2, %d at T=8 (growth %d, one step's parameters %d); step-loss tally %d", r2.LiveHeap, r8.LiveHeap, growth, perStep, r2.HeldBytes)
	if growth >= perStep || growth <= -perStep {
		t.Errorf("greedy live heap %d bytes at T=2 and %d at T=8: it changes by %d, at least one step's parameters (%d bytes)", r2.LiveHeap, r8.LiveHeap, growth, perStep)
	}
	for _, r := range []Row{r2, r8} {
		if !(r.HeldBytes > 0 && r.HeldBytes <= r.LiveHeap) {
			t.Errorf("greedy T=%d: step-loss tally %d bytes, live heap %d: the tallied buffers must be live during training", r.T, r.HeldBytes, r.LiveHeap)
		}
	}
}

// TestGreedyTallyCountsTheStepsBuffers compares the greedy meter with a count
// made from the problem size. With M-PP (θ ⊙ g and φ ⊙ p, no spectra) an
// evaluation of the step loss must hold x, the bound operands g and p, x⁺ and
// r = ∇f(x⁺): five N×H×W arrays, and the N values fk(x⁺); nothing else. With
// M-PC the operands are kept as spectra (N·H·(W/2+1) complex128 each) beside
// x, x⁺ and r, plus FFT scratch that depends on the number of workers: the
// count is a lower bound there.
func TestGreedyTallyCountsTheStepsBuffers(t *testing.T) {
	const n, size = 3, 16
	pp := measure(t, Greedy, 1, Config{Size: size, NTrain: n, GreedyEvals: 2, Param: "m-pp"})
	img := int64(n * size * size * 8)
	if want := 5*img + n*8; pp.HeldBytes != want {
		t.Errorf("m-pp: the greedy meter reports %d bytes, want 5 arrays of N·H·W float64 and N values = %d", pp.HeldBytes, want)
	}
	pc := measure(t, Greedy, 1, Config{Size: size, NTrain: n, GreedyEvals: 2, Param: "m-pc"})
	spectra := int64(2 * n * size * (size/2 + 1) * 16)
	if low := 3*img + n*8 + spectra; pc.HeldBytes < low {
		t.Errorf("m-pc: the greedy meter reports %d bytes, fewer than x, x⁺, r, the values and the spectra of g and p (%d)", pc.HeldBytes, low)
	}
	t.Logf("greedy meter: m-pp %d bytes (%.3f arrays), m-pc %d bytes", pp.HeldBytes, float64(pp.HeldBytes)/float64(img), pc.HeldBytes)
}

// TestUnrolledMemoryGrowsWithTheTrajectory checks the unrolled graph against
// what backpropagation through T iterations must keep.
//   - gorgonia's held bytes are exactly linear in T from T = 2 on (every
//     iteration adds the same nodes; the first has a constant momentum);
//   - each iteration adds at least the iterate's value and its adjoint, two
//     batch arrays, and what it adds scales with the image: 32×32 images add
//     4 times what 16×16 images add (to 5 %; the parameters are H×W too);
//   - held(8)/held(2) = (c + 8s)/(c + 2s) lies in [3, 7], as it must when
//     the part c that does not repeat is smaller than one iteration s;
//   - the Go runtime sees the trajectory too: the live heap grows by at least
//     two batch arrays per iteration;
//   - the device counters, which package unroll feeds, see the held bytes.
func TestUnrolledMemoryGrowsWithTheTrajectory(t *testing.T) {
	slope := map[int]float64{}
	for _, size := range []int{16, 32} {
		cfg := Config{Size: size, NTrain: 2, Epochs: 1}
		r2, r5, r8 := measure(t, Unrolled, 2, cfg), measure(t, Unrolled, 5, cfg), measure(t, Unrolled, 8, cfg)
		v := batchBytes(r2)
		d1, d2 := r5.HeldBytes-r2.HeldBytes, r8.HeldBytes-r5.HeldBytes
		s := float64(r8.HeldBytes-r2.HeldBytes) / 6
		slope[size] = s
		live := float64(r8.LiveHeap-r2.LiveHeap) / 6
		ratio := float64(r8.HeldBytes) / float64(r2.HeldBytes)
		t.Logf("%d×%d: held %d, %d, %d bytes at T = 2, 5, 8: %.2f batch arrays per iteration, held(8)/held(2) = %.3f; live heap %d, %d, %d: %.2f batch arrays per iteration",
			size, size, r2.HeldBytes, r5.HeldBytes, r8.HeldBytes, s/float64(v), ratio, r2.LiveHeap, r5.LiveHeap, r8.LiveHeap, live/float64(v))
		if d1 != d2 {
			t.Errorf("%d×%d: held bytes grow by %d from T=2 to 5 and %d from 5 to 8: want the same", size, size, d1, d2)
		}
		if s < float64(2*v) {
			t.Errorf("%d×%d: %g bytes per unrolled iteration, less than an iterate and its adjoint (%d)", size, size, s, 2*v)
		}
		if ratio < 3 || ratio > 7 {
			t.Errorf("%d×%d: held(8)/held(2) = %.3f outside [3, 7]", size, size, ratio)
		}
		if live < float64(2*v) {
			t.Errorf("%d×%d: the live heap grows by %g bytes per unrolled iteration, less than an iterate and its adjoint (%d)", size, size, live, 2*v)
		}
		for _, r := range []Row{r2, r5, r8} {
			if r.DevicePeak < r.HeldBytes {
				t.Errorf("%d×%d T=%d: device peak %d below the %d held bytes", size, size, r.T, r.DevicePeak, r.HeldBytes)
			}
		}
	}
	if q := slope[32] / slope[16]; math.Abs(q-4) > 0.2 {
		t.Errorf("bytes per unrolled iteration: %g at 32×32, %g at 16×16, ratio %.3f: want 4 (image-sized tensors)", slope[32], slope[16], q)
	}
}

// TestBanertMemoryGrows checks that the Banert graph, like the unrolled one,
// grows linearly in T by gorgonia's tally and by the live heap.
func TestBanertMemoryGrows(t *testing.T) {
	cfg := Config{Size: 16, NTrain: 2, Epochs: 1}
	r1, r3, r5 := measure(t, Banert, 1, cfg), measure(t, Banert, 3, cfg), measure(t, Banert, 5, cfg)
	d1, d2 := r3.HeldBytes-r1.HeldBytes, r5.HeldBytes-r3.HeldBytes
	v := batchBytes(r1)
	t.Logf("banert held %d, %d, %d bytes; live heap %d, %d, %d", r1.HeldBytes, r3.HeldBytes, r5.HeldBytes, r1.LiveHeap, r3.LiveHeap, r5.LiveHeap)
	if d1 <= 0 || math.Abs(float64(d2-d1)) > 0.02*float64(d1) {
		t.Errorf("banert held bytes not linear in T: %d, %d, %d", r1.HeldBytes, r3.HeldBytes, r5.HeldBytes)
	}
	if (r5.LiveHeap-r1.LiveHeap)/4 < 2*v {
		t.Errorf("banert live heap %d at T=1 and %d at T=5: less than two arrays per iteration", r1.LiveHeap, r5.LiveHeap)
	}
}

func TestFitRecoversLine(t *testing.T) {
	ts := []int{1, 2, 5, 10}
	b := make([]float64, len(ts))
	for i, T := range ts {
		b[i] = 3e6 + 2.5e5*float64(T)
	}
	b[2] += 1e3 // off the line: least squares, not two-point
	s, ic, err := Fit(ts, b)
	if err != nil {
		t.Fatal(err)
	}
	// Naive normal equations in closed form for comparison.
	var st, sb, stt, stb float64
	for i, T := range ts {
		x := float64(T)
		st, sb, stt, stb = st+x, sb+b[i], stt+x*x, stb+x*b[i]
	}
	n := float64(len(ts))
	ws := (n*stb - st*sb) / (n*stt - st*st)
	wi := (sb - ws*st) / n
	if math.Abs(s-ws) > 1e-9*ws || math.Abs(ic-wi) > 1e-9*wi {
		t.Errorf("fit %g + %g T, normal equations %g + %g T", ic, s, wi, ws)
	}
	if _, _, err := Fit([]int{3, 3}, []float64{1, 2}); err == nil {
		t.Error("fit with one distinct horizon succeeded")
	}
}

func TestSweepStopsAtBudgetAndFailure(t *testing.T) {
	var calls []string
	run := func(tr string, T int) (Row, error) {
		calls = append(calls, tr)
		if tr == "b" && T == 5 {
			return Row{}, errors.New("killed")
		}
		return Row{Trainer: tr, T: T, HeldBytes: int64(T) * 1e6, PeakRSS: 1e6 + int64(T)*1e6}, nil
	}
	rows, skips := Sweep([]string{"a", "b"}, []int{1, 2, 5, 10, 20, 50}, 20, 12e6, run, nil)
	var got []string
	for _, r := range rows {
		got = append(got, r.Trainer+":"+strconv.Itoa(r.T))
	}
	// a: 1, 2, 5, 10 measured; 20 predicted 21 MB > 12 MB; 50 above max-T.
	// b: 1, 2 measured; 5 fails; 10, 20 skipped; 50 above max-T.
	want := "a:1 a:2 a:5 a:10 b:1 b:2"
	if strings.Join(got, " ") != want {
		t.Errorf("measured %v, want %s", got, want)
	}
	if len(skips) != 6 {
		t.Errorf("%d skips, want 6: %+v", len(skips), skips)
	}
}

func TestCSVAndTable(t *testing.T) {
	rows := []Row{
		{Trainer: Greedy, T: 10, HeldBytes: 100, PeakRSS: 1000, LiveHeap: 4321},
		{Trainer: Greedy, T: 50, HeldBytes: 100, PeakRSS: 1000},
		{Trainer: Unrolled, T: 10, HeldBytes: 2e6, PeakRSS: 4e6},
		{Trainer: Unrolled, T: 50, HeldBytes: 10e6, PeakRSS: 20e6},
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(recs) != 5 || recs[3][5] != "2000000" || recs[0][8] != "live_heap_bytes" || recs[1][8] != "4321" {
		t.Fatalf("csv: %v %v", recs, err)
	}
	s := Summarize(rows)
	if len(s) != 2 || s[1].HeldMBPerT != 0.2 || s[0].HeldMBPerT != 0 {
		t.Errorf("summaries %+v: want unrolled 0.2 MB/iteration, greedy 0", s)
	}
	buf.Reset()
	WriteTable(&buf, rows, nil)
	if !strings.Contains(buf.String(), "T = 50: greedy holds 1e-05 of unrolled's graph bytes and 5e-05 of its peak RSS") {
		t.Errorf("table:\n%s", buf.String())
	}
}

func TestParseStatus(t *testing.T) {
	status := "Name:\tbench.test\nVmPeak:\t 900000 kB\nVmHWM:\t   20480 kB\nVmRSS:\t   10240 kB\nThreads:\t5\n"
	cur, peak, err := parseStatus(strings.NewReader(status))
	if err != nil || cur != 10240<<10 || peak != 20480<<10 {
		t.Errorf("parseStatus: %d, %d, %v: want %d and %d bytes", cur, peak, err, 10240<<10, 20480<<10)
	}
	for _, bad := range []string{
		"VmRSS:\t 10240 kB\n",                   // no VmHWM
		"VmHWM:\t 1 kB\nVmRSS:\t ten kB\n",      // not a number
		"VmHWM:\t 1 kB\nVmRSS:\t 10240 pages\n", // not kB
		"VmHWM:\t 1 kB\nVmRSS:\t -5 kB\n",       // negative
	} {
		if _, _, err := parseStatus(strings.NewReader(bad)); err == nil {
			t.Errorf("parseStatus(%q) accepted", bad)
		}
	}
}

// TestRSSSeesTouchedMemory allocates and writes 64 MiB: the current RSS must
// grow by most of it, and the peak must be at least the current RSS.
func TestRSSSeesTouchedMemory(t *testing.T) {
	before, _, err := RSS()
	if err != nil {
		t.Skip(err) // not Linux
	}
	buf := make([]byte, 64<<20)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	after, peak, err := RSS()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("RSS %d → %d bytes (peak %d) after touching %d", before, after, peak, len(buf))
	if after-before < int64(len(buf))*3/4 || peak < after {
		t.Errorf("RSS %d → %d bytes (peak %d) after touching %d bytes", before, after, peak, len(buf))
	}
	runtime.KeepAlive(buf)
}

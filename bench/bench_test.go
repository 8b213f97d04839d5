package bench

import (
	"bytes"
	"encoding/csv"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestGreedyConstantUnrolledGrows asserts on held bytes: greedy's step-loss
// graph does not depend on T, unrolled and Banert graphs grow linearly.
func TestGreedyConstantUnrolledGrows(t *testing.T) {
	cfg := Config{Size: 16, NTrain: 2, GreedyEvals: 3, Epochs: 1}
	held := map[string]map[int]int64{}
	for _, tr := range Trainers {
		held[tr] = map[int]int64{}
		for _, T := range []int{1, 3, 5} {
			r, err := Measure(tr, T, cfg)
			if err != nil {
				t.Fatalf("%s T=%d: %v", tr, T, err)
			}
			if r.HeldBytes <= 0 || r.DevicePeak < r.HeldBytes {
				t.Errorf("%s T=%d: held %d bytes, device peak %d: the device counters must see the held bytes", tr, T, r.HeldBytes, r.DevicePeak)
			}
			held[tr][T] = r.HeldBytes
		}
	}
	t.Logf("held bytes: %v", held)
	g := held[Greedy]
	if g[1] != g[3] || g[1] != g[5] {
		t.Errorf("greedy held bytes change with T: %v", g)
	}
	for _, tr := range []string{Unrolled, Banert} {
		h := held[tr]
		d1, d2 := h[3]-h[1], h[5]-h[3]
		if d1 <= 0 || math.Abs(float64(d2-d1)) > 0.02*float64(d1) {
			t.Errorf("%s held bytes not linear in T: %v", tr, h)
		}
	}
	if !(g[5] < held[Unrolled][5]) {
		t.Errorf("greedy holds %d bytes, unrolled T=5 %d: want greedy smaller", g[5], held[Unrolled][5])
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
		{Trainer: Greedy, T: 10, HeldBytes: 100, PeakRSS: 1000},
		{Trainer: Greedy, T: 50, HeldBytes: 100, PeakRSS: 1000},
		{Trainer: Unrolled, T: 10, HeldBytes: 2e6, PeakRSS: 4e6},
		{Trainer: Unrolled, T: 50, HeldBytes: 10e6, PeakRSS: 20e6},
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(recs) != 5 || recs[3][5] != "2000000" {
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

func TestPlotPlacesPointsOnLogAxes(t *testing.T) {
	rows := []Row{
		{Trainer: Unrolled, T: 1, HeldBytes: 1e6, PeakRSS: 1e7},
		{Trainer: Unrolled, T: 100, HeldBytes: 1e8, PeakRSS: 1e9},
	}
	var buf bytes.Buffer
	if err := WritePlot(&buf, rows, "a<b"); err != nil {
		t.Fatal(err)
	}
	svg := buf.String()
	// x: T = 1 at the left edge (70), T = 100 at the right (720 − 230 = 490);
	// y: 1 MB at the bottom (480 − 50 = 430), 1000 MB at the top (40).
	for _, want := range []string{`points="70.0,430.0 490.0,170.0"`, `points="70.0,300.0 490.0,40.0"`, "a&lt;b", "1 MB/iter"} {
		if !strings.Contains(svg, want) {
			t.Errorf("plot lacks %q", want)
		}
	}
	if err := WritePlot(&buf, nil, ""); err == nil {
		t.Error("empty plot accepted")
	}
}

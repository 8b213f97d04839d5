package bench

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"

	"github.com/greedyl2o/greedyl2o/provenance"
)

// Runner measures one (trainer, T) configuration, typically in a child process.
type Runner func(trainer string, T int) (Row, error)

// Skip records a configuration that was not measured and why.
type Skip struct {
	Trainer string `json:"trainer"`
	T       int    `json:"T"`
	Reason  string `json:"reason"`
}

// Sweep measures every trainer at every T ≤ maxT (in increasing T). After two
// measurements of a trainer it extrapolates its peak memory (the larger of
// peak RSS and held bytes) linearly in T and skips the larger horizons whose
// prediction exceeds budget bytes (0: no budget); a failed run (for example a
// child killed for lack of memory) also ends that trainer's sweep. progress,
// if not nil, is called after every measurement.
func Sweep(trainers []string, ts []int, maxT int, budget int64, run Runner, progress func(Row)) ([]Row, []Skip) {
	ts = append([]int(nil), ts...)
	sort.Ints(ts)
	var rows []Row
	var skips []Skip
	for _, tr := range trainers {
		var got []Row
		stopped := ""
		for _, T := range ts {
			if maxT > 0 && T > maxT {
				skips = append(skips, Skip{tr, T, fmt.Sprintf("above --max-T %d", maxT)})
				continue
			}
			if stopped != "" {
				skips = append(skips, Skip{tr, T, stopped})
				continue
			}
			if budget > 0 && len(got) >= 2 {
				if p := predict(got, T); p > float64(budget) {
					stopped = fmt.Sprintf("predicted %.0f MB exceeds the memory budget of %.0f MB", p/1e6, float64(budget)/1e6)
					skips = append(skips, Skip{tr, T, stopped})
					continue
				}
			}
			r, err := run(tr, T)
			if err != nil {
				stopped = fmt.Sprintf("T = %d failed: %v", T, err)
				skips = append(skips, Skip{tr, T, stopped})
				continue
			}
			got = append(got, r)
			rows = append(rows, r)
			if progress != nil {
				progress(r)
			}
		}
	}
	return rows, skips
}

func footprint(r Row) float64 { return float64(max(r.PeakRSS, r.HeldBytes)) }

// predict extrapolates the footprint linearly through the last two rows.
func predict(rows []Row, T int) float64 {
	a, b := rows[len(rows)-2], rows[len(rows)-1]
	if b.T == a.T {
		return footprint(b)
	}
	slope := (footprint(b) - footprint(a)) / float64(b.T-a.T)
	return footprint(b) + slope*float64(T-b.T)
}

// Fit returns the least-squares line bytes ≈ intercept + slope·T.
func Fit(ts []int, bytes []float64) (slope, intercept float64, err error) {
	if len(ts) != len(bytes) {
		return 0, 0, fmt.Errorf("bench: fit of %d horizons and %d sizes", len(ts), len(bytes))
	}
	if len(ts) < 2 {
		return 0, 0, errors.New("bench: a fit needs at least two horizons")
	}
	n := float64(len(ts))
	var mt, mb float64
	for i := range ts {
		mt += float64(ts[i]) / n
		mb += bytes[i] / n
	}
	var stt, stb float64
	for i := range ts {
		d := float64(ts[i]) - mt
		stt += d * d
		stb += d * (bytes[i] - mb)
	}
	if stt == 0 {
		return 0, 0, errors.New("bench: a fit needs at least two different horizons")
	}
	slope = stb / stt
	// A flat series gives a slope of rounding size: report it as exactly 0.
	if math.Abs(slope)*math.Sqrt(stt) <= 1e-12*math.Abs(mb) {
		slope = 0
	}
	return slope, mb - slope*mt, nil
}

// Summary is the fitted growth of one trainer's memory in T.
type Summary struct {
	Trainer string `json:"trainer"`
	Points  int    `json:"points"`
	// HeldMBPerT and RSSMBPerT are least-squares slopes in MB (10⁶ bytes) per
	// unrolled iteration of the held bytes and of the peak RSS.
	HeldMBPerT float64 `json:"held_mb_per_iteration"`
	RSSMBPerT  float64 `json:"rss_mb_per_iteration"`
	// HeldMBAtZero is the intercept of the held-bytes fit.
	HeldMBAtZero float64 `json:"held_mb_intercept"`
}

// Summarize fits every trainer with at least two measured horizons.
func Summarize(rows []Row) []Summary {
	var order []string
	by := map[string][]Row{}
	for _, r := range rows {
		if _, ok := by[r.Trainer]; !ok {
			order = append(order, r.Trainer)
		}
		by[r.Trainer] = append(by[r.Trainer], r)
	}
	var out []Summary
	for _, tr := range order {
		rs := by[tr]
		var ts []int
		var held, rss []float64
		for _, r := range rs {
			ts = append(ts, r.T)
			held = append(held, float64(r.HeldBytes))
			rss = append(rss, float64(r.PeakRSS))
		}
		s := Summary{Trainer: tr, Points: len(rs)}
		if sl, ic, err := Fit(ts, held); err == nil {
			s.HeldMBPerT, s.HeldMBAtZero = sl/1e6, ic/1e6
		}
		if sl, _, err := Fit(ts, rss); err == nil {
			s.RSSMBPerT = sl / 1e6
		}
		out = append(out, s)
	}
	return out
}

// Find returns the row of a trainer at horizon T.
func Find(rows []Row, trainer string, T int) (Row, bool) {
	for _, r := range rows {
		if r.Trainer == trainer && r.T == T {
			return r, true
		}
	}
	return Row{}, false
}

// Report is what `l2o bench memory` writes as JSON.
type Report struct {
	Config    Config    `json:"config"`
	Rows      []Row     `json:"rows"`
	Skipped   []Skip    `json:"skipped,omitempty"`
	Summaries []Summary `json:"summaries"`
	// Provenance says where the measurements came from (command, l2o
	// revision, machine).
	Provenance *provenance.Record `json:"provenance,omitempty"`
}

// WriteJSON writes the report, indented.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteCSV writes one line per row with a header.
func WriteCSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"trainer", "T", "size", "n_train", "batch", "held_bytes", "device_peak_bytes", "peak_rss_bytes", "live_heap_bytes", "seconds", "seconds_per_step", "device", "process"}); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	for _, r := range rows {
		rec := []string{r.Trainer, strconv.Itoa(r.T), strconv.Itoa(r.Size), strconv.Itoa(r.NTrain), strconv.Itoa(r.Batch),
			strconv.FormatInt(r.HeldBytes, 10), strconv.FormatInt(r.DevicePeak, 10), strconv.FormatInt(r.PeakRSS, 10),
			strconv.FormatInt(r.LiveHeap, 10), f(r.Seconds), f(r.SecondsPerStep), r.Device, r.Process}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteTable prints the rows, the fitted slopes and the greedy/unrolled
// memory ratio at T = 50 (or the largest T both reached) for people.
func WriteTable(w io.Writer, rows []Row, skips []Skip) {
	fmt.Fprintf(w, "%-9s %5s %6s %12s %14s %13s %13s %11s %11s\n", "trainer", "T", "batch", "held MB", "device peak MB", "peak RSS MB", "live heap MB", "seconds", "s/step")
	for _, r := range rows {
		fmt.Fprintf(w, "%-9s %5d %6d %12.2f %14.2f %13.1f %13.2f %11.3f %11.4f\n", r.Trainer, r.T, r.Batch,
			float64(r.HeldBytes)/1e6, float64(r.DevicePeak)/1e6, float64(r.PeakRSS)/1e6, float64(r.LiveHeap)/1e6, r.Seconds, r.SecondsPerStep)
	}
	for _, r := range rows {
		if r.DeviceUsed > 0 {
			fmt.Fprintf(w, "%s T=%d on %s: %.1f MB of device memory in use after training, device-wide (cuMemGetInfo: this and the parent process's contexts, cuFFT plans, other processes)\n",
				r.Trainer, r.T, r.Device, float64(r.DeviceUsed)/1e6)
		}
	}
	for _, s := range skips {
		fmt.Fprintf(w, "skipped %s T=%d: %s\n", s.Trainer, s.T, s.Reason)
	}
	for _, s := range Summarize(rows) {
		if s.Points < 2 {
			continue
		}
		fmt.Fprintf(w, "%s: %.4f MB held and %.3f MB peak RSS per unrolled iteration (least squares over %d horizons)\n",
			s.Trainer, s.HeldMBPerT, s.RSSMBPerT, s.Points)
	}
	if T, ok := commonT(rows, Greedy, Unrolled, 50); ok {
		g, _ := Find(rows, Greedy, T)
		u, _ := Find(rows, Unrolled, T)
		fmt.Fprintf(w, "T = %d: greedy holds %.4g of unrolled's graph bytes and %.4g of its peak RSS\n",
			T, ratio(g.HeldBytes, u.HeldBytes), ratio(g.PeakRSS, u.PeakRSS))
	}
	for _, l := range OneMeterLines(rows) {
		fmt.Fprintln(w, l)
	}
}

// Growth is a memory ratio measured by one meter, with its goal.
type Growth struct {
	// What names the ratio: "greedy(100)/greedy(10)" or
	// "greedy(50)/unrolled(50)".
	What string
	// LiveHeap and PeakRSS are the ratio by the Go runtime's live heap
	// after each step (Row.LiveHeap) and by the process's peak RSS.
	LiveHeap, PeakRSS float64
	// Goal is the largest ratio wanted: 1.05 for greedy's growth from
	// T = 10, 0.1 for greedy against unrolled from T = 50; 0 for none
	// (greedy against unrolled at shorter horizons, where the fixed cost of
	// the process dominates).
	Goal float64
	// Allocator is the ratio of the device allocator's high-water marks
	// when both trainers ran their losses on the same device
	// (Row.Allocator), NaN otherwise (JSON: null).
	Allocator float64 `json:"-"`
}

// Met reports whether the live-heap ratio is within the goal (true when
// there is none), and the allocator's ratio too when there is one.
func (g Growth) Met() bool {
	return g.Goal == 0 || (g.LiveHeap <= g.Goal && (math.IsNaN(g.Allocator) || g.Allocator <= g.Goal))
}

// Growths returns, from the rows, greedy(T)/greedy(10) for every measured
// T > 10 and greedy(T)/unrolled(T) for every T both reached. Every ratio
// compares figures from the same meters (live heap, peak RSS), whatever
// the trainer: unlike HeldBytes, which is the fast path's tally for greedy
// and the graph's values for unrolled and Banert.
func Growths(rows []Row) []Growth {
	var out []Growth
	g10, has10 := Find(rows, Greedy, 10)
	for _, r := range rows {
		if r.Trainer != Greedy {
			continue
		}
		if has10 && r.T > 10 {
			out = append(out, Growth{What: fmt.Sprintf("greedy(%d)/greedy(10)", r.T),
				LiveHeap: ratio(r.LiveHeap, g10.LiveHeap), PeakRSS: ratio(r.PeakRSS, g10.PeakRSS), Goal: 1.05,
				Allocator: allocatorRatio(r, g10)})
		}
		if u, ok := Find(rows, Unrolled, r.T); ok {
			g := Growth{What: fmt.Sprintf("greedy(%d)/unrolled(%d)", r.T, r.T),
				LiveHeap: ratio(r.LiveHeap, u.LiveHeap), PeakRSS: ratio(r.PeakRSS, u.PeakRSS), Allocator: allocatorRatio(r, u)}
			if r.T >= 50 {
				g.Goal = 0.1
			}
			out = append(out, g)
		}
	}
	return out
}

// allocatorRatio is a.DevicePeak/b.DevicePeak when both rows counted every
// buffer on the same device's allocator, NaN otherwise.
func allocatorRatio(a, b Row) float64 {
	if !a.Allocator || !b.Allocator || a.Device != b.Device {
		return math.NaN()
	}
	return ratio(a.DevicePeak, b.DevicePeak)
}

// OneMeterLines prints Growths for people, each against its goal.
func OneMeterLines(rows []Row) []string {
	gs := Growths(rows)
	if len(gs) == 0 {
		return nil
	}
	lines := []string{"one meter for every trainer (live heap after each step or epoch; peak RSS of its own process):"}
	for _, g := range gs {
		verdict := "no goal at this T"
		switch {
		case g.Goal == 0:
		case g.Met():
			verdict = fmt.Sprintf("goal ≤ %g: met", g.Goal)
		default:
			verdict = fmt.Sprintf("goal ≤ %g: MISSED", g.Goal)
		}
		alloc := ""
		if !math.IsNaN(g.Allocator) {
			alloc = fmt.Sprintf(", device allocator %8.4g", g.Allocator)
		}
		lines = append(lines, fmt.Sprintf("  %-26s live heap %8.4g, peak RSS %8.4g%s  (%s)", g.What, g.LiveHeap, g.PeakRSS, alloc, verdict))
	}
	return lines
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// commonT returns want if both trainers were measured there, else the
// largest T both reached.
func commonT(rows []Row, a, b string, want int) (int, bool) {
	best := -1
	for _, r := range rows {
		if r.Trainer != a {
			continue
		}
		if _, ok := Find(rows, b, r.T); ok {
			if r.T == want {
				return want, true
			}
			best = max(best, r.T)
		}
	}
	return best, best > 0
}

package eval

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Shard is block Index (1-based) of Count contiguous blocks of a test set's
// functions, for runs that split one evaluation over processes or jobs
// (MPI ranks, Slurm or Kubernetes job arrays). The blocks are fixed by the
// functions' indices: block i of n holds functions ⌊(i−1)N/n⌋ … ⌊iN/n⌋−1.
// The zero Shard is the whole set.
type Shard struct{ Index, Count int }

// ParseShard reads "i/n" (1 ≤ i ≤ n).
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: give i/n, block i (from 1) of n", s)
	}
	sh := Shard{Index: i, Count: n}
	return sh, sh.check()
}

func (s Shard) check() error {
	if s.Count < 1 || s.Index < 1 || s.Index > s.Count {
		return fmt.Errorf("shard %d/%d: give i/n with 1 ≤ i ≤ n", s.Index, s.Count)
	}
	return nil
}

// Whole reports whether s is the whole set (the zero Shard, or 1/1).
func (s Shard) Whole() bool { return s.Count <= 1 }

// String is "i/n".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Bounds returns the functions [lo, hi) of s among n; it panics on a shard
// that is not i/n with 1 ≤ i ≤ n.
func (s Shard) Bounds(n int) (lo, hi int) {
	if s.Whole() {
		return 0, n
	}
	if err := s.check(); err != nil {
		panic("eval: " + err.Error())
	}
	return (s.Index - 1) * n / s.Count, s.Index * n / s.Count
}

// Indices lists the functions of s among n.
func (s Shard) Indices(n int) []int {
	lo, hi := s.Bounds(n)
	idx := make([]int, hi-lo)
	for i := range idx {
		idx[i] = lo + i
	}
	return idx
}

// Part is what Merge needs of a curve measured on one shard of the
// functions, beside its per-function values.
type Part struct {
	Shard Shard
	// First is the index of the shard's first function among Total.
	First, Total int
	// DivergeAbove is the mean optimality above which the whole set's
	// curve counts as diverged: a shard does not test it (it sees only its
	// own functions); Merge does.
	DivergeAbove float64
	// RejectedAfter[t−1] is the safeguard's count of rejected steps after
	// the method's t-th iteration, a failed one included (nil for methods
	// without a safeguard).
	RejectedAfter []int
}

// concat appends the shards' rows of function values at index i.
func concat(parts []*Curve, field func(*Curve) [][]float64, i int) []float64 {
	var row []float64
	for _, c := range parts {
		row = append(row, field(c)[i]...)
	}
	return row
}

// Merge joins the curves of one method measured on every shard of a test
// set, in shard order, into the curve one process measures on the whole
// set: the per-function values are concatenated, and every mean, minimum
// and maximum is taken anew in function order, so the values equal the
// unsharded run's bitwise. The whole set's divergence test (a mean
// optimality above Part.DivergeAbove) is applied here. Seconds are the sum
// of the shards' (the work of one process, measured on several).
func Merge(parts []*Curve) (*Curve, error) {
	if err := checkParts(parts); err != nil {
		return nil, err
	}
	first := parts[0]
	n := first.Part.Total
	out := &Curve{Method: first.Method, Setting: first.Setting}
	rows := math.MaxInt
	diverged := 0
	for _, c := range parts {
		rows = min(rows, len(c.Iter))
		if c.DivergedAt > 0 && (diverged == 0 || c.DivergedAt < diverged) {
			diverged = c.DivergedAt
		}
	}
	if first.PSNR != nil {
		out.PSNR, out.SSIM = map[int][]float64{}, map[int][]float64{}
	}
	for i := 0; i < rows; i++ {
		t := first.Iter[i]
		opt := concat(parts, func(c *Curve) [][]float64 { return c.Optimality }, i)
		mean, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
		for _, v := range opt {
			mean += v
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		mean /= float64(n)
		if t > 0 && !(mean <= first.Part.DivergeAbove) {
			diverged = t
			break
		}
		secs := 0.0
		for _, c := range parts {
			secs += c.Seconds[i]
		}
		out.Iter = append(out.Iter, t)
		out.Seconds = append(out.Seconds, secs)
		out.F = append(out.F, concat(parts, func(c *Curve) [][]float64 { return c.F }, i))
		out.GradNorm = append(out.GradNorm, concat(parts, func(c *Curve) [][]float64 { return c.GradNorm }, i))
		out.Optimality = append(out.Optimality, opt)
		out.Mean, out.Min, out.Max = append(out.Mean, mean), append(out.Min, lo), append(out.Max, hi)
		if _, ok := first.PSNR[t]; ok {
			out.PSNR[t] = concatAt(parts, func(c *Curve) map[int][]float64 { return c.PSNR }, t)
			out.SSIM[t] = concatAt(parts, func(c *Curve) map[int][]float64 { return c.SSIM }, t)
			if len(out.PSNR[t]) != n || len(out.SSIM[t]) != n {
				return nil, fmt.Errorf("eval: %s: the shards record PSNR at iteration %d for %d of %d functions", first.Method, t, len(out.PSNR[t]), n)
			}
		}
	}
	out.DivergedAt = diverged
	out.Steps = n * (len(out.Iter) - 1)
	mergeSafeguard(out, parts)
	return out, nil
}

func concatAt(parts []*Curve, field func(*Curve) map[int][]float64, t int) []float64 {
	var row []float64
	for _, c := range parts {
		row = append(row, field(c)[t]...)
	}
	return row
}

// mergeSafeguard sets the merged curve's acceptance rates (the shards'
// accepted counts added, over the whole set) and rejected steps (each
// shard's count through the last iteration the merged curve took).
func mergeSafeguard(out *Curve, parts []*Curve) {
	n := parts[0].Part.Total
	if parts[0].Accepted != nil {
		out.Accepted = make([]float64, len(out.Iter))
		for i, t := range out.Iter {
			if t == 0 {
				out.Accepted[i] = math.NaN()
				continue
			}
			count := 0
			for _, c := range parts {
				// Accepted holds count/n of the shard's n functions: the
				// count is recovered exactly by rounding.
				count += int(math.Round(c.Accepted[i] * float64(len(c.F[i]))))
			}
			out.Accepted[i] = float64(count) / float64(n)
		}
	}
	last := len(out.Iter) - 1
	if out.DivergedAt > 0 {
		last = out.DivergedAt
	}
	for _, c := range parts {
		if r := c.Part.RejectedAfter; last > 0 && len(r) > 0 {
			out.Rejected += r[min(last, len(r))-1]
		}
	}
}

// checkParts refuses curves that are not one method's on consecutive
// shards 1…n of one test set.
func checkParts(parts []*Curve) error {
	if len(parts) == 0 {
		return fmt.Errorf("eval: no shards to merge")
	}
	first := parts[0]
	next := 0
	for i, c := range parts {
		p := c.Part
		switch {
		case p == nil:
			return fmt.Errorf("eval: curve %q of shard %d was not measured on a shard (no part record)", c.Method, i+1)
		case c.Method != first.Method:
			return fmt.Errorf("eval: shard %s has method %q where shard 1 has %q", p.Shard, c.Method, first.Method)
		case p.Shard != (Shard{Index: i + 1, Count: len(parts)}):
			return fmt.Errorf("eval: shard %s given as shard %d of %d", p.Shard, i+1, len(parts))
		case p.Total != first.Part.Total || p.DivergeAbove != first.Part.DivergeAbove:
			return fmt.Errorf("eval: shard %s is of %d functions (diverging above %g), shard 1 of %d (above %g)", p.Shard, p.Total, p.DivergeAbove, first.Part.Total, first.Part.DivergeAbove)
		case p.First != next:
			return fmt.Errorf("eval: shard %s starts at function %d, want %d", p.Shard, p.First, next)
		case settingString(c.Setting) != settingString(first.Setting):
			return fmt.Errorf("eval: %s: shard %s was measured in setting %s, shard 1 in %s", c.Method, p.Shard, settingString(c.Setting), settingString(first.Setting))
		case (c.Accepted == nil) != (first.Accepted == nil) || (c.PSNR == nil) != (first.PSNR == nil):
			return fmt.Errorf("eval: %s: shard %s and shard 1 record different quantities", c.Method, p.Shard)
		}
		if len(c.F) == 0 || len(c.Iter) == 0 {
			return fmt.Errorf("eval: %s: shard %s has no iterations", c.Method, p.Shard)
		}
		for j, t := range c.Iter {
			if t != j || len(c.F[j]) != len(c.F[0]) || len(c.Optimality[j]) != len(c.F[0]) || len(c.GradNorm[j]) != len(c.F[0]) {
				return fmt.Errorf("eval: %s: shard %s has an irregular iteration %d", c.Method, p.Shard, t)
			}
		}
		for t, v := range c.PSNR {
			if len(v) != len(c.F[0]) || len(c.SSIM[t]) != len(c.F[0]) {
				return fmt.Errorf("eval: %s: shard %s has %d PSNR values at iteration %d for %d functions", c.Method, p.Shard, len(v), t, len(c.F[0]))
			}
		}
		next += len(c.F[0])
	}
	if next != first.Part.Total {
		return fmt.Errorf("eval: the shards hold %d functions of %d", next, first.Part.Total)
	}
	return nil
}

package tomo

import (
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"sort"
	"sync"
	"unsafe"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// angleInfo holds the per-angle stepping parameters of RayTables, packed
// for the kernels.
type angleInfo struct {
	transposed bool    // march over columns (read the transposed image)
	step       float64 // change of v per line
	weight     float64 // step length: 1/|cos θ| or 1/|sin θ|
}

// ray holds one ray's entries of RayTables (start coordinate and the
// half-open range of lines [first, end) that touch the image), packed.
type ray struct {
	start      float64
	first, end int32
}

// Projector is a matched parallel-beam Joseph forward projector and its exact
// adjoint for one Geometry. It is immutable and safe for concurrent use.
type Projector struct {
	geom    Geometry
	stride  int // padded row length N+2
	angles  []angleInfo
	rays    []ray // [Angles*Det]
	workers int
	pool    sync.Pool // *scratch[float64]
	pool32  sync.Pool // *scratch[float32]
}

// scratch holds the padded image buffers of one call.
type scratch[F kernels.Float] struct {
	plain, trans [][]F // one pair per worker (forward uses index 0 only)
}

// NewProjector precomputes the per-angle and per-ray tables for g
// (NewRayTables) and packs them for the kernels.
func NewProjector(g Geometry) (*Projector, error) {
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("tomo: new projector: %w", err)
	}
	t, err := NewRayTables(g)
	if err != nil {
		return nil, err
	}
	p := &Projector{
		geom:    g,
		stride:  g.N + 2,
		angles:  make([]angleInfo, g.Angles),
		rays:    make([]ray, g.Angles*g.Det),
		workers: max(1, min(runtime.GOMAXPROCS(0), g.Angles)),
	}
	for a := range p.angles {
		p.angles[a] = angleInfo{transposed: t.Transposed[a], step: t.Step[a], weight: t.Weight[a]}
	}
	for r := range p.rays {
		p.rays[r] = ray{start: t.Start[r], first: t.First[r], end: t.End[r]}
	}
	p.pool.New = func() any { return new(scratch[float64]) }
	p.pool32.New = func() any { return new(scratch[float32]) }
	return p, nil
}

// RayTables are the Joseph projector's precomputed tables for one Geometry,
// the single definition of its sampling: Projector packs them for its
// kernels and package gpu/cuda uploads them to the device.
//
// A ray is sampled on "lines": image rows when !Transposed[a], image columns
// when Transposed[a]. On line l the sample of ray r = a·Det + k sits at the
// padded coordinate v = Coord(r, l) = Start[r] + l·Step[a] along the line,
// where padded coordinate 0 is the zero pixel before the line's first pixel
// and N+1 the zero pixel after its last (so pixel c of the line is at c+1).
// The sample's value is the linear interpolation of the padded line at v,
// weighted by Weight[a]; the ray's samples lie in [0, N+1), i.e. touch the
// image, exactly on the lines First[r] ≤ l < End[r].
type RayTables struct {
	Geom Geometry
	// Per angle (length Angles): whether the rays are sampled once per
	// column (|sin θ| ≥ |cos θ|) rather than once per row; the change of the
	// sample coordinate from one line to the next (tan θ per row, cot θ per
	// column); and the step length along the ray, 1/|cos θ| or 1/|sin θ|.
	Transposed   []bool
	Step, Weight []float64
	// Per ray, angle-major (length Angles·Det): the padded coordinate on
	// line 0 and the half-open range of lines inside the image.
	Start      []float64
	First, End []int32
}

// NewRayTables computes the tables of the geometry g.
func NewRayTables(g Geometry) (*RayTables, error) {
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("tomo: ray tables: %w", err)
	}
	n := g.N
	t := &RayTables{
		Geom:       g,
		Transposed: make([]bool, g.Angles),
		Step:       make([]float64, g.Angles),
		Weight:     make([]float64, g.Angles),
		Start:      make([]float64, g.Angles*g.Det),
		First:      make([]int32, g.Angles*g.Det),
		End:        make([]int32, g.Angles*g.Det),
	}
	half := 0.5 * float64(n-1)
	for a := range g.Angles {
		sin, cos := math.Sincos(g.Angle(a))
		var perBin float64 // change of the line-0 coordinate per unit of s
		if math.Abs(sin) < math.Abs(cos) {
			// March over rows i (y = half − i): x = (s − y sin)/cos,
			// column coordinate half + x = half(1 − t) + s/cos + i·t, t = tan θ.
			t.Step[a], t.Weight[a] = sin/cos, 1/math.Abs(cos)
			perBin = 1 / cos
		} else {
			// March over columns j (x = j − half): y = (s − x cos)/sin,
			// row coordinate half − y = half(1 − c) − s/sin + j·c, c = cot θ.
			t.Transposed[a], t.Step[a], t.Weight[a] = true, cos/sin, 1/math.Abs(sin)
			perBin = -1 / sin
		}
		for k := range g.Det {
			r := a*g.Det + k
			// +1: padded coordinate (column 0 of the padded line is outside).
			t.Start[r] = half*(1-t.Step[a]) + g.BinCentre(k)*perBin + 1
			first, end := lineRange(t.Start[r], t.Step[a], n)
			t.First[r], t.End[r] = int32(first), int32(end)
		}
	}
	return t, nil
}

// Coord returns the padded sample coordinate of ray r on line l, rounded as
// Projector's kernels round it (no fused multiply-add).
func (t *RayTables) Coord(r, l int) float64 {
	return coord(t.Start[r], t.Step[r/t.Geom.Det], l)
}

// Geometry returns the projector's geometry.
func (p *Projector) Geometry() Geometry { return p.geom }

// coord is the padded sample coordinate on line l. The explicit conversion
// forbids fused multiply-add, so lineRange and the kernels agree bit for bit.
func coord(start, step float64, l int) float64 {
	return start + float64(float64(l)*step)
}

// lineRange returns the lines l in [0, n) whose sample coordinate lies in
// [0, n+1), which is exactly where int(v) and int(v)+1 index the padded line.
// coord is monotone in l, so the set is an interval found by bisection.
func lineRange(start, step float64, n int) (first, end int) {
	hi := float64(n + 1)
	if step >= 0 {
		first = sort.Search(n, func(l int) bool { return coord(start, step, l) >= 0 })
		end = sort.Search(n, func(l int) bool { return coord(start, step, l) >= hi })
	} else {
		first = sort.Search(n, func(l int) bool { return coord(start, step, l) < hi })
		end = sort.Search(n, func(l int) bool { return coord(start, step, l) < 0 })
	}
	if end < first {
		end = first
	}
	return first, end
}

// CheckForward returns an error unless dst and src have the lengths Forward
// needs for batch images: len(src) = batch·N², len(dst) = batch·Angles·Det.
func (p *Projector) CheckForward(dst, src []float64, batch int) error {
	return p.check(len(dst), len(src), batch, p.geom.SinoLen(), p.geom.ImageLen(), "sinogram", "image")
}

// CheckAdjoint returns an error unless dst and src have the lengths Adjoint
// needs for batch sinograms: len(src) = batch·Angles·Det, len(dst) = batch·N².
func (p *Projector) CheckAdjoint(dst, src []float64, batch int) error {
	return p.check(len(dst), len(src), batch, p.geom.ImageLen(), p.geom.SinoLen(), "image", "sinogram")
}

func (p *Projector) check(ld, ls, batch, dstPer, srcPer int, dstName, srcName string) error {
	if batch < 1 {
		return fmt.Errorf("batch = %d: must be at least 1", batch)
	}
	if ls != batch*srcPer {
		return fmt.Errorf("src has length %d: want batch·%s length = %d·%d = %d", ls, srcName, batch, srcPer, batch*srcPer)
	}
	if ld != batch*dstPer {
		return fmt.Errorf("dst has length %d: want batch·%s length = %d·%d = %d", ld, dstName, batch, dstPer, batch*dstPer)
	}
	return nil
}

// lanes is the number of images processed together: their padded copies are
// interleaved pixel by pixel, so one ray's coordinates and interpolation
// weights serve all of them and the loads are contiguous.
const lanes = 4

// Lanes is the number of images Forward and Adjoint process together: a
// batch's images b·Lanes to (b+1)·Lanes − 1 in one pass while Lanes are
// left, the rest one at a time. An image's result depends on which (its
// sums are grouped by the pass), so a part of a batch computed apart
// equals the batch's where it starts at a multiple of Lanes and ends at
// one, or at the batch's end.
const Lanes = lanes

// Forward computes dst = A·src for a batch of images: src is [batch, N, N],
// dst is [batch, Angles, Det] and is overwritten. It returns an error, and
// leaves dst untouched, if a length does not match.
func (p *Projector) Forward(dst, src []float64, batch int) error { return ForwardT(p, dst, src, batch) }

// ForwardT is Forward in precision F (float32 or float64). The sampling
// (coordinates and interpolation weights) is computed in float64 and the
// weights rounded to F; each ray's sum of samples accumulates in float64.
// ForwardT[float64] is Forward.
func ForwardT[F kernels.Float](p *Projector, dst, src []F, batch int) error {
	if err := p.check(len(dst), len(src), batch, p.geom.SinoLen(), p.geom.ImageLen(), "sinogram", "image"); err != nil {
		return fmt.Errorf("tomo: forward: %w", err)
	}
	g := p.geom
	ni, ns := g.ImageLen(), g.SinoLen()
	for b := 0; b < batch; {
		k := 1
		if batch-b >= lanes {
			k = lanes
		}
		forwardLanes(p, dst[b*ns:(b+k)*ns], src[b*ni:(b+k)*ni], k)
		b += k
	}
	return nil
}

// forwardLanes projects k (1 or lanes) images.
func forwardLanes[F kernels.Float](p *Projector, dst, src []F, k int) {
	g := p.geom
	n, m, det, ns := g.N, p.stride, g.Det, g.SinoLen()
	sc := getScratch[F](p, 1, k)
	defer poolOf[F](p).Put(sc)
	plain, trans := sc.plain[0], sc.trans[0]
	// Pooled buffers may hold Adjoint sums; the border must be zero and
	// interleave rewrites only the interior.
	clear(plain)
	clear(trans)
	interleave(p, plain, trans, src, k)
	lines := p.blockLines(k)
	p.parallel(func(_, a int) {
		info := p.angles[a]
		pad := plain
		if info.transposed {
			pad = trans
		}
		rays := p.rays[a*det : (a+1)*det]
		if k == 1 {
			out := dst[a*det : (a+1)*det]
			clear(out)
			for lo := 0; lo < n; lo += lines {
				for j, r := range rays {
					out[j] += F(gather(pad, m, r, info.step, lo, lo+lines))
				}
			}
			wt := F(info.weight)
			for j := range out {
				out[j] *= wt
			}
			return
		}
		for t := range lanes {
			clear(dst[t*ns+a*det : t*ns+(a+1)*det])
		}
		for lo := 0; lo < n; lo += lines {
			for j, r := range rays {
				s := gather4(pad, m, r, info.step, lo, lo+lines)
				for t := range lanes {
					dst[t*ns+a*det+j] += F(s[t])
				}
			}
		}
		wt := F(info.weight)
		for t := range lanes {
			out := dst[t*ns+a*det : t*ns+(a+1)*det]
			for j := range out {
				out[j] *= wt
			}
		}
	})
}

// blockLines returns how many lines (rows or columns) of k interleaved
// images make a block of about 256 KiB. Rays are traced block by block so
// that the part of the image in use stays in cache.
func (p *Projector) blockLines(k int) int {
	const blockBytes = 256 << 10
	return max(8, blockBytes/(8*k*p.stride))
}

// poolOf returns the scratch pool of precision F.
func poolOf[F kernels.Float](p *Projector) *sync.Pool {
	var z F
	if unsafe.Sizeof(z) == 4 {
		return &p.pool32
	}
	return &p.pool
}

// interleave writes k images into the interiors of the padded buffers, lane t
// of padded pixel q at index q·k + t; trans holds the transposed images.
func interleave[F kernels.Float](p *Projector, plain, trans, src []F, k int) {
	n, m := p.geom.N, p.stride
	for t := range k {
		img := src[t*n*n : (t+1)*n*n]
		for i := range n {
			row := img[i*n : (i+1)*n]
			for j, v := range row {
				plain[((i+1)*m+j+1)*k+t] = v
				trans[((j+1)*m+i+1)*k+t] = v
			}
		}
	}
}

// gather sums the interpolated samples of one ray over a padded image, on
// the lines in [lo, hi) only.
func gather[F kernels.Float](pad []F, m int, r ray, step float64, lo, hi int) float64 {
	var sum float64
	first, end := max(int(r.first), lo), min(int(r.end), hi)
	off := (first + 1) * m
	lf := float64(first) // float64(l), counted in float to skip a conversion
	for l := first; l < end; l, lf = l+1, lf+1 {
		v := r.start + float64(lf*step) // = coord(r.start, step, l), bit for bit
		c := int(v)                     // v ≥ 0, so truncation is floor
		f := v - float64(c)
		q := pad[off+c : off+c+2 : off+c+2]
		sum += float64(q[0] + F(f)*(q[1]-q[0]))
		off += m
	}
	return sum
}

// gather4 is gather over four interleaved padded images.
func gather4[F kernels.Float](pad []F, m int, r ray, step float64, lo, hi int) [4]float64 {
	var s0, s1, s2, s3 float64
	first, end := max(int(r.first), lo), min(int(r.end), hi)
	off := (first + 1) * m
	lf := float64(first) // float64(l), counted in float to skip a conversion
	for l := first; l < end; l, lf = l+1, lf+1 {
		v := r.start + float64(lf*step) // = coord(r.start, step, l), bit for bit
		c := int(v)
		f := F(v - float64(c))
		i := (off + c) * 4
		q := pad[i : i+8 : i+8]
		s0 += float64(q[0] + f*(q[4]-q[0]))
		s1 += float64(q[1] + f*(q[5]-q[1]))
		s2 += float64(q[2] + f*(q[6]-q[2]))
		s3 += float64(q[3] + f*(q[7]-q[3]))
		off += m
	}
	return [4]float64{s0, s1, s2, s3}
}

// scatter adds the transpose of gather, scaled by val, into a padded image.
func scatter[F kernels.Float](pad []F, m int, r ray, step float64, val F, lo, hi int) {
	first, end := max(int(r.first), lo), min(int(r.end), hi)
	off := (first + 1) * m
	lf := float64(first) // float64(l), counted in float to skip a conversion
	for l := first; l < end; l, lf = l+1, lf+1 {
		v := r.start + float64(lf*step) // = coord(r.start, step, l), bit for bit
		c := int(v)
		f := v - float64(c)
		q := pad[off+c : off+c+2 : off+c+2]
		fv := F(f) * val
		q[0] += val - fv
		q[1] += fv
		off += m
	}
}

// scatter4 is scatter into four interleaved padded images.
func scatter4[F kernels.Float](pad []F, m int, r ray, step float64, val [4]F, lo, hi int) {
	first, end := max(int(r.first), lo), min(int(r.end), hi)
	off := (first + 1) * m
	lf := float64(first) // float64(l), counted in float to skip a conversion
	for l := first; l < end; l, lf = l+1, lf+1 {
		v := r.start + float64(lf*step) // = coord(r.start, step, l), bit for bit
		c := int(v)
		f := F(v - float64(c))
		i := (off + c) * 4
		q := pad[i : i+8 : i+8]
		f0, f1, f2, f3 := f*val[0], f*val[1], f*val[2], f*val[3]
		q[0] += val[0] - f0
		q[1] += val[1] - f1
		q[2] += val[2] - f2
		q[3] += val[3] - f3
		q[4] += f0
		q[5] += f1
		q[6] += f2
		q[7] += f3
		off += m
	}
}

// Adjoint computes dst = Aᵀ·src for a batch of sinograms: src is
// [batch, Angles, Det], dst is [batch, N, N] and is overwritten. It returns an
// error, and leaves dst untouched, if a length does not match.
func (p *Projector) Adjoint(dst, src []float64, batch int) error { return AdjointT(p, dst, src, batch) }

// AdjointT is Adjoint in precision F, the exact transpose of ForwardT[F]
// (the same weights rounded to F). AdjointT[float64] is Adjoint.
func AdjointT[F kernels.Float](p *Projector, dst, src []F, batch int) error {
	if err := p.check(len(dst), len(src), batch, p.geom.ImageLen(), p.geom.SinoLen(), "image", "sinogram"); err != nil {
		return fmt.Errorf("tomo: adjoint: %w", err)
	}
	g := p.geom
	ni, ns := g.ImageLen(), g.SinoLen()
	for b := 0; b < batch; {
		k := 1
		if batch-b >= lanes {
			k = lanes
		}
		adjointLanes(p, dst[b*ni:(b+k)*ni], src[b*ns:(b+k)*ns], k)
		b += k
	}
	return nil
}

// adjointLanes back-projects k (1 or lanes) sinograms. The workers split
// the lines of the padded buffers (rows of the plain one, columns of the
// transposed one), each tracing every angle in order but writing only its
// lines, so that every pixel receives its contributions in the order of one
// loop over the angles and rays, whatever the number of workers.
func adjointLanes[F kernels.Float](p *Projector, dst, src []F, k int) {
	g := p.geom
	n, m, det, ns := g.N, p.stride, g.Det, g.SinoLen()
	sc := getScratch[F](p, 1, k)
	defer poolOf[F](p).Put(sc)
	plain, trans := sc.plain[0], sc.trans[0]
	clear(plain)
	clear(trans)
	lines := p.blockLines(k)
	p.parallelLines(n, func(l0, l1 int) {
		for a := range g.Angles {
			info := p.angles[a]
			pad := plain
			if info.transposed {
				pad = trans
			}
			rays := p.rays[a*det : (a+1)*det]
			wt := F(info.weight)
			for lo := l0; lo < l1; lo += lines {
				hi := min(lo+lines, l1)
				if k == 1 {
					for j, y := range src[a*det : (a+1)*det] {
						if y != 0 {
							scatter(pad, m, rays[j], info.step, wt*y, lo, hi)
						}
					}
					continue
				}
				for j, r := range rays {
					var val [4]F
					for t := range lanes {
						val[t] = wt * src[t*ns+a*det+j]
					}
					if val != [4]F{} {
						scatter4(pad, m, r, info.step, val, lo, hi)
					}
				}
			}
		}
	})
	// Each image pixel: the plain buffer's sum, then the transposed one's.
	for t := range k {
		img := dst[t*n*n : (t+1)*n*n]
		for i := range n {
			row := img[i*n : (i+1)*n]
			clear(row)
			for j := range row {
				row[j] += plain[((i+1)*m+j+1)*k+t]
			}
			for j := range row {
				row[j] += trans[((j+1)*m+i+1)*k+t]
			}
		}
	}
}

// getScratch returns scratch with at least nbuf padded buffer pairs of
// k·(N+2)² elements each and unspecified content.
func getScratch[F kernels.Float](p *Projector, nbuf, k int) *scratch[F] {
	sc := poolOf[F](p).Get().(*scratch[F])
	size := k * p.stride * p.stride
	sc.plain = resize(sc.plain, nbuf, size)
	sc.trans = resize(sc.trans, nbuf, size)
	return sc
}

func resize[F kernels.Float](bufs [][]F, nbuf, size int) [][]F {
	for len(bufs) < nbuf {
		bufs = append(bufs, nil)
	}
	for i := range bufs[:nbuf] {
		if cap(bufs[i]) < size {
			bufs[i] = make([]F, size)
		}
		bufs[i] = bufs[i][:size]
	}
	return bufs
}

// parallel calls fn(worker, a) for every angle a. Worker w handles the
// contiguous block of angles [w·Angles/workers, (w+1)·Angles/workers), so
// which worker sees which angle, and hence the rounding of Adjoint's final
// sum, does not depend on scheduling.
func (p *Projector) parallel(fn func(worker, a int)) {
	angles, workers := p.geom.Angles, p.workers
	if workers == 1 {
		for a := range angles {
			fn(0, a)
		}
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for a := w * angles / workers; a < (w+1)*angles/workers; a++ {
				fn(w, a)
			}
		})
	}
	wg.Wait()
}

// parallelLines calls fn(l0, l1) on contiguous ranges of the n lines, one
// per worker (at most n).
func (p *Projector) parallelLines(n int, fn func(l0, l1 int)) {
	workers := max(1, min(p.workers, n))
	if workers == 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { fn(w*n/workers, (w+1)*n/workers) })
	}
	wg.Wait()
}

// DefaultNormIters is the number of power iterations Norm uses when asked
// for fewer than one.
const DefaultNormIters = 100

// Norm estimates the operator norm ‖A‖ (largest singular value) by iters
// steps of power iteration on AᵀA from a Gaussian random start drawn with
// seed. It returns √⟨x, AᵀAx⟩ for the final unit vector x, which never
// exceeds ‖A‖ and converges to it. iters < 1 selects DefaultNormIters.
func (p *Projector) Norm(iters int, seed int64) float64 {
	if iters < 1 {
		iters = DefaultNormIters
	}
	g := p.geom
	rng := rand.New(rand.NewSource(seed))
	x := make([]float64, g.ImageLen())
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	y := make([]float64, g.SinoLen())
	var sq float64
	for range iters {
		scale(x, 1/norm2(x))
		// Lengths match by construction, so Forward and Adjoint cannot fail.
		_ = p.Forward(y, x, 1)
		sq = dot(y, y)
		_ = p.Adjoint(x, y, 1)
		if sq == 0 {
			return 0
		}
	}
	return math.Sqrt(sq)
}

func dot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

func norm2(a []float64) float64 { return math.Sqrt(dot(a, a)) }

func scale(a []float64, c float64) {
	for i := range a {
		a[i] *= c
	}
}

package tomo

import (
	"math"
	"math/rand"
	"testing"
)

// tableForward is the ray transform written directly from the exported
// tables, one image and one ray at a time: no lanes, no blocking, no
// transposed copy, no workers; the interpolation is written as
// (1−f)·left + f·right. It is what package gpu/cuda's kernels compute from
// the same tables.
func tableForward(t *RayTables, img []float64) []float64 {
	g := t.Geom
	n := g.N
	pixel := func(transposed bool, line, c int) float64 { // c: padded coordinate
		if c < 1 || c > n {
			return 0
		}
		if transposed {
			return img[(c-1)*n+line]
		}
		return img[line*n+c-1]
	}
	out := make([]float64, g.SinoLen())
	for a := range g.Angles {
		for k := range g.Det {
			r := a*g.Det + k
			var sum float64
			for l := int(t.First[r]); l < int(t.End[r]); l++ {
				v := t.Coord(r, l)
				c := int(math.Floor(v))
				f := v - float64(c)
				sum += (1-f)*pixel(t.Transposed[a], l, c) + f*pixel(t.Transposed[a], l, c+1)
			}
			out[r] = t.Weight[a] * sum
		}
	}
	return out
}

// tableAdjoint is the transpose of tableForward, scattering from the tables.
func tableAdjoint(t *RayTables, sino []float64) []float64 {
	g := t.Geom
	n := g.N
	img := make([]float64, g.ImageLen())
	add := func(transposed bool, line, c int, v float64) {
		if c < 1 || c > n {
			return
		}
		if transposed {
			img[(c-1)*n+line] += v
		} else {
			img[line*n+c-1] += v
		}
	}
	for a := range g.Angles {
		for k := range g.Det {
			r := a*g.Det + k
			w := t.Weight[a] * sino[r]
			for l := int(t.First[r]); l < int(t.End[r]); l++ {
				v := t.Coord(r, l)
				c := int(math.Floor(v))
				f := v - float64(c)
				add(t.Transposed[a], l, c, (1-f)*w)
				add(t.Transposed[a], l, c+1, f*w)
			}
		}
	}
	return img
}

// TestRayTablesReproduceProjector checks that the exported tables define the
// projector: the ray transform and its transpose computed from them, one ray
// at a time, equal Projector.Forward and Adjoint to 1e-12 relative, for
// batches that take the four-lane path, the one-image path and both.
func TestRayTablesReproduceProjector(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var worstF, worstA float64
	for _, c := range []struct{ n, angles, det, batch int }{
		{16, 12, 0, 1}, {17, 7, 5, 5}, {23, 13, 0, 4}, {32, 180, 0, 2}, {9, 30, 40, 6}, {1, 3, 1, 1},
	} {
		p := mustProjector(t, c.n, c.angles, c.det)
		g := p.Geometry()
		tab, err := NewRayTables(g)
		if err != nil {
			t.Fatal(err)
		}
		x := randVec(rng, c.batch*g.ImageLen())
		y := randVec(rng, c.batch*g.SinoLen())
		ax := make([]float64, len(y))
		aty := make([]float64, len(x))
		if err := p.Forward(ax, x, c.batch); err != nil {
			t.Fatal(err)
		}
		if err := p.Adjoint(aty, y, c.batch); err != nil {
			t.Fatal(err)
		}
		ni, ns := g.ImageLen(), g.SinoLen()
		for b := range c.batch {
			want := tableForward(tab, x[b*ni:(b+1)*ni])
			got := ax[b*ns : (b+1)*ns]
			rel := maxAbsDiff(got, want) / math.Max(maxAbs(want), 1e-300)
			worstF = max(worstF, rel)
			if rel > 1e-12 {
				t.Errorf("%+v image %d of %d: Forward differs from the tables' ray transform by %.3g relative", g, b, c.batch, rel)
			}
			wantA := tableAdjoint(tab, y[b*ns:(b+1)*ns])
			gotA := aty[b*ni : (b+1)*ni]
			rel = maxAbsDiff(gotA, wantA) / math.Max(maxAbs(wantA), 1e-300)
			worstA = max(worstA, rel)
			if rel > 1e-12 {
				t.Errorf("%+v sinogram %d of %d: Adjoint differs from the tables' transpose by %.3g relative", g, b, c.batch, rel)
			}
		}
	}
	t.Logf("worst relative difference: forward %.3g, adjoint %.3g", worstF, worstA)
}

// TestRayTablesFollowTheRays checks the tables against the geometry they
// claim, without the projector: every sample lies on its ray's line
// x·cos θ + y·sin θ = s_k; consecutive samples are Weight apart along it; the
// marching direction is the one closer to the ray (|Step| ≤ 1); and
// [First, End) is exactly the set of lines whose sample is in [0, N+1).
func TestRayTablesFollowTheRays(t *testing.T) {
	for _, c := range []struct{ n, angles, det int }{{16, 12, 0}, {17, 7, 5}, {9, 30, 40}, {40, 90, 0}, {1, 3, 1}} {
		g, err := NewGeometry(c.n, c.angles, c.det)
		if err != nil {
			t.Fatal(err)
		}
		tab, err := NewRayTables(g)
		if err != nil {
			t.Fatal(err)
		}
		if len(tab.Step) != g.Angles || len(tab.Start) != g.SinoLen() || len(tab.First) != g.SinoLen() || len(tab.End) != g.SinoLen() {
			t.Fatalf("%+v: table lengths %d angles, %d rays", g, len(tab.Step), len(tab.Start))
		}
		half := 0.5 * float64(g.N-1)
		var worst float64
		for a := range g.Angles {
			sin, cos := math.Sincos(g.Angle(a))
			if math.Abs(tab.Step[a]) > 1+1e-12 {
				t.Errorf("%+v angle %d: |step| = %g > 1: marching along the wrong axis", g, a, math.Abs(tab.Step[a]))
			}
			if d := math.Hypot(1, tab.Step[a]); math.Abs(d-tab.Weight[a]) > 1e-12*d {
				t.Errorf("%+v angle %d: weight %g, distance between samples %g", g, a, tab.Weight[a], d)
			}
			for k := range g.Det {
				r := a*g.Det + k
				s := g.BinCentre(k)
				for l := -1; l <= g.N; l++ {
					v := tab.Coord(r, l)
					x, y := v-1-half, half-float64(l) // row l, column coordinate v − 1
					if tab.Transposed[a] {
						x, y = float64(l)-half, half-(v-1) // column l, row coordinate v − 1
					}
					off := math.Abs(x*cos + y*sin - s)
					worst = max(worst, off)
					if off > 1e-9 {
						t.Fatalf("%+v ray (%d, %d) line %d: sample (%g, %g) is %g off its line", g, a, k, l, x, y, off)
					}
					if l < 0 || l >= g.N {
						continue
					}
					inside := v >= 0 && v < float64(g.N+1)
					inRange := l >= int(tab.First[r]) && l < int(tab.End[r])
					if inside != inRange {
						t.Errorf("%+v ray (%d, %d) line %d: coordinate %g, range [%d, %d)", g, a, k, l, v, tab.First[r], tab.End[r])
					}
				}
			}
		}
		t.Logf("%+v: samples at most %.2g off their rays", g, worst)
	}
}

func TestRayTablesRejectBadGeometry(t *testing.T) {
	if _, err := NewRayTables(Geometry{N: 8, Angles: 0, Det: 5}); err == nil {
		t.Error("NewRayTables with 0 angles: want error")
	}
}

package data

import (
	"math"
	"math/rand/v2"
)

// Synthetic returns n natural-looking random h×w images with values in
// [0, 1]: a smooth background (a linear gradient plus a low-frequency
// undulation), several random shapes (rotated ellipses, rectangles and
// convex polygons, with sharp or soft edges and their own shading), fine
// multi-scale texture and a little pixel noise. The images are
// deterministic in seed, and image i does not depend on n, so the first k
// images of Synthetic(n, …) are Synthetic(k, …).
func Synthetic(n, h, w int, seed int64) []*Image {
	out := make([]*Image, max(n, 0))
	for i := range out {
		out[i] = SyntheticImage(i, h, w, seed)
	}
	return out
}

// SyntheticImage returns image i of Synthetic(n, h, w, seed) for any n > i.
func SyntheticImage(i, h, w int, seed int64) *Image {
	rng := rand.New(rand.NewPCG(mix(uint64(seed)), mix(uint64(seed)^mix(uint64(i)+1))))
	return syntheticImage(rng, h, w)
}

func syntheticImage(rng *rand.Rand, h, w int) *Image {
	im := NewImage(h, w)
	side := float64(max(h, w))

	// Background: base level, linear gradient and one slow undulation.
	base := 0.25 + 0.5*rng.Float64()
	ang := 2 * math.Pi * rng.Float64()
	slope := (0.1 + 0.3*rng.Float64()) / side
	gx, gy := slope*math.Cos(ang), slope*math.Sin(ang)
	waveAmp := 0.05 + 0.1*rng.Float64()
	waveK := 2 * math.Pi * (0.5 + 1.5*rng.Float64()) / side
	waveAng := 2 * math.Pi * rng.Float64()
	kx, ky := waveK*math.Cos(waveAng), waveK*math.Sin(waveAng)
	phase := 2 * math.Pi * rng.Float64()
	cx, cy := float64(w-1)/2, float64(h-1)/2
	for r := range h {
		for c := range w {
			x, y := float64(c)-cx, float64(r)-cy
			im.Pix[r*w+c] = base + gx*x + gy*y + waveAmp*math.Sin(kx*x+ky*y+phase)
		}
	}

	// Shapes, painted back to front with alpha blending.
	// The last shape is sharp and contrasts with the background, so every
	// image has some clear edges.
	nShapes := 3 + rng.IntN(6)
	for k := range nShapes {
		s := randomShape(rng, h, w)
		if k == nShapes-1 {
			s.edge = min(s.edge, 0.7)
			s.alpha = 1
			s.value = base + (0.25+0.25*rng.Float64())*math.Copysign(1, 0.5-base)
		}
		s.paint(im)
	}

	// Texture: two octaves of smooth value noise plus white noise.
	texAmp := 0.02 + 0.06*rng.Float64()
	addValueNoise(rng, im, max(2, int(side/12)), texAmp)
	addValueNoise(rng, im, 2, texAmp/2)
	sigma := 0.005 + 0.015*rng.Float64()
	for i := range im.Pix {
		im.Pix[i] = min(max(im.Pix[i]+sigma*rng.NormFloat64(), 0), 1)
	}
	return im
}

// shape is a region given by a signed distance function (negative inside),
// filled with a linearly shaded colour and blended with opacity alpha.
type shape struct {
	dist       func(x, y float64) float64
	value      float64 // colour at the centre
	shadeX     float64 // colour gradient per pixel
	shadeY     float64
	cx, cy     float64
	edge       float64 // edge width in pixels: ~0.5 sharp, larger soft
	alpha      float64
	minR, minC int // bounding box, to skip distant pixels
	maxR, maxC int
}

func randomShape(rng *rand.Rand, h, w int) shape {
	side := float64(min(h, w))
	s := shape{
		cx:    float64(w) * (0.1 + 0.8*rng.Float64()),
		cy:    float64(h) * (0.1 + 0.8*rng.Float64()),
		value: rng.Float64(),
		alpha: 0.6 + 0.4*rng.Float64(),
	}
	shade := 0.3 * rng.Float64() / side
	shadeAng := 2 * math.Pi * rng.Float64()
	s.shadeX, s.shadeY = shade*math.Cos(shadeAng), shade*math.Sin(shadeAng)
	if rng.Float64() < 0.6 {
		s.edge = 0.5 + 0.5*rng.Float64() // sharp, anti-aliased
	} else {
		s.edge = 1.5 + 0.05*side*rng.Float64() // soft
	}
	theta := math.Pi * rng.Float64()
	cosT, sinT := math.Cos(theta), math.Sin(theta)
	a := side * (0.05 + 0.25*rng.Float64())
	b := side * (0.05 + 0.25*rng.Float64())
	cx, cy := s.cx, s.cy
	rot := func(x, y float64) (float64, float64) {
		x, y = x-cx, y-cy
		return cosT*x + sinT*y, -sinT*x + cosT*y
	}
	switch rng.IntN(3) {
	case 0: // ellipse; distance approximated by the radial scale
		s.dist = func(x, y float64) float64 {
			u, v := rot(x, y)
			q := math.Hypot(u/a, v/b)
			return (q - 1) * min(a, b)
		}
	case 1: // rectangle
		s.dist = func(x, y float64) float64 {
			u, v := rot(x, y)
			return max(math.Abs(u)-a, math.Abs(v)-b)
		}
	default: // convex polygon: intersection of half-planes tangent to a circle
		k := 3 + rng.IntN(5)
		r := (a + b) / 2
		normals := make([][2]float64, k)
		offsets := make([]float64, k)
		for j := range k {
			phi := 2*math.Pi*(float64(j)+0.7*rng.Float64())/float64(k) + theta
			normals[j] = [2]float64{math.Cos(phi), math.Sin(phi)}
			offsets[j] = r * (0.7 + 0.3*rng.Float64())
		}
		s.dist = func(x, y float64) float64 {
			x, y = x-cx, y-cy
			d := math.Inf(-1)
			for j, nrm := range normals {
				d = max(d, nrm[0]*x+nrm[1]*y-offsets[j])
			}
			return d
		}
	}
	// A triangle with all normals within a half circle could be unbounded;
	// the bounding box keeps painting local in every case.
	reach := 2*max(a, b) + 3*s.edge
	s.minR, s.maxR = max(0, int(cy-reach)), min(h-1, int(cy+reach)+1)
	s.minC, s.maxC = max(0, int(cx-reach)), min(w-1, int(cx+reach)+1)
	return s
}

func (s shape) paint(im *Image) {
	for r := s.minR; r <= s.maxR; r++ {
		for c := s.minC; c <= s.maxC; c++ {
			x, y := float64(c), float64(r)
			m := min(max(0.5-s.dist(x, y)/(2*s.edge), 0), 1)
			if m == 0 {
				continue
			}
			v := s.value + s.shadeX*(x-s.cx) + s.shadeY*(y-s.cy)
			t := s.alpha * m
			p := &im.Pix[r*im.W+c]
			*p = (1-t)**p + t*v
		}
	}
}

// addValueNoise adds amp times bilinearly interpolated uniform noise in
// [-1, 1] defined on a grid of the given cell size.
func addValueNoise(rng *rand.Rand, im *Image, cell int, amp float64) {
	gh, gw := im.H/cell+2, im.W/cell+2
	grid := make([]float64, gh*gw)
	for i := range grid {
		grid[i] = 2*rng.Float64() - 1
	}
	for r := range im.H {
		fy := float64(r) / float64(cell)
		y0 := int(fy)
		ty := smooth(fy - float64(y0))
		for c := range im.W {
			fx := float64(c) / float64(cell)
			x0 := int(fx)
			tx := smooth(fx - float64(x0))
			g00, g01 := grid[y0*gw+x0], grid[y0*gw+x0+1]
			g10, g11 := grid[(y0+1)*gw+x0], grid[(y0+1)*gw+x0+1]
			top := g00 + tx*(g01-g00)
			bot := g10 + tx*(g11-g10)
			im.Pix[r*im.W+c] += amp * (top + ty*(bot-top))
		}
	}
}

// smooth is the smoothstep 3t²−2t³, which removes grid artefacts from
// bilinear interpolation.
func smooth(t float64) float64 { return t * t * (3 - 2*t) }

// Phantoms returns n random size×size ellipse phantoms for CT, in the
// spirit of Shepp–Logan: a large outer ellipse (the body) with a random
// intensity, plus 5–10 random ellipses inside it whose (possibly negative)
// intensities add up where they overlap. Values are clipped to [0, 1] and
// pixels outside the body are exactly zero. Coordinates span [-1, 1] over
// the image and pixels are sampled at their centres, so edges are sharp.
// The phantoms are deterministic in seed.
func Phantoms(n, size int, seed int64) []*Image {
	out := make([]*Image, max(n, 0))
	for i := range out {
		out[i] = Phantom(i, size, seed)
	}
	return out
}

// Phantom returns image i of Phantoms(n, size, seed) for any n > i.
func Phantom(i, size int, seed int64) *Image {
	rng := rand.New(rand.NewPCG(mix(uint64(seed)^0xc7c7c7c7), mix(uint64(seed)^mix(uint64(i)+7))))
	return phantom(rng, size)
}

// ellipse is an ellipse in [-1,1]² coordinates with an additive intensity.
type ellipse struct {
	x0, y0, a, b, theta, value float64
}

// inside returns a test for membership in e, with the rotation precomputed.
func (e ellipse) inside() func(x, y float64) bool {
	c, s := math.Cos(e.theta), math.Sin(e.theta)
	ia, ib := 1/e.a, 1/e.b
	return func(x, y float64) bool {
		u := (c*(x-e.x0) + s*(y-e.y0)) * ia
		v := (-s*(x-e.x0) + c*(y-e.y0)) * ib
		return u*u+v*v <= 1
	}
}

func phantom(rng *rand.Rand, size int) *Image {
	body := ellipse{
		x0:    0.04 * (2*rng.Float64() - 1),
		y0:    0.04 * (2*rng.Float64() - 1),
		a:     0.7 + 0.2*rng.Float64(),
		b:     0.8 + 0.15*rng.Float64(),
		theta: 0.2 * (2*rng.Float64() - 1),
		value: 0.2 + 0.4*rng.Float64(),
	}
	inner := make([]ellipse, 5+rng.IntN(6))
	for k := range inner {
		// Centre drawn uniformly in a shrunken copy of the body.
		rad, phi := 0.6*math.Sqrt(rng.Float64()), 2*math.Pi*rng.Float64()
		u, v := rad*body.a*math.Cos(phi), rad*body.b*math.Sin(phi)
		c, s := math.Cos(body.theta), math.Sin(body.theta)
		value := 0.1 + 0.4*rng.Float64()
		if rng.Float64() < 0.4 {
			value = -value
		}
		inner[k] = ellipse{
			x0:    body.x0 + c*u - s*v,
			y0:    body.y0 + s*u + c*v,
			a:     0.04 + 0.3*rng.Float64(),
			b:     0.04 + 0.3*rng.Float64(),
			theta: math.Pi * rng.Float64(),
			value: value,
		}
	}
	inBody := body.inside()
	inInner := make([]func(x, y float64) bool, len(inner))
	for k, e := range inner {
		inInner[k] = e.inside()
	}
	im := NewImage(size, size)
	for r := range size {
		y := 1 - (2*float64(r)+1)/float64(size) // top row is y near +1
		for c := range size {
			x := (2*float64(c)+1)/float64(size) - 1
			if !inBody(x, y) {
				continue
			}
			v := body.value
			for k, in := range inInner {
				if in(x, y) {
					v += inner[k].value
				}
			}
			im.Pix[r*size+c] = min(max(v, 0), 1)
		}
	}
	return im
}

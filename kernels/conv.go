package kernels

import "fmt"

// Boundary says how a small convolution extends an image beyond its border.
type Boundary int

const (
	// Zero pads with zeros.
	Zero Boundary = iota
	// Reflect mirrors the image about its border, repeating the edge pixel
	// (half-sample symmetric: x[-1] = x[0], x[-2] = x[1]).
	Reflect
	// Circular wraps around (periodic extension).
	Circular
)

// String returns "zero", "reflect" or "circular".
func (b Boundary) String() string {
	switch b {
	case Zero:
		return "zero"
	case Reflect:
		return "reflect"
	case Circular:
		return "circular"
	}
	return fmt.Sprintf("Boundary(%d)", int(b))
}

// ParseBoundary turns "zero", "reflect" (or "symmetric") and "circular" (or
// "periodic") into a Boundary.
func ParseBoundary(s string) (Boundary, error) {
	switch s {
	case "zero":
		return Zero, nil
	case "reflect", "symmetric":
		return Reflect, nil
	case "circular", "periodic":
		return Circular, nil
	}
	return 0, fmt.Errorf("unknown boundary %q: use zero, reflect or circular", s)
}

// Extend maps an index in [-pad, n+pad) (pad ≤ n) to its source index in
// [0, n) under the boundary condition, or -1 for a zero-padded position.
func (b Boundary) Extend(i, n int) int {
	if i >= 0 && i < n {
		return i
	}
	switch b {
	case Reflect:
		period := 2 * n
		i %= period
		if i < 0 {
			i += period
		}
		if i >= n {
			i = period - 1 - i
		}
		return i
	case Circular:
		i %= n
		if i < 0 {
			i += n
		}
		return i
	}
	return -1
}

// ConvT describes the correlation of every image of an [N,H,W] batch of
// element type F with one odd-sized K×K kernel centred at (K/2, K/2):
//
//	y[n,i,j] = Σ_{u,v} k[u,v] · x̄[n, i+u−K/2, j+v−K/2]
//
// where x̄ extends x beyond the border according to Boundary.
type ConvT[F Float] struct {
	N, H, W, K int
	Boundary   Boundary
}

// Conv is the float64 convolution, ConvT[float64].
type Conv = ConvT[float64]

// Validate reports whether the sizes are usable.
func (c ConvT[F]) Validate() error {
	if c.N < 1 || c.H < 1 || c.W < 1 {
		return fmt.Errorf("convolution: batch %d×%d×%d must be positive", c.N, c.H, c.W)
	}
	if c.K < 1 || c.K%2 == 0 {
		return fmt.Errorf("convolution: kernel size %d must be odd and positive", c.K)
	}
	if c.Boundary != Zero && (c.K/2 > c.H || c.K/2 > c.W) {
		return fmt.Errorf("convolution: kernel %d×%d too large for a %d×%d image with %v boundary", c.K, c.K, c.H, c.W, c.Boundary)
	}
	return nil
}

func (c ConvT[F]) check(nx, nk, ny int) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if nx != c.N*c.H*c.W || ny != c.N*c.H*c.W {
		return fmt.Errorf("convolution: images have %d and %d values, want %d (N=%d, H=%d, W=%d)", nx, ny, c.N*c.H*c.W, c.N, c.H, c.W)
	}
	if nk != c.K*c.K {
		return fmt.Errorf("convolution: kernel has %d values, want %d (%d×%d)", nk, c.K*c.K, c.K, c.K)
	}
	return nil
}

// pad writes the extended image of src ([H,W]) into dst ([H+2p, W+2p]).
func (c ConvT[F]) pad(dst, src []F) {
	p := c.K / 2
	pw := c.W + 2*p
	for i := -p; i < c.H+p; i++ {
		row := dst[(i+p)*pw : (i+p+1)*pw]
		si := c.Boundary.Extend(i, c.H)
		if si < 0 {
			clear(row)
			continue
		}
		srow := src[si*c.W : (si+1)*c.W]
		copy(row[p:p+c.W], srow)
		for j := 0; j < p; j++ {
			if sj := c.Boundary.Extend(j-p, c.W); sj >= 0 {
				row[j] = srow[sj]
			} else {
				row[j] = 0
			}
			if sj := c.Boundary.Extend(c.W+j, c.W); sj >= 0 {
				row[p+c.W+j] = srow[sj]
			} else {
				row[p+c.W+j] = 0
			}
		}
	}
}

// fold adds the extended image src ([H+2p, W+2p]) back onto dst ([H,W]):
// the transpose of pad. dst is overwritten.
func (c ConvT[F]) fold(dst, src []F) {
	p := c.K / 2
	pw := c.W + 2*p
	for i := 0; i < c.H; i++ {
		copy(dst[i*c.W:(i+1)*c.W], src[(i+p)*pw+p:(i+p)*pw+p+c.W])
	}
	if p == 0 || c.Boundary == Zero {
		return
	}
	for i := -p; i < c.H+p; i++ {
		si := c.Boundary.Extend(i, c.H)
		row := src[(i+p)*pw : (i+p+1)*pw]
		drow := dst[si*c.W : (si+1)*c.W]
		inside := i >= 0 && i < c.H
		for j := -p; j < c.W+p; j++ {
			if inside && j >= 0 && j < c.W {
				continue
			}
			drow[c.Boundary.Extend(j, c.W)] += row[j+p]
		}
	}
}

// correlateValid computes out[i,j] = Σ_{u,v} k[u,v]·in[(i+u)·iw + j+v] for an
// oh×ow output (row stride ow) from an input of row stride iw ≥ ow+K−1.
func correlateValid[F Float](out []F, oh, ow int, in []F, iw int, k []F, kk int) {
	for i := 0; i < oh; i++ {
		yrow := out[i*ow : (i+1)*ow]
		clear(yrow)
		for u := 0; u < kk; u++ {
			b := in[(i+u)*iw : (i+u)*iw+ow+kk-1]
			kr := k[u*kk : (u+1)*kk]
			switch kk {
			case 5:
				k0, k1, k2, k3, k4 := kr[0], kr[1], kr[2], kr[3], kr[4]
				for j := range yrow {
					bj := b[j : j+5 : j+5]
					yrow[j] += k0*bj[0] + k1*bj[1] + k2*bj[2] + k3*bj[3] + k4*bj[4]
				}
			case 3:
				k0, k1, k2 := kr[0], kr[1], kr[2]
				for j := range yrow {
					bj := b[j : j+3 : j+3]
					yrow[j] += k0*bj[0] + k1*bj[1] + k2*bj[2]
				}
			default:
				for v, kv := range kr {
					if kv == 0 {
						continue
					}
					src := b[v : v+ow]
					for j := range yrow {
						yrow[j] += kv * src[j]
					}
				}
			}
		}
	}
}

// Apply computes y = k ⋆ x for the batch x. y is overwritten.
func (c ConvT[F]) Apply(y, x, k []F) error {
	if err := c.check(len(x), len(k), len(y)); err != nil {
		return err
	}
	p := c.K / 2
	pw, ph := c.W+2*p, c.H+2*p
	hw := c.H * c.W
	ParallelFor(c.N, func(lo, hi int) {
		buf := make([]F, pw*ph)
		for n := lo; n < hi; n++ {
			c.pad(buf, x[n*hw:(n+1)*hw])
			correlateValid(y[n*hw:(n+1)*hw], c.H, c.W, buf, pw, k, c.K)
		}
	})
	return nil
}

// AdjointImage computes x = Kᵀ y, the adjoint of Apply in the image: the
// unique x with ⟨k ⋆ z, y⟩ = ⟨z, x⟩ for every z. x is overwritten.
func (c ConvT[F]) AdjointImage(x, y, k []F) error {
	if err := c.check(len(x), len(k), len(y)); err != nil {
		return err
	}
	p := c.K / 2
	pw, ph := c.W+2*p, c.H+2*p
	zw, zh := c.W+4*p, c.H+4*p
	hw := c.H * c.W
	flipped := make([]F, len(k))
	for i := range k {
		flipped[len(k)-1-i] = k[i]
	}
	ParallelFor(c.N, func(lo, hi int) {
		buf := make([]F, pw*ph)
		yz := make([]F, zw*zh)
		for n := lo; n < hi; n++ {
			yn := y[n*hw : (n+1)*hw]
			for i := 0; i < c.H; i++ {
				copy(yz[(i+2*p)*zw+2*p:(i+2*p)*zw+2*p+c.W], yn[i*c.W:(i+1)*c.W])
			}
			// The transpose of padding-then-correlating: a full convolution of y
			// (zero outside) onto the padded grid, then folded back.
			correlateValid(buf, ph, pw, yz, zw, flipped, c.K)
			c.fold(x[n*hw:(n+1)*hw], buf)
		}
	})
	return nil
}

// AdjointKernel computes the adjoint of Apply in the kernel:
// g[u,v] = Σ_{n,i,j} y[n,i,j] · x̄[n, i+u−K/2, j+v−K/2]. g is overwritten.
// The sums are accumulated in float64 (DotT per row, then over rows and
// images, in image order) and rounded to F once.
func (c ConvT[F]) AdjointKernel(g, x, y []F) error {
	kk := c.K * c.K
	partial := make([]float64, c.N*kk)
	if err := c.AdjointKernelImages(partial, g, x, y); err != nil {
		return err
	}
	acc := make([]float64, kk)
	for n := 0; n < c.N; n++ {
		for i, v := range partial[n*kk : (n+1)*kk] {
			acc[i] += v
		}
	}
	for i, v := range acc {
		g[i] = F(v)
	}
	return nil
}

// AdjointKernelImages writes each image's part of AdjointKernel, in
// float64, into partial (N·K² values: image n's K×K kernel gradient at
// n·K²), so that a caller can add the images' parts in image order to a
// running sum that other batches continue. g only has its length checked.
func (c ConvT[F]) AdjointKernelImages(partial []float64, g, x, y []F) error {
	if err := c.check(len(x), len(g), len(y)); err != nil {
		return err
	}
	p := c.K / 2
	pw, ph := c.W+2*p, c.H+2*p
	hw := c.H * c.W
	kk := c.K * c.K
	if len(partial) != c.N*kk {
		return fmt.Errorf("kernels: conv adjoint: %d partial sums, want %d", len(partial), c.N*kk)
	}
	ParallelFor(c.N, func(lo, hi int) {
		buf := make([]F, pw*ph)
		for n := lo; n < hi; n++ {
			c.pad(buf, x[n*hw:(n+1)*hw])
			yn := y[n*hw : (n+1)*hw]
			gn := partial[n*kk : (n+1)*kk]
			for u := 0; u < c.K; u++ {
				for v := 0; v < c.K; v++ {
					var s float64
					for i := 0; i < c.H; i++ {
						s += DotT(yn[i*c.W:(i+1)*c.W], buf[(i+u)*pw+v:(i+u)*pw+v+c.W])
					}
					gn[u*c.K+v] = s
				}
			}
		}
	})
	return nil
}

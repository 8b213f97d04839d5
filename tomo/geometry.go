package tomo

import (
	"fmt"
	"math"
)

// Limits on geometry sizes, to keep every buffer length far from int overflow.
const (
	MaxN      = 1 << 14
	MaxAngles = 1 << 16
	MaxDet    = 1 << 16
)

// Geometry describes a 2-D parallel-beam acquisition: an N×N image, Angles
// angles evenly spaced over [0, π) and Det detector bins of width 1 centred on
// the origin. See the package documentation for the coordinate conventions.
type Geometry struct {
	N, Angles, Det int
}

// DefaultDet returns ⌈n√2⌉, the number of unit bins that covers the image
// diagonal (363 for n = 256, 57 for n = 40).
func DefaultDet(n int) int {
	return int(math.Ceil(float64(n) * math.Sqrt2))
}

// NewGeometry returns a validated geometry. A det ≤ 0 selects DefaultDet(n).
func NewGeometry(n, angles, det int) (Geometry, error) {
	if det <= 0 {
		det = DefaultDet(n)
	}
	g := Geometry{N: n, Angles: angles, Det: det}
	if err := g.Validate(); err != nil {
		return Geometry{}, fmt.Errorf("tomo: new geometry: %w", err)
	}
	return g, nil
}

// Validate reports whether all sizes are in range.
func (g Geometry) Validate() error {
	if g.N < 1 || g.N > MaxN {
		return fmt.Errorf("image size N = %d: must be in [1, %d]", g.N, MaxN)
	}
	if g.Angles < 1 || g.Angles > MaxAngles {
		return fmt.Errorf("angle count %d: must be in [1, %d]", g.Angles, MaxAngles)
	}
	if g.Det < 1 || g.Det > MaxDet {
		return fmt.Errorf("detector count %d: must be in [1, %d] (or ≤ 0 in NewGeometry for the default)", g.Det, MaxDet)
	}
	return nil
}

// ImageLen returns N·N, the length of one image.
func (g Geometry) ImageLen() int { return g.N * g.N }

// SinoLen returns Angles·Det, the length of one sinogram.
func (g Geometry) SinoLen() int { return g.Angles * g.Det }

// Angle returns θ_a = a·π/Angles.
func (g Geometry) Angle(a int) float64 { return float64(a) * math.Pi / float64(g.Angles) }

// BinCentre returns s_k = k + 1/2 − Det/2, the signed offset of bin k's centre
// from the rotation axis.
func (g Geometry) BinCentre(k int) float64 { return float64(k) + 0.5 - 0.5*float64(g.Det) }

// PixelCentre returns the (x, y) coordinates of the centre of pixel (i, j).
func (g Geometry) PixelCentre(i, j int) (x, y float64) {
	h := 0.5 * float64(g.N-1)
	return float64(j) - h, h - float64(i)
}

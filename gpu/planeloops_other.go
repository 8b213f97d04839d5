//go:build !amd64 || purego

package gpu

// planeVec is false: this build has no assembly, and the plane loops are
// the scalar ones.
const planeVec = false

func planeSum32([]float32) float64                { panic("gpu: planeSum32 without assembly") }
func planeDot32(_, _ []float32) float64           { panic("gpu: planeDot32 without assembly") }
func planeSumDot32(_, _ []float32) (_, _ float64) { panic("gpu: planeSumDot32 without assembly") }
func shiftSquares32(_, _ []float32, _ float32) float64 {
	panic("gpu: shiftSquares32 without assembly")
}
func affine32(_, _ []float32, _, _ float32)        { panic("gpu: affine32 without assembly") }
func combine32(_, _, _ []float32, _, _, _ float32) { panic("gpu: combine32 without assembly") }
func leaky32(_, _, _ []float32, _ float32)         { panic("gpu: leaky32 without assembly") }

//go:build !amd64 || purego

package banert

// Without the vector kernels the layer kernels' Go loops do every value.

func planeSums4(*[4]float64, []float64, int, *[2][4]float64, bool) int                  { return 0 }
func normLayerRow([]float64, []float64, *[8][4]float64) int                             { return 0 }
func normLayerGradSums4(*[4][4]float64, []float64, []float64, int, *[16][4]float64) int { return 0 }
func normLayerGrad4(*[4]float64, []float64, []float64, []float64, int, *[31][4]float64) int {
	return 0
}

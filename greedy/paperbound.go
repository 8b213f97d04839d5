package greedy

import (
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/models"
)

// paperCurvature returns (1/N) Σk ‖Bk‖² for the maps Bk: θ ↦ P_θ vk of the
// parametrization p and the N images in v ([N,H,W]), the data part of the
// paper's step bound L_g = λ + (1/N) Σk Lk‖Bk‖² (NAG with StepPaper). The
// norms are the paper's closed forms: ‖vk‖ for PS and PF, ‖vk‖∞ for PP,
// max|DFT vk| for PC; other parametrizations get ‖Bk‖² by power iteration on
// each function alone.
func paperCurvature(p models.Parametrization, v []float64, n, h, w int) (float64, error) {
	hw := h * w
	if len(v) != n*hw {
		return 0, fmt.Errorf("paper step bound: %d values for %d images of %d×%d", len(v), n, h, w)
	}
	var sum float64
	for k := 0; k < n; k++ {
		vk := v[k*hw : (k+1)*hw]
		var nrm2 float64
		switch p.(type) {
		case models.Scalar, models.Full, *models.Full:
			for _, x := range vk {
				nrm2 += x * x
			}
		case models.Pointwise, *models.Pointwise:
			var m float64
			for _, x := range vk {
				m = math.Max(m, math.Abs(x))
			}
			nrm2 = m * m
		case *models.FullConv:
			m, err := models.OpNorm(p, vk, h, w) // max|DFT vk|: the circular convolution θ ↦ θ ⊛ vk
			if err != nil {
				return 0, err
			}
			nrm2 = m * m
		default:
			c, err := blockCurvature(p, vk, 1, h, w)
			if err != nil {
				return 0, fmt.Errorf("paper step bound for %s: %w", p.Name(), err)
			}
			nrm2 = c
		}
		sum += nrm2
	}
	return sum / float64(n), nil
}

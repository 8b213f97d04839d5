package greedy

import (
	"testing"
)

func TestTrainIsBetterThanGradientDescentEveryStep(t *testing.T) {
	o := deblurSet(t, 6, 24, 1)
	for _, name := range []string{"m-ps", "m-pc", "pp"} {
		res, err := Train(o, Config{Method: method(t, name), MaxSteps: 8})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		prevF, _ := o.Mean(o.X0)
		for _, s := range res.Steps {
			if s.BGDMargin < 0 || s.Loss > s.RefLoss {
				t.Errorf("%s step %d: loss %g worse than gradient descent %g", name, s.T, s.Loss, s.RefLoss)
			}
			if s.MeanF > prevF*(1+1e-12) {
				t.Errorf("%s step %d: mean objective rose from %g to %g", name, s.T, prevF, s.MeanF)
			}
			prevF = s.MeanF
			t.Logf("%s t=%d F=%.6g margin=%.3g max‖∇f‖=%.3g evals=%d %.3fs", name, s.T, s.MeanF, s.BGDMargin, s.MaxGradNorm, s.Evaluations, s.Seconds)
		}
	}
}

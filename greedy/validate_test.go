package greedy

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/learned"
)

func validationConfig(t *testing.T, scales []float64, steps int) Config {
	return Config{
		Method: Method{Param: method(t, "m-pc"), Lambda: Schedule{Values: []float64{1e-2}, Relative: true}, Mu: Schedule{Values: []float64{1e-2}, Relative: true}},
		Solver: Solver{Inner: LBFGS{MaxEvaluations: 40}, WeightScales: scales},
		Stop:   Stop{MaxSteps: steps},
		Store:  Store{KeepParams: true},
	}
}

// TestValidationChoosesTheBestScale solves a step for three penalty scales
// and checks that training keeps the one whose step gives the lowest
// validation objective, by solving each scale alone.
func TestValidationChoosesTheBestScale(t *testing.T) {
	o := deblurSet(t, 4, 16, 1)
	v := deblurSet(t, 3, 16, 2)
	scales := []float64{100, 1, 0.01}
	cfg := validationConfig(t, scales, 1)
	cfg.Problem.Validation = v
	res, err := Train(o, cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := res.Steps[0]
	best, bestScale := math.Inf(1), 0.0
	for _, sc := range scales {
		one := validationConfig(t, []float64{sc}, 1)
		one.Problem.Validation = v
		r, err := Train(o, one)
		if err != nil {
			t.Fatal(err)
		}
		s := r.Steps[0]
		t.Logf("scale %g: validation f %.10g, training loss %.10g", sc, s.ValF, s.Loss)
		if s.ValF < best {
			best, bestScale = s.ValF, sc
		}
	}
	if got.WeightScale != bestScale || math.Abs(got.ValF-best) > 1e-12*math.Abs(best) {
		t.Errorf("kept scale %g with validation f %.12g, want scale %g with %.12g", got.WeightScale, got.ValF, bestScale, best)
	}
	if len(res.Manifest.WeightScales) != 3 || res.Manifest.NVal != 3 {
		t.Errorf("manifest records scales %v and %d validation functions", res.Manifest.WeightScales, res.Manifest.NVal)
	}
}

// TestValidationFollowsAlgorithm2 checks that the recorded validation
// objective after step t is what the learned optimizer (Algorithm 2) reaches
// on the validation functions after t+1 iterations.
func TestValidationFollowsAlgorithm2(t *testing.T) {
	o := deblurSet(t, 4, 16, 3)
	v := deblurSet(t, 3, 16, 4)
	cfg := validationConfig(t, []float64{10, 1, 0.1}, 4)
	cfg.Problem.Validation = v
	res, err := Train(o, cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := learned.New("greedy", cfg.Method.Param, o.H, o.W, res.Theta, res.Phi)
	if err != nil {
		t.Fatal(err)
	}
	it, err := l.Start(v)
	if err != nil {
		t.Fatal(err)
	}
	var _ baselines.Iterator = it
	for _, s := range res.Steps {
		if err := it.Next(); err != nil {
			t.Fatal(err)
		}
		mf, err := v.Mean(it.X())
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(mf-s.ValF) / mf; !(d <= 1e-10) {
			t.Errorf("step %d (scale %g): validation f %.12g during training, %.12g under Algorithm 2", s.T, s.WeightScale, s.ValF, mf)
		}
	}
}

// TestValidationResumes interrupts a run with validation after two steps
// and checks that resuming it gives the uninterrupted run's steps.
func TestValidationResumes(t *testing.T) {
	o := deblurSet(t, 3, 16, 5)
	v := deblurSet(t, 2, 16, 6)
	full := validationConfig(t, []float64{1, 0.1}, 4)
	full.Problem.Validation = v
	want, err := Train(o, full)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	part := validationConfig(t, []float64{1, 0.1}, 2)
	part.Problem.Validation, part.Store.Dir = v, dir
	if _, err := Train(o, part); err != nil {
		t.Fatal(err)
	}
	part.Stop.MaxSteps, part.Store.Resume = 4, true
	got, err := Train(o, part)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range want.Steps {
		g := got.Steps[i]
		if g.ValF != s.ValF || g.WeightScale != s.WeightScale || g.MeanF != s.MeanF {
			t.Errorf("step %d: resumed (val f %.15g, scale %g, f %.15g), uninterrupted (%.15g, %g, %.15g)", i, g.ValF, g.WeightScale, g.MeanF, s.ValF, s.WeightScale, s.MeanF)
		}
	}
	other := part
	other.Solver.WeightScales = []float64{1}
	if _, err := Train(o, other); err == nil {
		t.Error("resuming with other weight scales was accepted")
	}
	noVal := validationConfig(t, []float64{1, 0.1}, 2)
	if _, err := Train(o, noVal); err == nil {
		t.Error("several weight scales without validation functions were accepted")
	}
}

// TestValidationLookaheadRepeatsTheStep checks that with a lookahead of K a
// step is scored by the validation objective after K applications of it,
// which is what Algorithm 2 does when the step is the last one trained.
func TestValidationLookaheadRepeatsTheStep(t *testing.T) {
	o := deblurSet(t, 4, 16, 7)
	v := deblurSet(t, 3, 16, 8)
	const k = 4
	cfg := validationConfig(t, []float64{10, 1, 0.01}, 2)
	cfg.Problem.Validation, cfg.Solver.ValLookahead = v, k
	res, err := Train(o, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Manifest.ValLookahead != k {
		t.Errorf("manifest records lookahead %d, want %d", res.Manifest.ValLookahead, k)
	}
	for step := range res.Steps {
		l, err := learned.New("greedy", cfg.Method.Param, o.H, o.W, res.Theta[:step+1], res.Phi[:step+1])
		if err != nil {
			t.Fatal(err)
		}
		it, err := l.Start(v)
		if err != nil {
			t.Fatal(err)
		}
		var f []float64
		for i := 0; i < step+k; i++ {
			if err := it.Next(); err != nil {
				t.Fatal(err)
			}
			mf, err := v.Mean(it.X())
			if err != nil {
				t.Fatal(err)
			}
			f = append(f, mf)
		}
		s := res.Steps[step]
		if d := math.Abs(s.ValF-f[step]) / f[step]; !(d <= 1e-10) {
			t.Errorf("step %d: validation f %.12g, Algorithm 2 after %d iterations %.12g", step, s.ValF, step+1, f[step])
		}
		last := f[step+k-1]
		if d := math.Abs(s.ValScore-last) / last; !(d <= 1e-10) {
			t.Errorf("step %d: score %.12g, Algorithm 2 with the step repeated %d times %.12g", step, s.ValScore, k, last)
		}
	}
	cfg.Solver.ValLookahead = -1
	if _, err := Train(o, cfg); err == nil {
		t.Error("a negative lookahead was accepted")
	}
}

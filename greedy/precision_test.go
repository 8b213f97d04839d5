package greedy

import (
	"math"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/internal/testsupport"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// TestTrainFloat32 trains M-PC for a few steps in float32 and in float64 on
// the same functions: the mean objective after every step agrees to 1e-4 and
// the parameters to 2e-2 (relative; the inexact inner solves amplify the
// rounding differences in θ, measured 0.7–1.1e-3, φ 4–6e-3), its iterates
// are float32 values, its
// manifest records the precision, and resuming it in float64 is refused.
func TestTrainFloat32(t *testing.T) {
	o := deblurSet(t, 3, 16, 4)
	cfg := func(dir string, prec steploss.Precision) Config {
		return Config{
			Problem: Problem{Name: "deblur"},
			Method:  Method{Param: method(t, "m-pc"), Lambda: Constant(1e-3), Mu: Constant(1e-3)},
			Target:  execution.CPU(prec),
			Solver:  Solver{Inner: LBFGS{MaxEvaluations: 60}},
			Stop:    Stop{MaxSteps: 4},
			Store:   Store{Dir: dir, KeepParams: true},
		}
	}
	d32, d64 := t.TempDir(), t.TempDir()
	r32, err := Train(o, cfg(d32, steploss.Float32))
	if err != nil {
		t.Fatal(err)
	}
	r64, err := Train(o, cfg(d64, steploss.Float64))
	if err != nil {
		t.Fatal(err)
	}
	if len(r32.Steps) != len(r64.Steps) || len(r32.Steps) == 0 {
		t.Fatalf("float32 run took %d steps, float64 %d", len(r32.Steps), len(r64.Steps))
	}
	for step := range r64.Steps {
		dt, dp := testsupport.NormDiff(r32.Theta[step], r64.Theta[step]), testsupport.NormDiff(r32.Phi[step], r64.Phi[step])
		t.Logf("step %d: θ differs by %.2g, φ by %.2g (relative); mean f %.9g vs %.9g", step, dt, dp, r32.Steps[step].MeanF, r64.Steps[step].MeanF)
		if dt > 2e-2 || (step > 0 && dp > 2e-2) {
			t.Errorf("step %d: float32 parameters differ from float64 by %.2g (θ), %.2g (φ)", step, dt, dp)
		}
		if d := math.Abs(r32.Steps[step].MeanF/r64.Steps[step].MeanF - 1); d > 1e-4 {
			t.Errorf("step %d: mean objective after the step differs by %.2g relative", step, d)
		}
	}
	for i, v := range r32.X {
		if float64(float32(v)) != v {
			t.Fatalf("float32 iterate [%d] = %v is not a float32 value", i, v)
		}
	}
	m, err := checkpoint.ReadManifest(d32)
	if err != nil {
		t.Fatal(err)
	}
	if m.Precision != steploss.Float32 {
		t.Errorf("manifest precision %q", m.Precision)
	}
	if m64, _ := checkpoint.ReadManifest(d64); m64.Precision != "" {
		t.Errorf("float64 manifest records precision %q, want none", m64.Precision)
	}
	again := cfg(d32, steploss.Float64)
	again.Store.Resume, again.Stop.MaxSteps = true, 6
	if _, err := Train(o, again); err == nil || !strings.Contains(err.Error(), "precision") {
		t.Errorf("resuming a float32 checkpoint in float64: %v, want a refusal naming the precision", err)
	}
}

// TestFloat32ResumeIsBitwise trains M-PC in float32 for 2 steps, resumes the
// checkpoint to 4, and compares every step's parameters with an uninterrupted
// 4-step run: bitwise equal (the iterates are float32 values, stored exactly).
func TestFloat32ResumeIsBitwise(t *testing.T) {
	o := deblurSet(t, 3, 16, 6)
	cfg := func(dir string, steps int, resume bool) Config {
		return Config{
			Problem: Problem{Name: "deblur"},
			Method:  Method{Param: method(t, "m-pc"), Lambda: Constant(0), Mu: Constant(0)},
			Target:  execution.CPU(steploss.Float32),
			Solver:  Solver{Inner: NAG{Iters: 15}},
			Stop:    Stop{MaxSteps: steps},
			Store:   Store{Dir: dir, Resume: resume},
		}
	}
	a, b := t.TempDir(), t.TempDir()
	if _, err := Train(o, cfg(a, 2, false)); err != nil {
		t.Fatal(err)
	}
	if _, err := Train(o, cfg(a, 4, true)); err != nil {
		t.Fatal(err)
	}
	if _, err := Train(o, cfg(b, 4, false)); err != nil {
		t.Fatal(err)
	}
	if m, err := checkpoint.ReadManifest(a); err != nil || len(m.Steps) != 4 {
		t.Fatalf("resumed checkpoint: %v", err)
	}
	sameCheckpointParams(t, a, b)
}

package greedy

import (
	"io"
	"testing"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/internal/testsupport"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/ondevice"
	"github.com/greedyl2o/greedyl2o/problem"
)

// TestDeviceStepTrains runs greedy training with the device step loss on
// the CPU device and compares the learned parameters with the default run.
func TestDeviceStepTrains(t *testing.T) {
	o := deblurSet(t, 3, 16, 3)
	base := Config{Method: Method{Param: method(t, "m-pc")}, Solver: Solver{Inner: LBFGS{MaxEvaluations: 30}}, Stop: Stop{MaxSteps: 4}, Store: Store{KeepParams: true}}
	ref, err := Train(o, base)
	if err != nil {
		t.Fatal(err)
	}
	cfg := base
	cfg.Target = execution.OnDevice(gpu.CPU())
	got, err := Train(o, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Steps) != len(ref.Steps) {
		t.Fatalf("%d steps on the device, %d on the default path", len(got.Steps), len(ref.Steps))
	}
	for i := range ref.Steps {
		if d := testsupport.NormDiff(append(got.Theta[i], got.Phi[i]...), append(ref.Theta[i], ref.Phi[i]...)); d > 1e-6 {
			t.Errorf("step %d: parameters differ by %.2g relative", i, d)
		}
	}
	if got.Manifest.Device != "host" {
		t.Errorf("manifest device %q, want host", got.Manifest.Device)
	}
}

// TestLearnedOnDevice runs Algorithm 2 with the iterations on a device
// (learned.Optimizer.Target; m-pf: its products by its graph on the host)
// against the CPU iterator: 12 iterations beyond the 3 trained steps, the
// iterates equal to 1e-10 on the host device and to 1e-3 on the float32
// host device; safeguarded, the device's f and ∇f give the CPU's iterates.
func TestLearnedOnDevice(t *testing.T) {
	o := deblurSet(t, 3, 16, 2)
	for _, name := range []string{"m-ps", "m-pc", "pp", "m-pc3-reflect", "m-pf"} {
		res, err := Train(o, Config{Method: Method{Param: method(t, name)}, Solver: Solver{Inner: LBFGS{MaxEvaluations: 15}}, Stop: Stop{MaxSteps: 3}, Store: Store{KeepParams: true}})
		if err != nil {
			t.Fatal(err)
		}
		l, err := learned.New(name, method(t, name), o.H, o.W, res.Theta, res.Phi)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := l.Start(o)
		if err != nil {
			t.Fatal(err)
		}
		var its []baselines.Iterator
		for _, d := range []execution.Target{execution.OnDevice(gpu.CPU()), execution.OnDevice(gpu.Host32())} {
			c := *l
			c.Target = d
			it, err := c.Start(o)
			if err != nil {
				t.Fatal(err)
			}
			its = append(its, it)
		}
		for k := 0; k < 15; k++ {
			if err := ref.Next(); err != nil {
				t.Fatal(err)
			}
			for _, it := range its {
				if err := it.Next(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if d := testsupport.NormDiff(its[0].X(), ref.X()); d > 1e-10 { // pp amplifies rounding ≈ 5e3× in 15 iterations
			t.Errorf("%s: host device iterates differ by %.2g", name, d)
		}
		t.Logf("%s: float32 device iterates after 15 iterations: %.2g relative", name, testsupport.NormDiff(its[1].X(), ref.X()))
		// Float32 rounding (1e-7 a step) grows along the learned steps'
		// expanding directions: measured 1.7e-7 (m-ps) to 4.6e-4 (pp,
		// learned from 3 short steps) after 15 iterations.
		if d := testsupport.NormDiff(its[1].X(), ref.X()); d > 1e-3 {
			t.Errorf("%s: float32 device iterates differ by %.2g", name, d)
		}
		// Safeguarded on a device: the same iterates as safeguarded on the
		// CPU (f and ∇f from the device's evaluator), to 1e-10.
		for _, rule := range []string{learned.SafeguardDecrease, learned.SafeguardBGD} {
			c, h := *l, *l
			c.Target, c.Safeguard, c.SafeguardRule = execution.OnDevice(gpu.CPU()), 1/o.L, rule
			h.Safeguard, h.SafeguardRule = 1/o.L, rule
			itd, err := c.Start(o)
			if err != nil {
				t.Fatal(err)
			}
			ith, err := h.Start(o)
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k < 10; k++ {
				if err := itd.Next(); err != nil {
					t.Fatal(err)
				}
				if err := ith.Next(); err != nil {
					t.Fatal(err)
				}
			}
			if d := testsupport.NormDiff(itd.X(), ith.X()); d > 1e-10 {
				t.Errorf("%s, safeguard %s: device iterates differ from the CPU's by %.2g", name, rule, d)
			}
			itd.(io.Closer).Close()
		}
	}
}

// TestDeviceResumeIsBitwise: a greedy run on the float32 host device stopped
// after 2 steps and resumed to 4 has the parameters of an uninterrupted
// 4-step run, bit for bit; resuming it on the CPU (a lost GPU) trains on
// and records the CPU on the steps it trained.
func TestDeviceResumeIsBitwise(t *testing.T) {
	o := deblurSet(t, 3, 16, 6)
	cfg := func(dir string, steps int, resume bool, dev execution.Target) Config {
		return Config{
			Problem: Problem{Name: "deblur"},
			Method:  Method{Param: method(t, "m-pc"), Lambda: Constant(0), Mu: Constant(0)},
			Target:  dev,
			Solver:  Solver{Inner: NAG{Iters: 15}},
			Stop:    Stop{MaxSteps: steps},
			Store:   Store{Dir: dir, Resume: resume},
		}
	}
	a, b := t.TempDir(), t.TempDir()
	if _, err := Train(o, cfg(a, 2, false, execution.OnDevice(gpu.Host32()))); err != nil {
		t.Fatal(err)
	}
	c := t.TempDir()
	if _, err := Train(o, cfg(c, 2, false, execution.OnDevice(gpu.Host32()))); err != nil {
		t.Fatal(err)
	}
	if _, err := Train(o, cfg(c, 4, true, execution.Target{})); err != nil {
		t.Fatalf("resuming a host32 run on the CPU: %v", err)
	}
	m, err := checkpoint.ReadManifest(c)
	if err != nil || len(m.Steps) != 4 || m.Device != "host32" {
		t.Fatalf("resumed on the CPU: %v, %d steps, device %q; want 4 steps, the run's device host32", err, len(m.Steps), m.Device)
	}
	for i, s := range m.Steps {
		if want := map[bool]string{false: "", true: "cpu"}[i >= 2]; s.Device != want {
			t.Errorf("step %d records device %q, want %q", i, s.Device, want)
		}
	}
	if _, err := Train(o, cfg(a, 4, true, execution.OnDevice(gpu.Host32()))); err != nil {
		t.Fatal(err)
	}
	if _, err := Train(o, cfg(b, 4, false, execution.OnDevice(gpu.Host32()))); err != nil {
		t.Fatal(err)
	}
	if m, err := checkpoint.ReadManifest(a); err != nil || len(m.Steps) != 4 || m.Device != "host32" {
		t.Fatalf("resumed checkpoint: %v", err)
	}
	sameCheckpointParams(t, a, b)
}

// TestDeviceGraphTrains checks that greedy training of a user
// parametrization known only by its forward expression (its graph on the
// host, the objective on the device: steploss's device-graph path) with
// a device (Config.Target) follows the CPU's to 1e-8.
func TestDeviceGraphTrains(t *testing.T) {
	o := testproblems.Deblur(t, 3, 12, "zero", -1, 4)
	m := models.Method{G: testproblems.OuterWeights{}, H: models.Scalar{}}
	run := func(dev execution.Target) []float64 {
		res, err := Train(o, Config{Method: Method{Param: m}, Target: dev, Solver: Solver{Inner: LBFGS{MaxEvaluations: 20}}, Stop: Stop{MaxSteps: 3}, Store: Store{KeepParams: true}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Theta[2]
	}
	// f and ∇f at the iterates come from the device's evaluator, whose
	// rounding differs from the CPU's fused one; three steps of L-BFGS
	// amplify it to about 1e-9.
	if e := maxRelDiff(run(execution.OnDevice(gpu.CPU())), run(execution.Target{})); e > 1e-8 {
		t.Errorf("greedy training of a user parametrization on the device differs from the CPU's by %.2g after 3 steps", e)
	}
}

// TestDeviceEvaluatesTheIterates: with a device, the mean objective each
// step records is the device's at the step's iterates (the float32 host
// device's, bit for bit), not the CPU's float64 one, which differs in
// float32 rounding: f and ∇f at the training iterates are computed where
// the step loss runs.
func TestDeviceEvaluatesTheIterates(t *testing.T) {
	o := deblurSet(t, 3, 16, 6)
	dir := t.TempDir()
	cfg := Config{
		Problem: Problem{Name: "deblur"},
		Method:  Method{Param: method(t, "m-pc"), Lambda: Constant(0), Mu: Constant(0)},
		Target:  execution.OnDevice(gpu.Host32()),
		Solver:  Solver{Inner: NAG{Iters: 15}},
		Stop:    Stop{MaxSteps: 2},
		Store:   Store{Dir: dir},
	}
	if _, err := Train(o, cfg); err != nil {
		t.Fatal(err)
	}
	m, err := checkpoint.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	x, err := checkpoint.ReadNPYVerified(dir, checkpoint.StateFile("x", 2), o.N*o.ImageLen(), m.Checksums)
	if err != nil {
		t.Fatal(err)
	}
	be, err := ondevice.NewBatchEvaluator(gpu.Host32(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	mean := func(ob *problem.Objective) float64 {
		vals := make([]float64, o.N)
		if err := ob.Eval(vals, nil, x, nil); err != nil {
			t.Fatal(err)
		}
		var s float64
		for _, v := range vals {
			s += v
		}
		return s / float64(o.N)
	}
	got, dev, cpu := m.Steps[1].MeanF, mean(o.OnEvaluator(be)), mean(o)
	if got != dev {
		t.Errorf("step 1 records mean f %v, the device's at its iterates is %v (the CPU's %v)", got, dev, cpu)
	}
	if dev == cpu {
		t.Fatalf("the float32 device's mean f equals the CPU's float64 one (%v): the test cannot tell them apart", cpu)
	}
}

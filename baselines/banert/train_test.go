package banert

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/problem"
)

// TestTrainLowersLoss makes 300 Adam steps (3 inputs; 100 with 4 inputs, to
// keep the test fast) on a tiny problem (8×8, T = 3) and checks that the
// objective at the final iterate goes down.
func TestTrainLowersLoss(t *testing.T) {
	o := tinyObjective(t, 2, 8, false)
	for inputs, epochs := range map[int]int{3: 150, 4: 50} {
		net, _ := NewNetwork(inputs, 21)
		before := runDirect(t, net, o, 3)
		res, err := Train(o, Config{Problem: Problem{Seed: 21}, Method: MethodConfig{Inputs: inputs, T: 3}, Solver: Solver{Epochs: epochs}})
		if err != nil {
			t.Fatal(err)
		}
		after := runDirect(t, res.Method.Net, o, 3)
		first, last := res.History[0].MeanLoss, res.History[len(res.History)-1].MeanLoss
		t.Logf("%d inputs: Σ f(x^3) %g → %g; epoch mean loss %g → %g", inputs, before, after, first, last)
		if !(after < 0.9*before) || !(last < first) {
			t.Errorf("%d inputs: %d Adam steps did not lower the loss: Σ f(x^3) %g → %g, epoch mean %g → %g", inputs, 2*epochs, before, after, first, last)
		}
		// Run far beyond T: finite, and the objective keeps going down overall.
		it, err := res.Method.Start(o)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 200; i++ {
			if err := it.Next(); err != nil {
				t.Fatalf("%d inputs, iteration %d: %v", inputs, i+1, err)
			}
		}
		vals := make([]float64, o.N)
		if err := o.Eval(vals, nil, it.X(), nil); err != nil {
			t.Fatalf("%d inputs: evaluating after 200 iterations: %v", inputs, err)
		}
		for k, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%d inputs: f_%d after 200 iterations is %g", inputs, k, v)
			}
		}
		if s := vals[0] + vals[1]; !(s < after) {
			t.Errorf("%d inputs: Σ f after 200 iterations %g, not below Σ f(x^3) = %g", inputs, s, after)
		}
	}
}

// TestResumeRefusesOtherFunctions: other data y (noise, blur) or another α
// with the same images do not resume a run; the same functions do.
func TestResumeRefusesOtherFunctions(t *testing.T) {
	o := tinyObjective(t, 2, 8, false)
	cfg := Config{Problem: Problem{Name: "deblur", DataHash: "h", Seed: 5}, Method: MethodConfig{T: 2},
		Solver: Solver{Epochs: 1}, Run: Run{Dir: t.TempDir()}}
	if _, err := Train(o, cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Solver.Epochs, cfg.Run.Resume = 2, true
	noisier, err := o.Subset([]int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	noisier.Y[3] += 1e-3
	heavier, err := o.Subset([]int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	heavier.Alpha *= 2
	for _, c := range []struct {
		o    *problem.Objective
		want string
	}{{noisier, "observations"}, {heavier, "alpha"}} {
		if _, err := Train(c.o, cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("resume with other %s: %v", c.want, err)
		}
	}
	if _, err := Train(o, cfg); err != nil {
		t.Errorf("resume on the same functions: %v", err)
	}
}

// TestCheckpointResume checks that 2 epochs then a resumed third give the
// same parameters as 3 epochs in one go, and that Load returns them.
func TestCheckpointResume(t *testing.T) {
	o := tinyObjective(t, 2, 8, false)
	dir := t.TempDir()
	cfg := Config{Problem: Problem{Name: "deblur", DataHash: "h", Seed: 5}, Method: MethodConfig{T: 2, RandomLength: true},
		Solver: Solver{Epochs: 2}, Run: Run{Dir: filepath.Join(dir, "a")}}
	if _, err := Train(o, cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := Train(o, cfg); err == nil {
		t.Error("training into an existing checkpoint without resume did not fail")
	}
	cfg.Solver.Epochs, cfg.Run.Resume = 3, true
	resumed, err := Train(o, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg2 := cfg
	cfg2.Run.Dir, cfg2.Run.Resume = filepath.Join(dir, "b"), false
	straight, err := Train(o, cfg2)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range straight.Method.Net.Theta {
		if resumed.Method.Net.Theta[i] != v {
			t.Fatalf("parameter %d: resumed %g, uninterrupted %g", i, resumed.Method.Net.Theta[i], v)
		}
	}
	m, man, err := Load(cfg.Run.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(man.History) != 3 || man.Format != FormatVersion || m.Name() != "banert-T2" {
		t.Errorf("manifest: %d epochs, format %q, name %q", len(man.History), man.Format, m.Name())
	}
	for i, v := range straight.Method.Net.Theta {
		if m.Net.Theta[i] != v {
			t.Fatalf("loaded parameter %d: %g, want %g", i, m.Net.Theta[i], v)
		}
	}
	entries, _ := os.ReadDir(cfg.Run.Dir)
	if len(entries) != 4 {
		t.Errorf("checkpoint holds %d files, want manifest + 3 .npy (old epochs removed)", len(entries))
	}
	bad := cfg
	bad.Method.T, bad.Solver.Epochs = 4, 4
	if _, err := Train(o, bad); err == nil {
		t.Error("resuming with another T did not fail")
	}
	if _, _, err := Load(dir); err == nil {
		t.Error("Load of a directory without manifest did not fail")
	}
}

func TestBadInput(t *testing.T) {
	o := tinyObjective(t, 1, 8, false)
	if _, err := BuildTrainingGraph(o, 0, 3); err == nil {
		t.Error("T = 0 accepted")
	}
	if _, err := Train(o, Config{Method: MethodConfig{T: 2, Inputs: 2}, Solver: Solver{Epochs: 1}}); err == nil {
		t.Error("2 inputs accepted")
	}
	if _, err := (&Method{}).Start(o); err == nil {
		t.Error("method without network started")
	}
	if _, err := (&Method{Net: &Network{Inputs: 3, Theta: make([]float64, 5)}}).Start(o); err == nil {
		t.Error("network with 5 parameters started")
	}
}

// A wall-clock budget ends training after the epoch that reaches it.
func TestMaxSecondsStopsAfterAnEpoch(t *testing.T) {
	o := tinyObjective(t, 2, 8, false)
	cfg := Config{Problem: Problem{Seed: 5}, Method: MethodConfig{T: 2}, Solver: Solver{Epochs: 4},
		Run: Run{Dir: filepath.Join(t.TempDir(), "b"), MaxSeconds: 1e-9}}
	res, err := Train(o, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.History) != 1 {
		t.Fatalf("budget of 1 ns: %d epochs, want 1", len(res.History))
	}
	cfg.Run.Resume, cfg.Run.MaxSeconds = true, 0
	if res, err = Train(o, cfg); err != nil {
		t.Fatal(err)
	}
	if len(res.History) != 4 {
		t.Errorf("resumed without budget: %d epochs, want 4", len(res.History))
	}
}

// TestConfigErrorsNameTheField: Train refuses each invalid setting with a
// FieldError naming the part and field.
func TestConfigErrorsNameTheField(t *testing.T) {
	o := tinyObjective(t, 1, 8, false)
	ok := func() Config { return Config{Method: MethodConfig{T: 1}, Solver: Solver{Epochs: 1}} }
	for _, c := range []struct {
		field  string
		modify func(*Config)
	}{
		{"Method.Inputs", func(c *Config) { c.Method.Inputs = 2 }},
		{"Method.T", func(c *Config) { c.Method.T = 0 }},
		{"Solver.Epochs", func(c *Config) { c.Solver.Epochs = 0 }},
		{"Solver.LearningRate", func(c *Config) { c.Solver.LearningRate = math.Inf(1) }},
		{"Solver.LearningRate", func(c *Config) { c.Solver.LearningRate = -1 }},
		{"Run.Resume", func(c *Config) { c.Run.Resume = true }},
	} {
		cfg := ok()
		c.modify(&cfg)
		_, err := Train(o, cfg)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: got %v, want a FieldError naming it", c.field, err)
		}
	}
	if _, err := Train(o, ok()); err != nil {
		t.Fatalf("the valid configuration: %v", err)
	}
}

// TestFamilyOfOperatorsIsRefused: the network's graph holds one operator,
// so a family of operators (problem.PerFunction) is refused by name.
func TestFamilyOfOperatorsIsRefused(t *testing.T) {
	o := testproblems.BlurFamily(t, 2, 8, 1, 2, 1)
	if _, err := Train(o, Config{Method: MethodConfig{T: 2}, Solver: Solver{Epochs: 1}}); err == nil || !strings.Contains(err.Error(), "family of operators") {
		t.Errorf("Train on a family of operators: %v", err)
	}
	o = testproblems.AlphaFamily(t, 2, 8, 1e-4, 1e-3, 1)
	if _, err := Train(o, Config{Method: MethodConfig{T: 2}, Solver: Solver{Epochs: 1}}); err == nil || !strings.Contains(err.Error(), "family of regularisation weights") {
		t.Errorf("Train on a family of weights: %v", err)
	}
}

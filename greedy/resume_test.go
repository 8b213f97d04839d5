package greedy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/learned"
)

const childEnv = "GREEDY_TEST_CHILD_DIR"

func resumeConfig(t testing.TB, dir string) Config {
	return Config{
		Problem: Problem{Name: "deblur", Seed: 1},
		Method:  Method{Param: method(t, "m-pc"), Lambda: Constant(1e-4), Mu: Constant(1e-4)},
		Solver:  Solver{Inner: LBFGS{MaxEvaluations: 60}},
		Stop:    Stop{MaxSteps: 6},
		Store:   Store{Dir: dir},
	}
}

// TestHelperTrainChild is the child process of TestKilledRunResumesBitwise.
func TestHelperTrainChild(t *testing.T) {
	dir := os.Getenv(childEnv)
	if dir == "" {
		t.Skip("helper process for TestKilledRunResumesBitwise")
	}
	o := deblurSet(t, 3, 16, 4)
	cfg := resumeConfig(t, dir)
	cfg.Record.Progress = func(checkpoint.StepInfo) { time.Sleep(150 * time.Millisecond) }
	if _, err := Train(o, cfg); err != nil {
		t.Fatal(err)
	}
}

// TestKilledRunResumesBitwise kills a training process after some steps, resumes
// it and compares every step's parameters with an uninterrupted run.
func TestKilledRunResumesBitwise(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip("cannot find the test binary:", err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(exe, "-test.run=^TestHelperTrainChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	killedAt := -1
	for time.Now().Before(deadline) {
		if m, err := checkpoint.ReadManifest(dir); err == nil && len(m.Steps) >= 2 {
			killedAt = len(m.Steps)
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if killedAt < 0 {
		t.Fatal("the child never completed two steps")
	}
	m, err := checkpoint.ReadManifest(dir)
	if err != nil {
		t.Fatalf("checkpoint unreadable after the kill: %v", err)
	}
	if len(m.Steps) >= 6 {
		t.Skip("the child finished before it was killed; nothing to resume")
	}
	t.Logf("killed after %d completed steps", len(m.Steps))
	o := deblurSet(t, 3, 16, 4)
	cfg := resumeConfig(t, dir)
	cfg.Store.Resume = true
	if _, err := Train(o, cfg); err != nil {
		t.Fatalf("resume: %v", err)
	}
	ref := filepath.Join(t.TempDir(), "ref")
	if _, err := Train(o, resumeConfig(t, ref)); err != nil {
		t.Fatal(err)
	}
	sameCheckpointParams(t, dir, ref)
}

// sameCheckpointParams fails t unless the checkpoints in dirs resumed and
// ref hold the same number of steps and bitwise the same parameters at
// every step.
func sameCheckpointParams(t *testing.T, resumed, ref string) {
	t.Helper()
	mr, err := checkpoint.ReadManifest(ref)
	if err != nil {
		t.Fatal(err)
	}
	mk, err := checkpoint.ReadManifest(resumed)
	if err != nil {
		t.Fatal(err)
	}
	if len(mk.Steps) != len(mr.Steps) {
		t.Fatalf("resumed run has %d steps, uninterrupted %d", len(mk.Steps), len(mr.Steps))
	}
	for step := range mr.Steps {
		a1, b1, err := checkpoint.LoadParams(resumed, mk, step)
		if err != nil {
			t.Fatal(err)
		}
		a2, b2, err := checkpoint.LoadParams(ref, mr, step)
		if err != nil {
			t.Fatal(err)
		}
		for i := range a1 {
			if a1[i] != a2[i] {
				t.Fatalf("step %d θ[%d]: resumed %v, uninterrupted %v", step, i, a1[i], a2[i])
			}
		}
		for i := range b1 {
			if b1[i] != b2[i] {
				t.Fatalf("step %d φ[%d]: resumed %v, uninterrupted %v", step, i, b1[i], b2[i])
			}
		}
	}
}

func TestCorruptCheckpointsAreRefused(t *testing.T) {
	dir := t.TempDir()
	o := deblurSet(t, 2, 8, 1)
	cfg := Config{Problem: Problem{Name: "deblur"}, Method: Method{Param: method(t, "m-ps")}, Stop: Stop{MaxSteps: 2}, Store: Store{Dir: dir}}
	if _, err := Train(o, cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := Train(o, cfg); err == nil {
		t.Error("training into an existing checkpoint without --resume was accepted")
	}
	// mismatched configuration
	bad := cfg
	bad.Store.Resume, bad.Method.Param = true, method(t, "m-pp")
	if _, err := Train(o, bad); err == nil {
		t.Error("resuming with another method was accepted")
	}
	// truncated parameter file
	p := checkpoint.ParamPath(dir, "theta", 1)
	b, _ := os.ReadFile(p)
	_ = os.WriteFile(p, b[:len(b)-3], 0o644)
	if _, _, err := learned.Load(dir); err == nil {
		t.Error("a truncated parameter file was accepted")
	}
	// corrupt manifest
	_ = os.WriteFile(filepath.Join(dir, "manifest.json"), []byte("{\"format\": 3"), 0o644)
	if _, err := checkpoint.ReadManifest(dir); err == nil {
		t.Error("a corrupt manifest was accepted")
	}
	if _, err := checkpoint.ReadManifest(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing checkpoint was accepted")
	}
	_ = strconv.Itoa
}

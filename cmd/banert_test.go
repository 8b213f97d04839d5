package cmd

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/baselines/banert"
	"github.com/greedyl2o/greedyl2o/eval"
)

func TestTrainBanertThenApply(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "banert")
	var out, errb bytes.Buffer
	args := []string{"train", "banert", "--size", "8", "--n-train", "2", "--T", "2", "--epochs", "2", "--out", dir}
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("train banert: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "10567 parameters") {
		t.Errorf("train output does not report the parameter count:\n%s", out.String())
	}
	if code := Main(append(args, "--resume", "--epochs", "3"), &out, &errb); code != 0 {
		t.Fatalf("train banert --resume: exit %d: %s", code, errb.String())
	}
	out.Reset()
	if code := Main([]string{"apply", "--params", dir, "--n-test", "2", "--iters", "5"}, &out, &errb); code != 0 {
		t.Fatalf("apply: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "banert-T2") {
		t.Errorf("apply output does not name the method:\n%s", out.String())
	}
	if code := Main([]string{"train", "banert", "--size", "8", "--banert-inputs", "5", "--out", dir + "x"}, &out, &errb); code != 2 {
		t.Errorf("--banert-inputs 5: exit %d, want 2", code)
	}
}

// TestTrainBanertOnDevice trains through --device (the CPU device's reverse
// pass): the manifest records the device, the parameters equal the graph's
// run to 1e-9 relative, and resuming without --device is refused.
func TestTrainBanertOnDevice(t *testing.T) {
	dir := t.TempDir()
	var thetas [2][]float64
	for i, dev := range []string{"cpu", testOpsDevice} {
		out := filepath.Join(dir, dev)
		var o, errb bytes.Buffer
		args := []string{"train", "banert", "--size", "10", "--n-train", "2", "--T", "2", "--epochs", "2", "--device", dev, "--out", out}
		if code := Main(args, &o, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		m, man, err := banert.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]string{"cpu": "", testOpsDevice: "host"}[dev]; man.Device != want {
			t.Errorf("manifest device %q, want %q", man.Device, want)
		}
		thetas[i] = m.Net.Theta
	}
	var diff, scale float64
	for i, v := range thetas[0] {
		diff = math.Max(diff, math.Abs(thetas[1][i]-v))
		scale = math.Max(scale, math.Abs(v))
	}
	if diff > 1e-9*scale {
		t.Errorf("device-trained parameters differ from the graph's by %.3g (relative)", diff/scale)
	}
	var o, errb bytes.Buffer
	args := []string{"train", "banert", "--size", "10", "--n-train", "2", "--T", "2", "--epochs", "3", "--resume", "--device", "cpu", "--out", filepath.Join(dir, testOpsDevice)}
	if code := Main(args, &o, &errb); code != 2 || !strings.Contains(errb.String(), "--device") {
		t.Errorf("resume of a device run with --device cpu: exit %d, want 2 naming --device: %s", code, errb.String())
	}
}

// TestEvalBanertOnDevice evaluates a trained Banert network on the CPU's
// array operations (testOpsDevice): its curve is labelled with the device
// and equals the CPU run's.
func TestEvalBanertOnDevice(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "banert")
	var o, errb bytes.Buffer
	if code := Main([]string{"train", "banert", "--size", "10", "--n-train", "2", "--T", "2", "--epochs", "2", "--out", dir}, &o, &errb); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb.String())
	}
	curves := map[string][]*eval.Curve{}
	for _, dev := range []string{"cpu", testOpsDevice} {
		out := filepath.Join(root, "eval-"+dev)
		errb.Reset()
		if code := Main([]string{"eval", "--params", dir, "--n-test", "2", "--iters", "8", "--fstar-iters", "50", "--methods", "gd",
			"--cache", filepath.Join(root, "cache"), "--device", dev, "--out", out}, &o, &errb); code != 0 {
			t.Fatalf("eval --device %s: exit %d: %s", dev, code, errb.String())
		}
		curves[dev] = readCurvesJSON(t, out)
	}
	c, d := curves["cpu"][0], curves[testOpsDevice][0]
	if !strings.HasSuffix(d.Method, "["+testOpsDevice+"]") {
		t.Errorf("label %q: want the Banert network marked [%s]", d.Method, testOpsDevice)
	}
	for it := range c.Mean {
		if diff := math.Abs(c.Mean[it] - d.Mean[it]); diff > 1e-10*math.Abs(c.Mean[it])+1e-15 {
			t.Errorf("iteration %d: mean optimality %.15g on the device, %.15g on the CPU", it, d.Mean[it], c.Mean[it])
		}
	}
	errb.Reset()
	if code := Main([]string{"apply", "--params", dir, "--n-test", "2", "--device", testOpsDevice}, &o, &errb); code != 0 {
		t.Errorf("apply --device %s with a Banert network: exit %d: %s", testOpsDevice, code, errb.String())
	}
}

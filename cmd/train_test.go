package cmd

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/steploss"
	"github.com/greedyl2o/greedyl2o/unroll"
)

// testOpsDevice names the CPU's array operations (gpu.CPU(), whose kind
// manifests record as "host"), registered by the tests under a name of
// their own so that the CLI's device path runs without a GPU: --device
// host is the CPU's own path.
const testOpsDevice = "test-ops"

func init() {
	if err := gpu.Register(testOpsDevice, func() (gpu.Device, error) { return gpu.CPU(), nil }); err != nil {
		panic(err)
	}
}

// TestTrainGreedyOnDevice trains M-PC through --device (the CPU device's
// array operations) and checks the manifest records the device and the
// parameters agree with the default path's.
func TestTrainGreedyOnDevice(t *testing.T) {
	dir := t.TempDir()
	var ms [2]*checkpoint.Manifest
	for i, dev := range []string{"cpu", testOpsDevice} {
		out := filepath.Join(dir, dev)
		var o, errb bytes.Buffer
		args := []string{"train", "greedy", "--size", "16", "--n-train", "3", "--param", "m-pc", "--max-steps", "3", "--tol-rel", "0",
			"--inner", "lbfgs", "--device", dev, "--out", out}
		if code := Main(args, &o, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		if dev != "cpu" && !strings.Contains(o.String(), "float64 on host") {
			t.Errorf("the banner does not name the device's arithmetic: %s", o.String())
		}
		m, err := checkpoint.ReadManifest(out)
		if err != nil {
			t.Fatal(err)
		}
		ms[i] = m
	}
	if ms[0].Device != "" || ms[1].Device != "host" {
		t.Errorf("manifest devices %q and %q, want none and host", ms[0].Device, ms[1].Device)
	}
	if len(ms[0].Steps) != 3 || len(ms[1].Steps) != 3 {
		t.Fatalf("%d and %d steps, want 3", len(ms[0].Steps), len(ms[1].Steps))
	}
	for i := range ms[0].Steps {
		a, b := ms[0].Steps[i].Loss, ms[1].Steps[i].Loss
		if d := (a - b) / a; d > 1e-5 || d < -1e-5 { // the inner L-BFGS runs amplify rounding differences (1e-15 per evaluation) to about 1e-7
			t.Errorf("step %d: loss %.12g on the device, %.12g on the fast path", i, b, a)
		}
	}
}

// TestTrainGreedyWithValidation trains with validation functions and three
// penalty scales, and checks the manifest records a choice among them and
// a validation objective for every step; bad validation flags exit with 2.
func TestTrainGreedyWithValidation(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "val")
	var out, errb bytes.Buffer
	args := []string{"train", "greedy", "--param", "m-ps", "--size", "16", "--n-train", "3", "--n-val", "2",
		"--weight-scales", "10,1,0.1", "--lambda", "rel:1e-2", "--mu", "rel:1e-2", "--max-steps", "3", "--out", dir}
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("train greedy: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "val f") {
		t.Errorf("no validation column in the output:\n%s", out.String())
	}
	m, err := checkpoint.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.NVal != 2 || m.NTrain != 3 || len(m.Steps) != 3 {
		t.Fatalf("manifest: %d validation and %d training functions, %d steps", m.NVal, m.NTrain, len(m.Steps))
	}
	for _, s := range m.Steps {
		if s.WeightScale != 10 && s.WeightScale != 1 && s.WeightScale != 0.1 {
			t.Errorf("step %d kept scale %g, not a candidate", s.T, s.WeightScale)
		}
		if !(s.ValF > 0) {
			t.Errorf("step %d: validation objective %g", s.T, s.ValF)
		}
	}
	for _, bad := range [][]string{
		{"--weight-scales", "1,2"},
		{"--n-val", "-1"},
		{"--n-val", "2", "--val-lookahead", "0"},
		{"--n-val", "2", "--weight-scales", "1,-1"},
		{"--n-train", "2", "--n-val", "2", "--data", "synthetic", "--weight-scales", "1,nan"},
	} {
		args := append([]string{"train", "greedy", "--size", "8", "--max-steps", "1", "--out", filepath.Join(t.TempDir(), "x")}, bad...)
		errb.Reset()
		if code := Main(args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", bad, code, errb.String())
		}
	}
}

// TestTrainGreedyFloat32 trains M-PC with --precision float32 on deblurring
// and on ct-small: the manifest records it, and on deblurring the learned
// steps reduce the mean objective as much as a float64 run's (to 1e-4
// relative after three steps); precisions and problems without a float32 path
// exit with 2, naming the flag.
func TestTrainGreedyFloat32(t *testing.T) {
	meanF := map[string]float64{}
	for _, prec := range []string{"float32", "float64"} {
		dir := filepath.Join(t.TempDir(), prec)
		var out, errb bytes.Buffer
		args := []string{"train", "greedy", "--param", "m-pc", "--size", "16", "--n-train", "3", "--max-steps", "3",
			"--inner", "lbfgs", "--precision", prec, "--out", dir}
		if code := Main(args, &out, &errb); code != 0 {
			t.Fatalf("train greedy --precision %s: exit %d: %s", prec, code, errb.String())
		}
		if !strings.Contains(out.String(), "solver in "+prec) {
			t.Errorf("the header does not name %s:\n%s", prec, out.String())
		}
		m, err := checkpoint.ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]steploss.Precision{"float32": steploss.Float32, "float64": ""}[prec]; m.Precision != want || len(m.Steps) != 3 {
			t.Fatalf("%s: manifest precision %q, %d steps", prec, m.Precision, len(m.Steps))
		}
		meanF[prec] = m.Steps[2].MeanF
	}
	ct := filepath.Join(t.TempDir(), "ct")
	var out, errb bytes.Buffer
	if code := Main([]string{"train", "greedy", "--problem", "ct-small", "--size", "16", "--n-train", "2", "--param", "m-pc",
		"--max-steps", "2", "--tol-rel", "0", "--precision", "float32", "--out", ct}, &out, &errb); code != 0 {
		t.Fatalf("ct-small in float32: exit %d: %s", code, errb.String())
	}
	if m, err := checkpoint.ReadManifest(ct); err != nil || m.Precision != steploss.Float32 || len(m.Steps) != 2 {
		t.Fatalf("ct-small manifest: %v, %+v", err, m)
	}
	if d := meanF["float32"]/meanF["float64"] - 1; d > 1e-4 || d < -1e-4 {
		t.Errorf("mean objective after 3 steps: float32 %.9g, float64 %.9g", meanF["float32"], meanF["float64"])
	}
	for _, bad := range [][]string{
		{"--precision", "float16"},
		{"--precision", "float32", "--problem", "deblur-wcrr", "--wcrr-weights", wcrrWeights(t)}, // no float32 objective
	} {
		var out, errb bytes.Buffer
		args := append([]string{"train", "greedy", "--size", "8", "--n-train", "2", "--max-steps", "1", "--out", filepath.Join(t.TempDir(), "x")}, bad...)
		if code := Main(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--precision") {
			t.Errorf("%v: exit %d, want 2 naming --precision (%s)", bad, code, errb.String())
		}
	}
}

// wcrrWeights writes a small valid WCRR weights file (1→2→2→1 channels of
// identity-like 3×3 kernels; μ = 5, h = 0.1, T = 0.5, so that ψ grows at
// infinity, (μ+1)h > T, and the objective is bounded below) and returns its
// path.
func wcrrWeights(t *testing.T) string {
	t.Helper()
	layer := func(in, out int) string {
		var fs []string
		for range out {
			var ch []string
			for range in {
				ch = append(ch, "[[1,0,0],[0,1,0],[0,0,1]]")
			}
			fs = append(fs, "["+strings.Join(ch, ",")+"]")
		}
		return fmt.Sprintf(`{"in_channels":%d,"out_channels":%d,"kernel_size":3,"padding":1,"weight":[%s]}`, in, out, strings.Join(fs, ","))
	}
	js := `{"mu":5,"L":3,"conv":{"layers":[` + layer(1, 2) + "," + layer(2, 2) + "," + layer(2, 1) +
		`]},"potential":{"closed_form":{"h_c":[0.1],"T_c":[0.5]}}}`
	path := filepath.Join(t.TempDir(), "wcrr.json")
	if err := os.WriteFile(path, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDeviceFlagRefusals: without the CUDA device in the binary, --device
// cuda exits 2 saying how to build one; commands that do not run on a device
// say so; bad combinations name the flag.
func TestDeviceFlagRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "greedy", "--size", "12", "--n-train", "2", "--device", "cuda", "--out", filepath.Join(dir, "a")}, "l2ocuda"},
		{[]string{"train", "greedy", "--size", "12", "--n-train", "2", "--device", "tpu", "--out", filepath.Join(dir, "b")}, "unknown device"},
		{[]string{"tune", "pgd", "--size", "12", "--n-train", "2", "--device", testOpsDevice}, "only `l2o train greedy`"},
		{[]string{"train", "greedy", "--size", "12", "--n-train", "2", "--device", testOpsDevice, "--precision", "float32", "--out", filepath.Join(dir, "e")}, "drop --precision"},
	} {
		var out, errb bytes.Buffer
		if code := Main(c.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, want 2 naming %q: %s", c.args, code, c.want, errb.String())
		}
	}
}

// TestTrainUnrollOnDevice trains unrolled M-PC through --device (the CPU
// device's reverse pass) and checks unroll.json records the device and the
// learned parameters equal the graph's to 1e-9 relative.
func TestTrainUnrollOnDevice(t *testing.T) {
	dir := t.TempDir()
	var thetas [2][]float64
	for i, dev := range []string{"cpu", testOpsDevice} {
		out := filepath.Join(dir, dev)
		var o, errb bytes.Buffer
		args := []string{"train", "unroll", "--size", "12", "--n-train", "2", "--batch", "2", "--param", "m-pc", "--T", "3", "--epochs", "2",
			"--device", dev, "--out", out}
		if code := Main(args, &o, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		st, err := unroll.ReadState(out)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]string{"cpu": "", testOpsDevice: "host"}[dev]; st.Device != want {
			t.Errorf("unroll.json device %q, want %q", st.Device, want)
		}
		l, _, err := unroll.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		for step := 0; step < l.Steps; step++ {
			th, ph, err := l.Params(step)
			if err != nil {
				t.Fatal(err)
			}
			thetas[i] = append(append(thetas[i], th...), ph...)
		}
	}
	var d, n float64
	for j := range thetas[0] {
		d += (thetas[1][j] - thetas[0][j]) * (thetas[1][j] - thetas[0][j])
		n += thetas[0][j] * thetas[0][j]
	}
	if len(thetas[0]) == 0 || len(thetas[0]) != len(thetas[1]) || d > 1e-18*n {
		t.Errorf("parameters of %d and %d values differ by %.2g relative", len(thetas[0]), len(thetas[1]), d/n)
	}
}

// TestApplyOnDevice applies a trained M-PC with the iterations on the host
// device and on the CPU: the printed table (mean f, max‖∇f‖ per iteration)
// is the same, safeguarded too; --precision on a device exits 2.
func TestApplyOnDevice(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mpc")
	var o, errb bytes.Buffer
	if code := Main([]string{"train", "greedy", "--size", "16", "--n-train", "3", "--param", "m-pc", "--max-steps", "3", "--tol-rel", "0", "--inner", "lbfgs", "--out", dir}, &o, &errb); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb.String())
	}
	var tables [2]string
	for i, dev := range []string{"cpu", testOpsDevice} {
		o.Reset()
		errb.Reset()
		if code := Main([]string{"apply", "--params", dir, "--n-test", "2", "--iters", "8", "--device", dev}, &o, &errb); code != 0 {
			t.Fatalf("apply --device %s: exit %d: %s", dev, code, errb.String())
		}
		tables[i] = o.String()[strings.Index(o.String(), "iter"):]
	}
	if tables[0] != tables[1] {
		t.Errorf("apply on the host device printed\n%s\nthe CPU\n%s", tables[1], tables[0])
	}
	// Safeguarded: the iterations on the host with f and ∇f from the device.
	for i, dev := range []string{"cpu", testOpsDevice} {
		o.Reset()
		errb.Reset()
		if code := Main([]string{"apply", "--params", dir, "--n-test", "2", "--iters", "8", "--safeguard", "bgd", "--device", dev}, &o, &errb); code != 0 {
			t.Fatalf("apply --safeguard bgd --device %s: exit %d: %s", dev, code, errb.String())
		}
		tables[i] = o.String()[strings.Index(o.String(), "iter"):]
	}
	if tables[0] != tables[1] {
		t.Errorf("safeguarded apply on the host device printed\n%s\nthe CPU\n%s", tables[1], tables[0])
	}
	errb.Reset()
	if code := Main([]string{"apply", "--params", dir, "--n-test", "2", "--device", testOpsDevice, "--precision", "float32"}, &o, &errb); code != 2 || !strings.Contains(errb.String(), "--precision") {
		t.Errorf("apply on a device with --precision float32: exit %d: %s", code, errb.String())
	}
}

// TestEvalOnDevice evaluates a trained M-PS on the CPU's array operations
// (testOpsDevice): its learned curve (labelled with the device) equals the
// CPU run's; its safeguarded copy and gradient descent take f and ∇f from
// the device (their curves record the evaluator) and equal the CPU's too.
func TestEvalOnDevice(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "mps")
	var o, errb bytes.Buffer
	if code := Main([]string{"train", "greedy", "--size", "16", "--n-train", "3", "--param", "m-ps", "--max-steps", "3", "--tol-rel", "0", "--inner", "lbfgs", "--out", dir}, &o, &errb); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb.String())
	}
	curves := map[string][]*eval.Curve{}
	for _, dev := range []string{"cpu", testOpsDevice} {
		out := filepath.Join(root, "eval-"+dev)
		errb.Reset()
		if code := Main([]string{"eval", "--params", dir, "--n-test", "2", "--iters", "6", "--fstar-iters", "50", "--methods", "gd",
			"--safeguard", "decrease", "--cache", filepath.Join(root, "cache"), "--device", dev, "--out", out}, &o, &errb); code != 0 {
			t.Fatalf("eval --device %s: exit %d: %s", dev, code, errb.String())
		}
		curves[dev] = readCurvesJSON(t, out)
	}
	if len(curves["cpu"]) != 3 || len(curves[testOpsDevice]) != 3 {
		t.Fatalf("%d and %d curves, want 3 each", len(curves["cpu"]), len(curves[testOpsDevice]))
	}
	d := curves[testOpsDevice][0]
	if !strings.HasSuffix(d.Method, "["+testOpsDevice+"]") || strings.Contains(curves[testOpsDevice][1].Method, "["+testOpsDevice+"]") {
		t.Errorf("labels %q, %q: want the learned method marked with the device and its safeguarded copy not", d.Method, curves[testOpsDevice][1].Method)
	}
	for i := range curves["cpu"] {
		c, d := curves["cpu"][i], curves[testOpsDevice][i]
		for it := range c.Mean {
			if diff := math.Abs(c.Mean[it] - d.Mean[it]); diff > 1e-12*math.Abs(c.Mean[it])+1e-15 {
				t.Errorf("%s, iteration %d: mean optimality %.15g on the device, %.15g on the CPU", c.Method, it, d.Mean[it], c.Mean[it])
			}
		}
		if i > 0 && d.Setting["evaluator"] != "cpu" {
			t.Errorf("%s on the device: setting %v does not record the evaluator", d.Method, d.Setting)
		}
	}
}

// TestTrainCTAndWCRROnDevice trains greedy M-PC on ct-small (the ray
// transform built on the device: tomo.NewDeviceRay) and on deblur-wcrr (the
// ridge regularizer through gpu.NetOps, mconv.NewDeviceConv and
// wcrr.NewDevicePotentials) on the CPU's array operations (testOpsDevice) and
// checks that the parameters follow the CPU runs'.
func TestTrainCTAndWCRROnDevice(t *testing.T) {
	weights := wcrrWeights(t)
	for _, prob := range [][]string{{"--problem", "ct-small"}, {"--problem", "deblur-wcrr", "--wcrr-weights", weights}} {
		trainOnDevices(t, prob)
	}
}

func trainOnDevices(t *testing.T, prob []string) {
	dir := t.TempDir()
	var thetas [2][]float64
	for i, dev := range []string{"cpu", testOpsDevice} {
		out := filepath.Join(dir, dev)
		var o, errb bytes.Buffer
		// A short NAG inner solve: long L-BFGS runs on the nonconvex WCRR
		// step loss part ways at the rounding level (tested per evaluation
		// in package greedy).
		args := append([]string{"train", "greedy", "--size", "12", "--n-train", "2", "--param", "m-pc", "--max-steps", "2",
			"--tol-rel", "0", "--inner", "nag", "--nag-iters", "20", "--nag-rounds", "1", "--device", dev, "--out", out}, prob...)
		if code := Main(args, &o, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		man, err := checkpoint.ReadManifest(out)
		if err != nil {
			t.Fatal(err)
		}
		theta, phi, err := checkpoint.LoadParams(out, man, len(man.Steps)-1)
		if err != nil {
			t.Fatal(err)
		}
		thetas[i] = append(theta, phi...)
	}
	var diff, scale float64
	for i, v := range thetas[0] {
		diff = math.Max(diff, math.Abs(thetas[1][i]-v))
		scale = math.Max(scale, math.Abs(v))
	}
	if diff > 1e-8*scale {
		t.Errorf("%v on the device: parameters differ from the CPU's by %.3g (relative)", prob, diff/scale)
	}
}

// TestTrainOnABlurFamily: --blur-sigma A:B trains on functions that each
// draw their own blur (the setting records the family's operator); a width
// trains on that blur; malformed values and a family on a problem without a
// Gaussian blur exit 2.
func TestTrainOnABlurFamily(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	base := []string{"train", "greedy", "--size", "12", "--n-train", "3", "--param", "m-npoly2", "--max-steps", "2"}
	if code := Main(append(base, "--blur-sigma", "1:2", "--out", filepath.Join(dir, "fam")), &out, &errb); code != 0 {
		t.Fatalf("--blur-sigma 1:2: exit %d: %s", code, errb.String())
	}
	if code := Main(append(base, "--blur-sigma", "2", "--out", filepath.Join(dir, "two")), &out, &errb); code != 0 {
		t.Fatalf("--blur-sigma 2: exit %d: %s", code, errb.String())
	}
	a, err := checkpoint.ReadManifest(filepath.Join(dir, "fam"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := checkpoint.ReadManifest(filepath.Join(dir, "two"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(a.Operator, "σ∈[1:2]") || !strings.Contains(b.Operator, "gauss5-2") {
		t.Errorf("operators recorded: %q and %q", a.Operator, b.Operator)
	}
	// eval runs on a family, PGD with each function's own preconditioner.
	if code := Main([]string{"eval", "--params", filepath.Join(dir, "fam"), "--blur-sigma", "1:2", "--methods", "gd,nag,pgd", "--n-test", "2", "--iters", "5",
		"--fstar-iters", "40", "--cache", dir, "--out", filepath.Join(dir, "eval")}, &out, &errb); code != 0 {
		t.Fatalf("eval --blur-sigma 1:2: exit %d: %s", code, errb.String())
	}
	// Unrolled and Banert training hold one operator in their graphs: a family is refused.
	for _, args := range [][]string{
		{"train", "unroll", "--size", "12", "--n-train", "4", "--param", "m-pc", "--T", "2", "--batch", "2", "--epochs", "1"},
		{"train", "banert", "--size", "12", "--n-train", "4", "--T", "2", "--epochs", "1"},
	} {
		errb.Reset()
		if code := Main(append(args, "--blur-sigma", "1:2", "--out", filepath.Join(dir, "one-graph")), &out, &errb); code != 2 || !strings.Contains(errb.String(), "greedy only") {
			t.Errorf("%s %s --blur-sigma 1:2: exit %d: %s", args[0], args[1], code, errb.String())
		}
	}
	if code := Main(append(base, "--noise", "0.005:0.02", "--out", filepath.Join(dir, "noise")), &out, &errb); code != 0 {
		t.Fatalf("--noise 0.005:0.02: exit %d: %s", code, errb.String())
	}
	for _, bad := range [][]string{{"--blur-sigma", "1:x"}, {"--blur-sigma", "2:1"}, {"--blur-sigma", "1:2", "--problem", "ct-small"}, {"--noise", "0.02:0.01"}, {"--noise", "x"}} {
		errb.Reset()
		if code := Main(append(append(base, bad...), "--out", filepath.Join(dir, "bad")), &out, &errb); code != 2 {
			t.Errorf("%v: exit %d (%s)", bad, code, errb.String())
		}
	}
}

// TestTrainOnAnAngleFamily: --angles K1,K2 trains ct-small on functions
// that each draw their scan (the checkpoint records the family's operator);
// eval --shift angles=K runs the trained parameters on K-angle scans;
// certify --angles K certifies an npoly checkpoint of the family with that
// scan (exit 2 without); unrolled training and malformed lists exit 2.
func TestTrainOnAnAngleFamily(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	base := []string{"train", "greedy", "--problem", "ct-small", "--size", "16", "--n-train", "4", "--param", "m-npoly2", "--max-steps", "2",
		"--lambda", "1e-3", "--mu", "1e-3"}
	if code := Main(append(base, "--angles", "20,10", "--out", filepath.Join(dir, "fam")), &out, &errb); code != 0 {
		t.Fatalf("--angles 20,10: exit %d: %s", code, errb.String())
	}
	man, err := checkpoint.ReadManifest(filepath.Join(dir, "fam"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(man.Operator, "angles∈{10,20}") {
		t.Errorf("operator recorded: %q", man.Operator)
	}
	errb.Reset()
	if code := Main([]string{"eval", "--params", filepath.Join(dir, "fam"), "--methods", "nag", "--n-test", "2", "--iters", "4", "--fstar-iters", "30",
		"--shift", "angles=12", "--cache", dir, "--out", filepath.Join(dir, "eval")}, &out, &errb); code != 0 {
		t.Fatalf("eval --shift angles=12: exit %d: %s", code, errb.String())
	}
	shift, err := os.ReadFile(filepath.Join(dir, "eval", "shift.md"))
	if err != nil || !strings.Contains(string(shift), "angles=12") {
		t.Errorf("shift table without angles=12 (%v):\n%s", err, shift)
	}
	errb.Reset()
	if code := Main([]string{"certify", "--params", filepath.Join(dir, "fam")}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--angles K") {
		t.Errorf("certify of an angle-family npoly without --angles: exit %d: %s", code, errb.String())
	}
	out.Reset()
	if code := Main([]string{"certify", "--params", filepath.Join(dir, "fam"), "--angles", "10"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "raytransform(16,10,") {
		t.Errorf("certify --angles 10: exit %d: %s%s", code, out.String(), errb.String())
	}
	for _, bad := range [][]string{{"--angles", "10,x"}, {"--angles", "10,10"}, {"--angles", "0"}, {"--angles", "10", "--problem", "deblur", "--size", "12"}} {
		errb.Reset()
		if code := Main(append(append(base, bad...), "--out", filepath.Join(dir, "bad")), &out, &errb); code != 2 {
			t.Errorf("%v: exit %d (%s)", bad, code, errb.String())
		}
	}
	errb.Reset()
	unroll := []string{"train", "unroll", "--problem", "ct-small", "--size", "16", "--n-train", "4", "--param", "m-pc", "--T", "2", "--batch", "2", "--epochs", "1",
		"--angles", "10,20", "--out", filepath.Join(dir, "one-graph")}
	if code := Main(unroll, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--angles 10,20: give one number of angles") {
		t.Errorf("train unroll --angles 10,20: exit %d: %s", code, errb.String())
	}
}

// TestTrainOnAnAlphaFamily: --alpha A:B trains on functions that each draw
// their regularisation weight (the checkpoint records the weighted
// regularizer and the family's largest α and L); unrolled training and
// malformed ranges exit 2.
func TestTrainOnAnAlphaFamily(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	base := []string{"train", "greedy", "--size", "12", "--n-train", "3", "--param", "m-ps", "--max-steps", "2"}
	if code := Main(append(base, "--alpha", "1e-4:1e-3", "--out", filepath.Join(dir, "fam")), &out, &errb); code != 0 {
		t.Fatalf("--alpha 1e-4:1e-3: exit %d: %s", code, errb.String())
	}
	man, err := checkpoint.ReadManifest(filepath.Join(dir, "fam"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(man.Regular, "weighted(huber-tv") || man.Alpha != 1e-3 || math.Abs(man.L-(1+1e-3*8/0.005)) > 1e-12 {
		t.Errorf("recorded regularizer %q, α %g, L %g", man.Regular, man.Alpha, man.L)
	}
	for _, bad := range [][]string{{"--alpha", "1e-3:1e-4"}, {"--alpha", "x:1"}, {"--alpha", "0:1e-3"}} {
		errb.Reset()
		if code := Main(append(append(base, bad...), "--out", filepath.Join(dir, "bad")), &out, &errb); code != 2 {
			t.Errorf("%v: exit %d (%s)", bad, code, errb.String())
		}
	}
	errb.Reset()
	unroll := []string{"train", "unroll", "--size", "12", "--n-train", "4", "--param", "m-pc", "--T", "2", "--batch", "2", "--epochs", "1",
		"--alpha", "1e-4:1e-3", "--out", filepath.Join(dir, "one-graph")}
	if code := Main(unroll, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--alpha 1e-4:1e-3: give one weight") {
		t.Errorf("train unroll --alpha 1e-4:1e-3: exit %d: %s", code, errb.String())
	}
}

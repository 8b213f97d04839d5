package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/data"
)

// childArgsEnv carries the arguments of l2o to the child process
// TestHelperL2O runs (separated by \\x1f); childHoldEnv how long the child keeps
// its run lock before it works.
const (
	childArgsEnv = "L2O_TEST_CHILD_ARGS"
	childHoldEnv = "L2O_TEST_CHILD_HOLD"
)

// TestHelperL2O is the l2o process the tests below start: it runs Main with
// the arguments in $L2O_TEST_CHILD_ARGS and exits with its status.
func TestHelperL2O(t *testing.T) {
	args := os.Getenv(childArgsEnv)
	if args == "" {
		t.Skip("helper process of the two-process tests")
	}
	if d, err := time.ParseDuration(os.Getenv(childHoldEnv)); err == nil {
		afterLock = func() { time.Sleep(d) }
	}
	os.Exit(Main(strings.Split(args, "\x1f"), os.Stdout, os.Stderr))
}

// l2oProcess returns a command that runs l2o with args in a separate
// process (this test binary, running TestHelperL2O).
func l2oProcess(t *testing.T, hold time.Duration, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skip("cannot find the test binary:", err)
	}
	c := exec.Command(exe, "-test.run=^TestHelperL2O$", "-test.count=1")
	c.Env = append(os.Environ(), childArgsEnv+"="+strings.Join(args, "\x1f"), childHoldEnv+"="+hold.String())
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	return c, &out, &errb
}

func exitStatus(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// TestConcurrentRunsIntoOneDirectory starts two training processes with
// different λ into one --out at the same moment: one holds the directory,
// the other is refused at once with exit 2 naming the holder's pid, and the
// checkpoint left is entirely the winner's (its λ in the manifest, every
// file matching its checksum).
func TestConcurrentRunsIntoOneDirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := filepath.Join(t.TempDir(), "run")
	base := []string{"train", "greedy", "--param", "ps", "--size", "8", "--n-train", "2", "--max-steps", "2", "--out", dir}
	a, aOut, aErr := l2oProcess(t, 1500*time.Millisecond, append(base, "--lambda", "1e-3")...)
	b, bOut, bErr := l2oProcess(t, 1500*time.Millisecond, append(base, "--lambda", "2e-3")...)
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	ea, eb := a.Wait(), b.Wait()
	codes := [2]int{exitStatus(ea), exitStatus(eb)}
	winner, loser, lambda := a, b, "0.001"
	loserErr := bErr.String()
	if codes[0] != 0 {
		winner, loser, lambda, loserErr = b, a, "0.002", aErr.String()
		codes[0], codes[1] = codes[1], codes[0]
	}
	if codes != [2]int{0, 2} {
		t.Fatalf("exit statuses %v, want one 0 and one 2\nA: %s%s\nB: %s%s", codes, aOut, aErr, bOut, bErr)
	}
	if want := fmt.Sprintf("pid %d", winner.Process.Pid); !strings.Contains(loserErr, want) || !strings.Contains(loserErr, "in use") {
		t.Errorf("the refused run (pid %d) does not name the holder (%s):\n%s", loser.Process.Pid, want, loserErr)
	}
	m, err := checkpoint.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Lambda != lambda || len(m.Steps) != 2 || !m.Finished {
		t.Errorf("manifest: λ %s, %d steps, finished %v; want the winner's λ %s, 2 steps", m.Lambda, len(m.Steps), m.Finished, lambda)
	}
	if err := checkpoint.VerifyChecksums(dir, m.Checksums); err != nil || len(m.Checksums) < 2 {
		t.Errorf("checksums of the winner's files (%d): %v", len(m.Checksums), err)
	}

	// A run that starts while another holds the directory is refused at
	// once, resume or not.
	base = append(base, "--lambda", lambda)
	c, cOut, cErr := l2oProcess(t, 2*time.Second, append(base, "--resume", "--max-steps", "3")...)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitForLock(t, dir, c.Process.Pid)
	var out, errb bytes.Buffer
	built := dataBuilds.Load()
	if code := Main(append(base, "--resume", "--max-steps", "4"), &out, &errb); code != 2 || !strings.Contains(errb.String(), fmt.Sprintf("pid %d", c.Process.Pid)) {
		t.Errorf("resume while pid %d holds the directory: exit %d: %s", c.Process.Pid, code, errb.String())
	}
	if n := dataBuilds.Load() - built; n != 0 {
		t.Errorf("the refusal came after %d problems were built: it should come before any work", n)
	}
	if err := c.Wait(); err != nil {
		t.Errorf("holder: %v\n%s%s", err, cOut, cErr)
	}
}

// waitForLock waits until the lock file of dir names pid.
func waitForLock(t *testing.T, dir string, pid int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(dir, checkpoint.LockName)); err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(pid) {
			return
		}
	}
	t.Fatalf("pid %d never took the lock of %s", pid, dir)
}

// trainSmall trains a small greedy run into dir and returns it.
func trainSmall(t *testing.T, dir string, extra ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	args := append([]string{"train", "greedy", "--param", "m-ps", "--size", "8", "--n-train", "2", "--max-steps", "3", "--out", dir}, extra...)
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("train greedy: exit %d: %s", code, errb.String())
	}
	return dir
}

// TestCorruptParameterFileRefused flips one byte inside the values of a
// parameter file: apply, eval, certify, report and resume refuse the run
// with exit 2 naming the file, and so do they for a state file and for a
// parameter file copied from another run.
func TestCorruptParameterFileRefused(t *testing.T) {
	dir := trainSmall(t, filepath.Join(t.TempDir(), "run"))
	m, err := checkpoint.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Checksums) != 3*2+2 {
		t.Errorf("manifest records %d checksums, want 8 (θ and φ of 3 steps, x and x⁻ after the last): %v", len(m.Checksums), m.Checksums)
	}
	eval := []string{"eval", "--params", dir, "--methods", "gd", "--n-test", "2", "--iters", "3", "--fstar-iters", "10", "--cache", t.TempDir(), "--force", "--out", filepath.Join(t.TempDir(), "e")}
	commands := map[string][]string{
		"apply":   {"apply", "--params", dir, "--n-test", "2", "--iters", "3"},
		"eval":    eval,
		"certify": {"certify", "--params", dir},
		"report":  {"report", "--curves", "x.json", "--params", dir, "--out", t.TempDir()},
		"resume":  {"train", "greedy", "--param", "m-ps", "--size", "8", "--n-train", "2", "--max-steps", "5", "--out", dir, "--resume"},
	}
	for _, name := range []string{"apply", "eval", "certify"} {
		var out, errb bytes.Buffer
		if code := Main(commands[name], &out, &errb); code != 0 {
			t.Fatalf("%s on the intact run: exit %d: %s", name, code, errb.String())
		}
	}
	paramFile := filepath.Join(dir, "params", "theta_00002.npy")
	orig, err := os.ReadFile(paramFile)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), orig...)
	flipped[len(flipped)-3] ^= 0x10 // inside the value, not the header
	if err := os.WriteFile(paramFile, flipped, 0o644); err != nil {
		t.Fatal(err)
	}
	// report needs curves to get as far as the parameters.
	curves := filepath.Join(eval[len(eval)-1], "curves.json")
	commands["report"][2] = curves
	for _, name := range []string{"apply", "eval", "certify", "report", "resume"} {
		var out, errb bytes.Buffer
		code := Main(commands[name], &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), paramFile) || !strings.Contains(errb.String(), "SHA-256") {
			t.Errorf("%s with a flipped byte in %s: exit %d, want 2 naming the file:\n%s", name, paramFile, code, errb.String())
		}
	}
	if err := os.WriteFile(paramFile, orig, 0o644); err != nil {
		t.Fatal(err)
	}

	// A state file changed: resume refuses it.
	state := filepath.Join(dir, "state", "x_00003.npy")
	b, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] ^= 1
	os.WriteFile(state, b, 0o644)
	var out, errb bytes.Buffer
	if code := Main(commands["resume"], &out, &errb); code != 2 || !strings.Contains(errb.String(), state) {
		t.Errorf("resume with a changed state file: exit %d, want 2 naming %s:\n%s", code, state, errb.String())
	}

	// A parameter file of another run (same sizes, other data) is refused.
	other := trainSmall(t, filepath.Join(t.TempDir(), "other"), "--seed", "7")
	b, err = os.ReadFile(filepath.Join(other, "params", "theta_00001.npy"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "params", "theta_00001.npy"), b, 0o644)
	errb.Reset()
	if code := Main(commands["apply"], &out, &errb); code != 2 || !strings.Contains(errb.String(), "theta_00001.npy") {
		t.Errorf("apply with a parameter file from another run: exit %d, want 2:\n%s", code, errb.String())
	}
}

// TestLegacyCheckpointLoadsUnverified removes the checksums from a manifest,
// as written before they were recorded: apply still runs it and says its
// files are unverified, and a resume records checksums for them.
func TestLegacyCheckpointLoadsUnverified(t *testing.T) {
	dir := trainSmall(t, filepath.Join(t.TempDir(), "run"))
	m, err := checkpoint.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.Checksums = nil
	if err := checkpoint.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"apply", "--params", dir, "--n-test", "2", "--iters", "3"}, &out, &errb); code != 0 || !strings.Contains(errb.String(), "unverified") {
		t.Fatalf("apply on a checkpoint without checksums: exit %d, stderr %q", code, errb.String())
	}
	args := []string{"train", "greedy", "--param", "m-ps", "--size", "8", "--n-train", "2", "--max-steps", "4", "--out", dir, "--resume"}
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errb.String())
	}
	if m, err = checkpoint.ReadManifest(dir); err != nil || len(m.Checksums) != 4*2+2 {
		t.Fatalf("after the resume: %v, %d checksums, want 10", err, len(m.Checksums))
	}
}

// TestDivergentTrainingStops runs the τ = 100 case: refused (exit 2)
// without --force, and with it stopped within a few steps with exit 1
// naming the step and the value.
func TestDivergentTrainingStops(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	args := []string{"train", "greedy", "--param", "m-pc", "--size", "16", "--n-train", "3", "--max-steps", "50",
		"--tau", "100", "--lambda", "rel:1", "--mu", "rel:1", "--out", dir}
	var out, errb bytes.Buffer
	if code := Main(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--force") {
		t.Errorf("τ = 100 without --force: exit %d, want 2 with a hint at --force: %s", code, errb.String())
	}
	out.Reset()
	errb.Reset()
	code := Main(append(args, "--force"), &out, &errb)
	if code != 1 || !regexp.MustCompile(`step \d+: the mean training objective \S+ exceeds 10 times its starting value`).MatchString(errb.String()) {
		t.Fatalf("τ = 100 with --force: exit %d, want 1 naming the step and value:\n%s%s", code, out.String(), errb.String())
	}
	m, err := checkpoint.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Steps) > 3 || m.Finished {
		t.Errorf("the diverging run committed %d steps (finished %v), want at most 3", len(m.Steps), m.Finished)
	}
	for _, bad := range [][]string{{"--tau", "Inf"}, {"--tau", "NaN"}, {"--tol-rel", "+Inf"}, {"--diverge-factor", "-1"}} {
		errb.Reset()
		args := append([]string{"train", "greedy", "--size", "8", "--max-steps", "1", "--out", filepath.Join(t.TempDir(), "x")}, bad...)
		if code := Main(args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", bad, code, errb.String())
		}
	}
}

// TestDivergedMethodIsAResult makes a learned step far too long: apply and
// eval report "diverged at iteration k" and succeed.
func TestDivergedMethodIsAResult(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	var out, errb bytes.Buffer
	if code := Main([]string{"train", "greedy", "--param", "ps", "--size", "8", "--n-train", "2", "--max-steps", "1", "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb.String())
	}
	m, err := checkpoint.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := checkpoint.WriteNPYSum(filepath.Join(dir, "params", "theta_00000.npy"), []float64{50 / m.L})
	if err != nil {
		t.Fatal(err)
	}
	m.Checksums[checkpoint.ParamFile("theta", 0)] = sum
	if err := checkpoint.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := Main([]string{"apply", "--params", dir, "--n-test", "2", "--iters", "2000"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "diverged at iteration") {
		t.Errorf("apply of a diverging step: exit %d, want 0 reporting the divergence:\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	evalDir := filepath.Join(t.TempDir(), "eval")
	if code := Main([]string{"eval", "--params", dir, "--methods", "gd", "--n-test", "2", "--iters", "2000", "--fstar-iters", "50",
		"--cache", t.TempDir(), "--out", evalDir}, &out, &errb); code != 0 || !strings.Contains(out.String(), "diverged at iteration") {
		t.Errorf("eval of a diverging step: exit %d, want 0 reporting the divergence:\n%s%s", code, out.String(), errb.String())
	}
	b, err := os.ReadFile(filepath.Join(evalDir, "curves.csv"))
	if err != nil || !strings.Contains(string(b), "diverged at iteration") || strings.Contains(string(b), "Inf") {
		t.Errorf("curves.csv does not report the divergence, or holds Inf (%v)", err)
	}
}

// TestExitCodesAndEarlyChecks: refused resumes, corrupt manifests, output
// directories that cannot be written and parameters used on another
// problem or image size are usage errors (exit 2), found before any work.
func TestExitCodesAndEarlyChecks(t *testing.T) {
	// The refusals that depend on the data or the checkpoints' functions,
	// which no flag tells before they are built.
	refusedOut := filepath.Join(t.TempDir(), "b0")
	needsData := map[string]bool{
		// Parameters per step: the image size of --data (synthetic here).
		"train greedy with a kernel larger than the image": true,
		"train greedy PF past the parameter memory":        true,
		// f(x⁰) of the functions themselves.
		"eval at a noise level past float64": true,
	}
	dir := trainSmall(t, filepath.Join(t.TempDir(), "run"))
	var out, errb bytes.Buffer
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("x"), 0o644)
	seed2 := trainSmall(t, filepath.Join(t.TempDir(), "seed2"), "--seed", "2")
	copied := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(copied, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "keep.txt"), []byte("x"), 0o644)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"resume with another method", []string{"train", "greedy", "--param", "m-pc", "--size", "8", "--n-train", "2", "--out", dir, "--resume"}},
		{"eval --out not writable", []string{"eval", "--params", dir, "--n-test", "2", "--out", filepath.Join(file, "eval")}},
		{"train --out not writable", []string{"train", "greedy", "--size", "8", "--out", filepath.Join(file, "run")}},
		{"apply on another problem", []string{"apply", "--params", dir, "--problem", "ct-small", "--n-test", "1"}},
		{"apply on another size", []string{"apply", "--params", dir, "--size", "16", "--n-test", "1"}},
		{"eval on another size", []string{"eval", "--params", dir, "--size", "16", "--n-test", "1", "--out", t.TempDir()}},
		{"train greedy into a folder of other files", []string{"train", "greedy", "--size", "8", "--n-train", "2", "--out", full}},
		{"train unroll into a folder of other files", []string{"train", "unroll", "--size", "8", "--n-train", "2", "--epochs", "1", "--out", full}},
		{"train banert into a folder of other files", []string{"train", "banert", "--size", "8", "--n-train", "2", "--epochs", "1", "--out", full}},
		{"train at a size smaller than the blur", []string{"train", "greedy", "--size", "4", "--out", filepath.Join(t.TempDir(), "s4")}},
		{"train with a negative --certify-L", []string{"train", "greedy", "--size", "8", "--stop-when-certified", "--certify-L", "-1", "--out", filepath.Join(t.TempDir(), "cl")}},
		{"train with a negative --repeat-check", []string{"train", "greedy", "--size", "8", "--repeat-check", "-1", "--out", filepath.Join(t.TempDir(), "rc")}},
		{"apply saving an iteration beyond --iters", []string{"apply", "--params", dir, "--n-test", "1", "--iters", "3", "--save-at", "99", "--out", filepath.Join(t.TempDir(), "ap")}},
		{"eval with nothing to evaluate", []string{"eval", "--methods", "", "--size", "8", "--n-test", "1", "--out", filepath.Join(t.TempDir(), "ev0")}},
		{"eval recording PSNR beyond --iters", []string{"eval", "--params", dir, "--iters", "5", "--psnr-at", "99", "--n-test", "1", "--out", filepath.Join(t.TempDir(), "ev1")}},
		{"eval with a negative --shift-at", []string{"eval", "--params", dir, "--shift", "alpha=2", "--shift-at", "-1", "--n-test", "1", "--out", filepath.Join(t.TempDir(), "ev2")}},
		{"train unroll with zero weights", []string{"train", "unroll", "--size", "8", "--n-train", "2", "--epochs", "1", "--weights", "0", "--out", filepath.Join(t.TempDir(), "uw")}},
		{"train unroll with τ ≥ 2/L", []string{"train", "unroll", "--size", "8", "--n-train", "2", "--epochs", "1", "--tau", "5", "--out", filepath.Join(t.TempDir(), "ut")}},
		{"bench greedy without test functions", []string{"bench", "greedy", "--size", "8", "--n-test", "0", "--out", filepath.Join(t.TempDir(), "bg0")}},
		{"bench greedy with an empty inner solver", []string{"bench", "greedy", "--size", "8", "--inner", "", "--out", filepath.Join(t.TempDir(), "bg1")}},
		{"eval of one checkpoint twice", []string{"eval", "--params", dir + "," + dir, "--n-test", "1", "--out", filepath.Join(t.TempDir(), "ev3")}},
		{"certify at a negative blur width", []string{"certify", "--params", dir, "--blur-sigma", "-1"}},
		{"apply with a negative --tol", []string{"apply", "--params", dir, "--n-test", "1", "--tol", "-1"}},
		{"eval shifting the angles of a blur", []string{"eval", "--params", dir, "--shift", "angles=30", "--n-test", "1", "--out", filepath.Join(t.TempDir(), "ev4")}},
		{"eval shifting to images that are not there", []string{"eval", "--params", dir, "--shift", "images=" + filepath.Join(t.TempDir(), "none"), "--n-test", "1", "--out", filepath.Join(t.TempDir(), "ev5")}},
		{"train greedy with a kernel larger than the image", []string{"train", "greedy", "--size", "8", "--param", "pc99999", "--out", filepath.Join(t.TempDir(), "k1")}},
		{"train unroll with a kernel larger than the image", []string{"train", "unroll", "--size", "8", "--n-train", "2", "--epochs", "1", "--param", "pc21", "--out", filepath.Join(t.TempDir(), "k2")}},
		{"train greedy PF past the parameter memory", []string{"train", "greedy", "--size", "160", "--n-train", "1", "--param", "pf", "--out", filepath.Join(t.TempDir(), "k3")}},
		{"eval on a billion functions", []string{"eval", "--params", dir, "--n-test", "1000000000", "--out", filepath.Join(t.TempDir(), "ev6")}},
		{"eval for two billion iterations", []string{"eval", "--params", dir, "--n-test", "1", "--iters", "2000000000", "--out", filepath.Join(t.TempDir(), "ev7")}},
		{"train on two billion functions", []string{"train", "greedy", "--size", "8", "--n-train", "2000000000", "--out", filepath.Join(t.TempDir(), "nt")}},
		{"eval --set train of checkpoints trained on other functions", []string{"eval", "--params", dir + "," + seed2, "--set", "train", "--out", filepath.Join(t.TempDir(), "ev8")}},
		{"eval of a checkpoint and its copy", []string{"eval", "--params", dir + "," + copied, "--n-test", "1", "--out", filepath.Join(t.TempDir(), "ev9")}},
		{"eval of two methods of one name", []string{"eval", "--methods", "nag-restart,nag-restart:gradient", "--size", "8", "--n-test", "1", "--out", filepath.Join(t.TempDir(), "ev10")}},
		{"train with --val-patience and no validation stop", []string{"train", "greedy", "--size", "8", "--val-patience", "3", "--out", filepath.Join(t.TempDir(), "vp")}},
		{"train with a weight scale twice", []string{"train", "greedy", "--size", "8", "--n-val", "1", "--weight-scales", "1,1", "--out", filepath.Join(t.TempDir(), "ws")}},
		{"train with a bound on the last weight", []string{"train", "greedy", "--size", "8", "--lambda", "1e-3@5", "--out", filepath.Join(t.TempDir(), "lb")}},
		{"certify a blur-free parametrization at other angles", []string{"certify", "--params", dir, "--angles", "5"}},
		{"resume where no checkpoint is", []string{"train", "greedy", "--size", "8", "--resume", "--out", filepath.Join(t.TempDir(), "none")}},
		{"eval at a noise level past float64", []string{"eval", "--methods", "gd", "--size", "8", "--n-test", "2", "--noise", "1e200", "--out", filepath.Join(t.TempDir(), "nz")}},
		{"bench greedy at a negative iteration", []string{"bench", "greedy", "--size", "8", "--at", "-1", "--out", filepath.Join(t.TempDir(), "bg")}},
		{"train at blur width 0", []string{"train", "greedy", "--size", "8", "--blur-sigma", "0", "--out", refusedOut}},
		{"train at a blur width whose kernel underflows", []string{"train", "greedy", "--blur-sigma", "1e-300", "--out", filepath.Join(t.TempDir(), "b1")}},
		{"eval at a blur width whose kernel underflows", []string{"eval", "--methods", "gd", "--blur-sigma", "1e-300", "--out", filepath.Join(t.TempDir(), "b2")}},
		{"train a family of blurs on a device", []string{"train", "greedy", "--blur-sigma", "1:2", "--device", testOpsDevice, "--out", filepath.Join(t.TempDir(), "b3")}},
		{"train a family of blurs in float32", []string{"train", "greedy", "--blur-sigma", "1:2", "--precision", "float32", "--out", filepath.Join(t.TempDir(), "b4")}},
		{"train ct at a negative noise", []string{"train", "greedy", "--problem", "ct", "--noise", "-1", "--out", filepath.Join(t.TempDir(), "c1")}},
		{"train ct at a reversed α range", []string{"train", "greedy", "--problem", "ct", "--alpha", "1:0.5", "--out", filepath.Join(t.TempDir(), "c2")}},
	} {
		errb.Reset()
		built := dataBuilds.Load()
		if code := Main(c.args, &out, &errb); code != 2 {
			t.Errorf("%s: exit %d, want 2: %s", c.name, code, errb.String())
		}
		if n := dataBuilds.Load() - built; n != 0 && !needsData[c.name] {
			t.Errorf("%s: refused after building the problem and its data (%d): %s", c.name, n, errb.String())
		}
	}
	if _, err := os.Stat(refusedOut); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused training left its --out %s behind (%v)", refusedOut, err)
	}
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"format": "greedyl2o-greedy/1", "steps": [`), 0o644)
	errb.Reset()
	if code := Main([]string{"train", "greedy", "--param", "m-ps", "--size", "8", "--n-train", "2", "--out", dir, "--resume"}, &out, &errb); code != 2 {
		t.Errorf("resume of a corrupt manifest: exit %d, want 2: %s", code, errb.String())
	}
}

// TestHelpOnStdout: help goes to standard output with exit 0, for commands,
// groups and `l2o help CMD [SUB]`; --version works.
func TestHelpOnStdout(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"train", "greedy", "--help"}, []string{"Usage: l2o train greedy", "--lambda", "rel:", "v@t1", "--force"}},
		{[]string{"help", "train", "greedy"}, []string{"Usage: l2o train greedy", "--max-steps"}},
		{[]string{"train", "--help"}, []string{"train greedy", "train unroll", "train banert"}},
		{[]string{"help", "train"}, []string{"train greedy", "train unroll"}},
		{[]string{"help", "eval"}, []string{"Usage: l2o eval", "--out"}},
		{[]string{"bench", "-h"}, []string{"bench greedy", "bench memory"}},
		{[]string{"--version"}, []string{"l2o " + Version}},
		{[]string{"help"}, []string{"Commands:", "train greedy"}},
	} {
		var out, errb bytes.Buffer
		code := Main(c.args, &out, &errb)
		if code != 0 || errb.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, errb.String())
		}
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%v: stdout lacks %q:\n%s", c.args, w, out.String())
			}
		}
	}
	for _, args := range [][]string{{"train"}, {"train", "nonsense"}, {"help", "nonsense"}, {"nonsense"}} {
		var out, errb bytes.Buffer
		if code := Main(args, &out, &errb); code != 2 || errb.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 with a message", args, code, errb.String())
		}
	}
}

// TestInterruptStopsCleanly sends SIGINT to a training process: it stops
// after the step in progress with exit 130, its checkpoint complete and no
// temporary file left, and prints the --resume command, which finishes the
// run.
func TestInterruptStopsCleanly(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := filepath.Join(t.TempDir(), "run")
	args := []string{"train", "greedy", "--param", "m-pc", "--size", "16", "--n-train", "3", "--tol-rel", "0", "--max-steps", "400", "--out", dir}
	c, cOut, cErr := l2oProcess(t, 0, args...)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if m, err := checkpoint.ReadManifest(dir); err == nil && len(m.Steps) >= 1 {
			break
		}
		if time.Now().After(deadline) {
			c.Process.Kill()
			t.Fatal("no step completed in 60 s")
		}
	}
	c.Process.Signal(syscall.SIGINT)
	err := c.Wait()
	if code := exitStatus(err); code != 130 {
		t.Fatalf("exit %d after SIGINT, want 130\n%s%s", code, cOut, cErr)
	}
	want := "l2o " + strings.Join(args, " ") + " --resume"
	if !strings.Contains(cErr.String(), want) {
		t.Errorf("stderr does not print the resume command %q:\n%s", want, cErr.String())
	}
	m, err := checkpoint.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Finished || len(m.Steps) >= 400 {
		t.Errorf("interrupted run: finished %v with %d steps", m.Finished, len(m.Steps))
	}
	if err := checkpoint.VerifyChecksums(dir, m.Checksums); err != nil {
		t.Error(err)
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), checkpoint.TempPrefix) {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
	var out, errb bytes.Buffer
	resume := append(append([]string(nil), args...), "--resume", "--max-steps", strconv.Itoa(len(m.Steps)+2))
	if code := Main(resume, &out, &errb); code != 0 || !strings.Contains(out.String(), fmt.Sprintf("resuming %s at step t = %d", dir, len(m.Steps))) {
		t.Errorf("resume: exit %d:\n%s%s", code, out.String(), errb.String())
	}
}

// TestEvalSaysWhenFstarIsNotTheMinimum: with f* from 2 NAG iterations,
// L-BFGS goes far below it, and eval says so (the optimality figures are
// then measured against a value above the minimum); with f* from 2,000 it
// does not.
func TestEvalSaysWhenFstarIsNotTheMinimum(t *testing.T) {
	for _, c := range []struct {
		iters string
		note  bool
	}{{"2", true}, {"2000", false}} {
		var out, errb bytes.Buffer
		args := []string{"eval", "--methods", "lbfgs", "--size", "8", "--n-test", "2", "--iters", "30", "--fstar-iters", c.iters,
			"--cache", t.TempDir(), "--out", filepath.Join(t.TempDir(), "eval")}
		if code := Main(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		if got := strings.Contains(errb.String(), "lbfgs goes below f*"); got != c.note {
			t.Errorf("f* from %s iterations: note %v, want %v: %s", c.iters, got, c.note, errb.String())
		}
	}
}

// TestCurvesTable prints saved curves at chosen iterations (GD's mean
// optimality at iteration 0 is 1 by definition) and refuses a negative
// iteration or methods the file does not hold.
func TestCurvesTable(t *testing.T) {
	evalDir := filepath.Join(t.TempDir(), "eval")
	var out, errb bytes.Buffer
	if code := Main([]string{"eval", "--methods", "gd,nag", "--size", "8", "--n-test", "2", "--iters", "5", "--fstar-iters", "50",
		"--cache", t.TempDir(), "--out", evalDir}, &out, &errb); code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errb.String())
	}
	file := filepath.Join(evalDir, "curves.json")
	out.Reset()
	if code := Main([]string{"curves", "--curves", file, "--at", "0,5", "--methods", "gd"}, &out, &errb); code != 0 {
		t.Fatalf("curves: exit %d: %s", code, errb.String())
	}
	if lines := strings.Split(strings.TrimSpace(out.String()), "\n"); len(lines) != 2 || !strings.Contains(lines[1], "gd") || strings.Fields(lines[1])[1] != "1" {
		t.Errorf("curves --at 0,5 --methods gd:\n%s", out.String())
	}
	for _, args := range [][]string{{"--at", "-1"}, {"--methods", "foo"}} {
		if code := Main(append([]string{"curves", "--curves", file}, args...), &out, &errb); code != 2 {
			t.Errorf("curves %v: exit %d, want 2", args, code)
		}
	}
}

// TestEvalSaysWhenAFunctionStartsSolved: a black test image observed
// without noise is its own minimiser from the observation (f(x⁰) = f* = 0),
// so its optimality is 0 throughout; eval says it lowers the means.
func TestEvalSaysWhenAFunctionStartsSolved(t *testing.T) {
	dir := writeFlatFolder(t, 3, 16)
	black := data.NewImage(16, 16)
	var buf bytes.Buffer
	if err := data.WritePGM(&buf, black, 8); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "black.pgm"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	args := []string{"eval", "--methods", "gd", "--data", dir, "--size", "16", "--n-train", "0", "--n-test", "4", "--noise", "1e-300",
		"--iters", "3", "--fstar-iters", "20", "--cache", t.TempDir(), "--out", filepath.Join(t.TempDir(), "eval")}
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errb.String())
	}
	if !strings.Contains(errb.String(), "1 of 4 test functions start at their estimated minimum") {
		t.Errorf("no note on the black image: %s", errb.String())
	}
}

package cmd

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestCertifyPrintsBothCertificates trains a tiny greedy optimizer and checks
// that certify prints ε1, ε2, both certificates and the paper's threshold for
// every step, and the first certified step of each certificate (strong
// penalties keep G near τI and H near 0, so both certify T = 0).
func TestCertifyPrintsBothCertificates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mps")
	var out, errb bytes.Buffer
	args := []string{"train", "greedy", "--param", "m-ps", "--size", "16", "--n-train", "2", "--max-steps", "3",
		"--lambda", "rel:1e3", "--mu", "rel:1e3", "--out", dir}
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("train greedy: exit %d: %s", code, errb.String())
	}
	for _, tc := range []struct {
		args []string
		h    string
	}{
		{[]string{"--all"}, "h1"},               // training L, τ = 1/L: τL = 1
		{[]string{"--all", "--L", "0.1"}, "h2"}, // τL < 1
	} {
		out.Reset()
		errb.Reset()
		if code := Main(append([]string{"certify", "--params", dir}, tc.args...), &out, &errb); code != 0 {
			t.Fatalf("certify %v: exit %d: %s", tc.args, code, errb.String())
		}
		s := out.String()
		for _, want := range []string{"ε1=‖G−τI‖", "ε2=‖H‖", "paper P", "lyapunov P", " " + tc.h + " ", "L_max", "paper: ", "lyapunov: "} {
			if !strings.Contains(s, want) {
				t.Errorf("certify %v: no %q in the output:\n%s", tc.args, want, s)
			}
		}
		for _, want := range []string{"paper: first certified step: T = 0", "lyapunov: first certified step: T = 0"} {
			if !strings.Contains(s, want) {
				t.Errorf("certify %v: no %q in the output:\n%s", tc.args, want, s)
			}
		}
		rows := 0
		for _, line := range strings.Split(s, "\n") {
			if f := strings.Fields(line); len(f) >= 7 && (f[0] == "0" || f[0] == "1" || f[0] == "2") {
				rows++
			}
		}
		if rows != 3 {
			t.Errorf("certify %v: %d step rows, want 3 with --all:\n%s", tc.args, rows, s)
		}
	}
	errb.Reset()
	if code := Main([]string{"certify", "--params", dir, "--L", "-1"}, &out, &errb); code != 2 {
		t.Errorf("certify --L -1: exit %d, want 2", code)
	}
	if code := Main([]string{"certify", "--params", dir, "--steps", "3"}, &out, &errb); code != 2 {
		t.Errorf("certify --steps 3 of a 3-step checkpoint: exit %d, want 2", code)
	}
}

// TestCertifyStepsMatchesAll checks that --steps certifies the chosen steps
// with the numbers --all prints for them, and no other step.
func TestCertifyStepsMatchesAll(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mpc")
	var out, errb bytes.Buffer
	args := []string{"train", "greedy", "--param", "m-pc", "--size", "16", "--n-train", "2", "--max-steps", "3",
		"--out", dir}
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("train greedy: exit %d: %s", code, errb.String())
	}
	rows := func(args ...string) map[string]string {
		out.Reset()
		if code := Main(append([]string{"certify", "--params", dir}, args...), &out, &errb); code != 0 {
			t.Fatalf("certify %v: exit %d: %s", args, code, errb.String())
		}
		m := map[string]string{}
		for _, line := range strings.Split(out.String(), "\n") {
			if f := strings.Fields(line); len(f) >= 7 && (f[0] == "0" || f[0] == "1" || f[0] == "2") {
				m[f[0]] = line
			}
		}
		return m
	}
	all, some := rows("--all"), rows("--steps", "2,0")
	if len(some) != 2 || some["1"] != "" {
		t.Fatalf("--steps 2,0 printed steps %v, want 0 and 2", some)
	}
	for _, step := range []string{"0", "2"} {
		if some[step] != all[step] {
			t.Errorf("step %s: --steps prints\n%s\n--all prints\n%s", step, some[step], all[step])
		}
	}
	if !strings.Contains(out.String(), "of steps [0 2]") {
		t.Errorf("the summary does not say which steps it looked at:\n%s", out.String())
	}
}

// TestCertifyOperatorAware: certify rebuilds the operator an npoly
// checkpoint's norms depend on (its problem at its size and conventions);
// a checkpoint trained on a family of operators needs --blur-sigma (exit 2
// naming it without), and two widths give two certificates.
func TestCertifyOperatorAware(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(args, &out, &errb)
		return code, out.String(), errb.String()
	}
	train := []string{"train", "greedy", "--size", "12", "--n-train", "2", "--param", "m-npoly2", "--max-steps", "2", "--lambda", "1e-3", "--mu", "1e-3"}
	if code, _, e := run(append(train, "--out", filepath.Join(dir, "one"))...); code != 0 {
		t.Fatalf("train m-npoly2: exit %d: %s", code, e)
	}
	if code, _, e := run(append(train, "--blur-sigma", "1:2", "--out", filepath.Join(dir, "fam"))...); code != 0 {
		t.Fatalf("train m-npoly2 --blur-sigma 1:2: exit %d: %s", code, e)
	}
	code, out, e := run("certify", "--params", filepath.Join(dir, "one"))
	if code != 0 || !strings.Contains(out, "certified with") || !strings.Contains(out, "gauss5-1.5") {
		t.Fatalf("certify m-npoly2: exit %d: %s%s", code, out, e)
	}
	if code, _, e := run("certify", "--params", filepath.Join(dir, "fam")); code != 2 || !strings.Contains(e, "--blur-sigma") {
		t.Errorf("certify of a family-trained m-npoly2: exit %d: %s", code, e)
	}
	_, at1, _ := run("certify", "--params", filepath.Join(dir, "fam"), "--blur-sigma", "1")
	_, at2, _ := run("certify", "--params", filepath.Join(dir, "fam"), "--blur-sigma", "2")
	last := func(s string) string {
		lines := strings.Split(strings.TrimSpace(s), "\n")
		for i := len(lines) - 1; i >= 0; i-- {
			if f := strings.Fields(lines[i]); len(f) > 1 && f[0] == "1" {
				return lines[i]
			}
		}
		return ""
	}
	if last(at1) == "" || last(at1) == last(at2) {
		t.Errorf("the certificates at σ = 1 and 2 do not differ:\n%s\n%s", at1, at2)
	}
}

package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/eval"
)

// eval and apply take --safeguard decrease|bgd (a list for eval), a bare
// --safeguard meaning today's rule; the BGD copy's curve records acceptance
// rates, and eval prints them. An unknown rule is a usage error.
func TestEvalSafeguardRules(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(args, &out, &errb)
		return code, out.String(), errb.String()
	}
	if code, _, stderr := run("train", "greedy", "--param", "m-ps", "--size", "12", "--n-train", "3", "--max-steps", "3", "--out", dir); code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	cache := t.TempDir()
	evalArgs := func(out string, extra ...string) []string {
		return append([]string{"eval", "--params", dir, "--methods", "gd", "--n-test", "2", "--iters", "12",
			"--fstar-iters", "50", "--fstar-method", "lbfgs", "--cache", cache, "--out", out}, extra...)
	}
	read := func(out string) []*eval.Curve { return readCurvesJSON(t, out) }
	names := func(curves []*eval.Curve) []string {
		var n []string
		for _, c := range curves {
			n = append(n, c.Method)
		}
		return n
	}

	out := filepath.Join(t.TempDir(), "bgd")
	code, stdout, stderr := run(evalArgs(out, "--safeguard", "bgd")...)
	if code != 0 {
		t.Fatalf("eval --safeguard bgd: exit %d: %s", code, stderr)
	}
	curves := read(out)
	if want := []string{"greedy m-ps", "greedy m-ps (safeguarded bgd)", "gd"}; !reflect.DeepEqual(names(curves), want) {
		t.Fatalf("curves %v, want %v", names(curves), want)
	}
	c := curves[1]
	if len(c.Accepted) != 13 || curves[0].Accepted != nil || curves[2].Accepted != nil {
		t.Fatalf("acceptance rates: %v (unguarded %v, gd %v)", c.Accepted, curves[0].Accepted, curves[2].Accepted)
	}
	if !strings.Contains(stdout, "greedy m-ps (safeguarded bgd): the safeguard replaced") || !strings.Contains(stdout, "Learned steps accepted at iterations 1, 10, 12: ") {
		t.Errorf("eval does not print the acceptance rates:\n%s", stdout)
	}
	csvb, err := os.ReadFile(filepath.Join(out, "curves.csv"))
	body := string(csvb)
	if !strings.HasPrefix(body, "# command: l2o eval ") {
		t.Errorf("curves.csv does not start with its provenance:\n%.200s", body)
	}
	for strings.HasPrefix(body, "#") {
		_, body, _ = strings.Cut(body, "\n")
	}
	if err != nil || !strings.HasPrefix(body, "method,iter,seconds,mean,min,max,setting,status,accepted\n") {
		t.Errorf("curves.csv has no accepted column (%v)", err)
	}
	// While the BGD safeguard accepts every step its curve is the unguarded one.
	for i := 1; i < len(c.Iter) && c.Accepted[i] == 1; i++ {
		if !reflect.DeepEqual(c.F[i], curves[0].F[i]) {
			t.Errorf("iteration %d: every step accepted, yet f %v differs from the unguarded %v", i, c.F[i], curves[0].F[i])
		}
	}
	// A bare --safeguard (before another flag or last) is today's rule; a
	// list evaluates both.
	for _, extra := range [][]string{{"--safeguard"}, {"--safeguard", "--iters", "12"}, {"--safeguard=decrease"}, {"--safeguard", "true"}} {
		out := filepath.Join(t.TempDir(), "dec")
		if code, _, stderr := run(evalArgs(out, extra...)...); code != 0 {
			t.Fatalf("eval %v: exit %d: %s", extra, code, stderr)
		}
		if want := []string{"greedy m-ps", "greedy m-ps (safeguarded)", "gd"}; !reflect.DeepEqual(names(read(out)), want) {
			t.Errorf("eval %v: curves %v, want %v", extra, names(read(out)), want)
		}
	}
	out = filepath.Join(t.TempDir(), "both")
	if code, _, stderr := run(evalArgs(out, "--safeguard", "decrease,bgd")...); code != 0 {
		t.Fatalf("eval --safeguard decrease,bgd: exit %d: %s", code, stderr)
	}
	if want := []string{"greedy m-ps", "greedy m-ps (safeguarded)", "greedy m-ps (safeguarded bgd)", "gd"}; !reflect.DeepEqual(names(read(out)), want) {
		t.Errorf("curves %v, want %v", names(read(out)), want)
	}
	out = filepath.Join(t.TempDir(), "none")
	if code, _, stderr := run(evalArgs(out, "--safeguard", "none")...); code != 0 {
		t.Fatalf("eval --safeguard none: exit %d: %s", code, stderr)
	}
	if want := []string{"greedy m-ps", "gd"}; !reflect.DeepEqual(names(read(out)), want) {
		t.Errorf("--safeguard none: curves %v, want %v", names(read(out)), want)
	}

	code, stdout, stderr = run("apply", "--params", dir, "--n-test", "2", "--iters", "12", "--safeguard", "bgd")
	if code != 0 || !strings.Contains(stdout, "(safeguarded bgd)") || !strings.Contains(stdout, "the safeguard (bgd) replaced") || !strings.Contains(stdout, "learned steps accepted at iterations 1, 10, 12: ") {
		t.Errorf("apply --safeguard bgd: exit %d: %s%s", code, stdout, stderr)
	}
	for _, bad := range [][]string{
		evalArgs(t.TempDir(), "--safeguard", "bogus"),
		evalArgs(t.TempDir(), "--safeguard=bgd,bogus"),
		{"apply", "--params", dir, "--n-test", "2", "--safeguard", "bogus"},
		{"apply", "--params", dir, "--n-test", "2", "--safeguard", "decrease,bgd"},
	} {
		if code, _, _ := run(bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad[len(bad)-2:], code)
		}
	}
}

func TestOptionalValue(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"--safeguard", "bgd", "--iters", "3"}, []string{"--safeguard=bgd", "--iters", "3"}},
		{[]string{"--safeguard", "--iters", "3"}, []string{"--safeguard", "--iters", "3"}},
		{[]string{"--iters", "3", "--safeguard"}, []string{"--iters", "3", "--safeguard"}},
		{[]string{"--", "--safeguard", "bgd"}, []string{"--", "--safeguard", "bgd"}},
	} {
		if got := optionalValue(c.in, "safeguard"); !reflect.DeepEqual(got, c.want) {
			t.Errorf("optionalValue(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

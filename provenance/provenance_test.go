package provenance

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCommandLineQuotesForTheShell checks that a POSIX shell reads the
// recorded command line back as the same arguments.
func TestCommandLineQuotesForTheShell(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to read the command line back")
	}
	args := []string{"eval", "--params", "runs/a b,runs/c", "--out", "it's", "--shift", "sigma=1", "", "$HOME", "x;y", `a"b`, "ünï"}
	line := CommandLine(args)
	script := "set -- " + strings.TrimPrefix(line, "l2o ") + `; for a in "$@"; do printf '%s|' "$a"; done`
	got, err := exec.Command(sh, "-c", script).Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(args, "|") + "|"; string(got) != want {
		t.Errorf("the shell reads %q back as %q, want %q", line, got, want)
	}
}

// TestContinuedKeepsTheOriginal checks that a resume keeps the first run's
// record and appends its own invocation.
func TestContinuedKeepsTheOriginal(t *testing.T) {
	first := &Record{Invocation: Invocation{Command: "l2o train greedy", Time: "t0"}}
	second := &Record{Invocation: Invocation{Command: "l2o train greedy --resume", Time: "t1"}}
	third := &Record{Invocation: Invocation{Command: "l2o train greedy --resume", Time: "t2"}}
	r := Continued(Continued(first, second), third)
	if r.Command != "l2o train greedy" || len(r.Resumed) != 2 || r.Resumed[0].Time != "t1" || r.Resumed[1].Time != "t2" {
		t.Errorf("continued record %+v", r)
	}
	if len(first.Resumed) != 0 {
		t.Error("Continued changed the checkpoint's record")
	}
	if Continued(nil, second) != second {
		t.Error("a checkpoint without a record does not take the resuming run's")
	}
}

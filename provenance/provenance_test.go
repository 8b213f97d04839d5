package provenance

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
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

// TestModifiedDataOnly checks, in a scratch checkout, that a tree whose only
// changes are a carried run's files and docs is told apart from one whose
// code changed, and that a checkout at another revision is not vouched for.
func TestModifiedDataOnly(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed:", err)
	}
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	const module = "example.com/m"
	write("go.mod", "module "+module+"\n")
	write("main.go", "package main\n")
	write("runs/x/m-pc.log", "step 1\n")
	write("docs/a.md", "a\n")
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "first")
	head := git("rev-parse", "HEAD")
	t.Chdir(dir)

	if modifiedDataOnly(module, head) {
		t.Error("a clean tree is reported as modified in data only")
	}
	write("runs/x/m-pc.log", "step 1\nstep 2\n")
	write("docs/a.md", "b\n")
	if !modifiedDataOnly(module, head) {
		t.Error("a tree with only runs/ and docs/ changed is not reported as data only")
	}
	if modifiedDataOnly(module, "0123456789abcdef0123456789abcdef01234567") {
		t.Error("a checkout at another revision is vouched for")
	}
	if modifiedDataOnly("example.com/other", head) {
		t.Error("a checkout of another module is vouched for")
	}
	write("main.go", "package main\n\nfunc main() {}\n")
	if modifiedDataOnly(module, head) {
		t.Error("a tree with a changed Go file is reported as data only")
	}
}

// TestLibraryUse: a program that imports greedyl2o records itself and the
// greedyl2o module it was built with; greedyl2o's own builds record neither.
func TestLibraryUse(t *testing.T) {
	own := &debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"}}
	if p, l := libraryUse(own); p != "" || l != "" {
		t.Errorf("greedyl2o's own build: program %q, library %q; want none", p, l)
	}
	other := &debug.BuildInfo{Main: debug.Module{Path: "example.com/lab/l2o-lab", Version: "v0.2.0"},
		Deps: []*debug.Module{{Path: "gonum.org/v1/gonum", Version: "v0.17.0"},
			{Path: modulePath, Version: "v0.0.0-20261128101500-640fc34a1b2c"}}}
	p, l := libraryUse(other)
	if p != "example.com/lab/l2o-lab" || l != "v0.0.0-20261128101500-640fc34a1b2c" {
		t.Errorf("program %q, library %q", p, l)
	}
	b := Build{Version: "v0.2.0", Revision: "abc", Program: p, Library: l}
	if got, want := b.String(), "v0.2.0 abc of example.com/lab/l2o-lab, built with greedyl2o v0.0.0-20261128101500-640fc34a1b2c"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	other.Deps[1].Replace = &debug.Module{Path: "../greedyl2o"}
	if _, l := libraryUse(other); l != "v0.0.0-20261128101500-640fc34a1b2c => ../greedyl2o" {
		t.Errorf("replaced: library %q", l)
	}
}

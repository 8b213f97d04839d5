package provenance

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/greedyl2o/greedyl2o/data"
)

// Build identifies the l2o binary.
type Build struct {
	// Version is the main module's version ("(devel)" for a build from a
	// working tree), Revision the VCS revision it was built from ("" when
	// the build has no VCS information, as under go test or go run), and
	// Modified whether the working tree had uncommitted changes.
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	// RevisionFrom says where Revision was read: "binary" (its VCS stamp)
	// or "working tree" (a binary without a stamp, run inside a git
	// checkout of this module, as `go run ./cmd/l2o` is).
	RevisionFrom string `json:"revision_from,omitempty"`
	// DataOnly is set when Modified is and every tracked file that differs
	// from Revision, read in the checkout around the working directory when
	// the command ran, lies outside what the build reads: run outputs and
	// carried checkpoints (runs/) or documentation (docs/, *.md). A
	// training carried in the repository makes the tree "modified" while
	// the code is the commit's; this keeps the two apart. It is read at run
	// time, not build time: a binary built from edited code that was then
	// reverted is not caught (build with make build from a clean tree).
	DataOnly bool   `json:"modified_data_only,omitempty"`
	Go       string `json:"go"`
	// Program is the main module's path when it is not greedyl2o: a program
	// that uses greedyl2o as a library (to register a family, say) and runs
	// its command line; Version and Revision are then that program's.
	// Library is the greedyl2o module version it was built with (a
	// pseudo-version names the revision), with "=> PATH" for a replace.
	Program string `json:"program,omitempty"`
	Library string `json:"greedyl2o_module,omitempty"`
}

// modulePath is this module's path.
const modulePath = "github.com/greedyl2o/greedyl2o"

// libraryUse returns the main module's path and the greedyl2o module it
// was built with when the main module is another program ("", "" for
// greedyl2o's own binaries and tests).
func libraryUse(info *debug.BuildInfo) (program, library string) {
	if info.Main.Path == modulePath || info.Main.Path == "" {
		return "", ""
	}
	library = "(not a dependency)"
	for _, d := range info.Deps {
		if d.Path != modulePath {
			continue
		}
		library = d.Version
		if d.Replace != nil {
			library += " => " + d.Replace.Path
			if d.Replace.Version != "" {
				library += " " + d.Replace.Version
			}
		}
	}
	return info.Main.Path, library
}

// String is "version revision[+modified]" or "version (no VCS information)",
// followed for another program by "of PROGRAM, built with greedyl2o VERSION".
func (b Build) String() string {
	s := b.revision()
	if b.Program != "" {
		s += " of " + b.Program + ", built with greedyl2o " + b.Library
	}
	return s
}

func (b Build) revision() string {
	if b.Revision == "" {
		return b.Version + " (no VCS revision: the binary has no stamp and ran outside a checkout)"
	}
	s := b.Version + " " + b.Revision
	if b.Modified {
		s += "+modified"
		if b.DataOnly {
			s += " (runs/ and docs only, at run time)"
		}
	}
	if b.RevisionFrom == "working tree" {
		s += " (the working tree's)"
	}
	return s
}

// Machine describes the computer a run used.
type Machine struct {
	CPU        string `json:"cpu"`
	Cores      int    `json:"cores"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
}

// Invocation is one run of a command.
type Invocation struct {
	Command string `json:"command"`
	// Args are the command's arguments after the program name, unquoted
	// (a resume re-reads them: l2o train greedy --out DIR --resume).
	Args    []string `json:"args,omitempty"`
	Build   Build    `json:"build"`
	Time    string   `json:"time_utc"`
	Machine Machine  `json:"machine"`
}

// Checkpoint names a trained optimizer an output used.
type Checkpoint struct {
	Label string `json:"label"`
	Path  string `json:"path"`
	// ManifestSHA256 is the SHA-256 of the manifest as it was read, T the
	// learned steps it listed then (a checkpoint still training lists more
	// later).
	ManifestSHA256 string `json:"manifest_sha256"`
	T              int    `json:"T"`
	// Training is set when a run held the checkpoint's lock (was training
	// it) while it was read.
	Training bool `json:"training_when_read,omitempty"`
	// Precision is the arithmetic it was trained in where not float64
	// (learned steps are applied in the evaluation's own).
	Precision string `json:"trained_precision,omitempty"`
}

// Test describes the functions an evaluation ran on.
type Test struct {
	Source      string     `json:"source"`
	Layout      string     `json:"layout"`
	Set         string     `json:"set"` // "test" (held out) or "train"
	Seed        int64      `json:"seed"`
	Noise       float64    `json:"noise"`
	NoiseSeed   uint64     `json:"noise_seed"`
	Fingerprint string     `json:"fingerprint"`
	Images      []data.Ref `json:"images"`
	// Skipped counts candidate test images left out because their content
	// equals a training image's.
	Skipped int `json:"skipped_as_training,omitempty"`
	// Note says when the data differ from the training data.
	Note string `json:"note,omitempty"`
}

// Record is the provenance of one output.
type Record struct {
	Invocation
	// Resumed lists the later invocations that continued a checkpoint.
	Resumed []Invocation `json:"resumed,omitempty"`
	// Shards lists the runs whose shards of the functions a merge joined
	// (l2o curves merge), in shard order.
	Shards []Invocation `json:"shards,omitempty"`
	// Data is the training split (checkpoints); Test the evaluated
	// functions (curves).
	Data *data.Record `json:"data,omitempty"`
	Test *Test        `json:"test,omitempty"`
	// FStar is how f* was estimated ("nag(iters=2000)").
	FStar       string       `json:"fstar,omitempty"`
	Checkpoints []Checkpoint `json:"checkpoints,omitempty"`
}

// Here returns the invocation of this process as the command args (without
// the program name, which is written as "l2o").
func Here(args []string) Invocation {
	return Invocation{
		Command: CommandLine(args),
		Args:    append([]string(nil), args...),
		Build:   ReadBuild(),
		Time:    time.Now().UTC().Format(time.RFC3339),
		Machine: ThisMachine(),
	}
}

// CommandLine quotes args for a POSIX shell after "l2o".
func CommandLine(args []string) string {
	parts := []string{"l2o"}
	for _, a := range args {
		parts = append(parts, quote(a))
	}
	return strings.Join(parts, " ")
}

func quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == ',' || r == ':' || r == '=' || r == '+' ||
			r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ReadBuild reads the binary's build information.
func ReadBuild() Build {
	b := Build{Version: "unknown", Go: runtime.Version()}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	b.Version = info.Main.Version
	if b.Version == "" {
		b.Version = "(devel)"
	}
	b.Program, b.Library = libraryUse(info)
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision, b.RevisionFrom = s.Value, "binary"
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	if b.Revision == "" {
		b.Revision, b.Modified = workingTreeRevision(info.Main.Path)
		if b.Revision != "" {
			b.RevisionFrom = "working tree"
		}
	}
	if b.Modified {
		b.DataOnly = modifiedDataOnly(info.Main.Path, b.Revision)
	}
	return b
}

// modifiedDataOnly reports whether the git checkout of module around the
// working directory is at revision and every tracked file that differs
// from it is data or documentation (dataPath).
func modifiedDataOnly(module, revision string) bool {
	top := checkoutOf(module)
	if top == "" || gitOut(top, "rev-parse", "HEAD") != revision {
		return false
	}
	out, err := exec.Command("git", "-C", top, "diff", "--name-only", "-z", "HEAD").Output()
	if err != nil {
		return false
	}
	paths := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	if len(paths) == 0 || paths[0] == "" {
		return false
	}
	for _, p := range paths {
		if !dataPath(p) {
			return false
		}
	}
	return true
}

// dataPath reports whether a repository path is outside what the build
// reads: run outputs (runs/), documentation (docs/, *.md).
func dataPath(p string) bool {
	return strings.HasPrefix(p, "runs/") || strings.HasPrefix(p, "docs/") || strings.HasSuffix(p, ".md")
}

// workingTreeRevision returns the commit and dirtiness of the git checkout
// around the working directory when it is a checkout of module, or "".
func workingTreeRevision(module string) (string, bool) {
	top := checkoutOf(module)
	if top == "" {
		return "", false
	}
	return gitOut(top, "rev-parse", "HEAD"), gitOut(top, "status", "--porcelain", "--untracked-files=no") != ""
}

// checkoutOf returns the top of the git checkout around the working
// directory when it is a checkout of module, or "".
func checkoutOf(module string) string {
	top := gitOut(".", "rev-parse", "--show-toplevel")
	if top == "" || module == "" {
		return ""
	}
	mod, err := os.ReadFile(filepath.Join(top, "go.mod"))
	if err != nil || !strings.Contains(string(mod), "module "+module+"\n") {
		return ""
	}
	return top
}

// gitOut runs git in dir and returns its trimmed output, or "" on an error.
func gitOut(dir string, args ...string) string {
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// ThisMachine describes the machine this process runs on.
func ThisMachine() Machine {
	return Machine{CPU: cpuModel(), Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), OS: runtime.GOOS, Arch: runtime.GOARCH}
}

// cpuModel reads the CPU's model name (Linux), or returns the architecture.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

// FileSHA256 returns the SHA-256 (hex) of a file's content.
func FileSHA256(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:]), nil
}

// CheckpointOf names the checkpoint directory dir by the SHA-256 of the
// manifest file in it (manifest.json, or the first of names that exists).
func CheckpointOf(label, dir string, names ...string) (Checkpoint, error) {
	if len(names) == 0 {
		names = []string{"manifest.json"}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	for _, n := range names {
		if sum, err := FileSHA256(filepath.Join(dir, n)); err == nil {
			return Checkpoint{Label: label, Path: abs, ManifestSHA256: sum}, nil
		}
	}
	return Checkpoint{}, fmt.Errorf("provenance: %s has none of %s", dir, strings.Join(names, ", "))
}

// Lines returns the record in a few human lines (for `l2o runs show` and
// CSV header comments).
func (r *Record) Lines() []string {
	out := []string{
		"command: " + r.Command,
		"l2o:     " + r.Build.String() + ", " + r.Build.Go,
		fmt.Sprintf("run:     %s on %s (%d cores, GOMAXPROCS %d, %s/%s)", r.Time, r.Machine.CPU, r.Machine.Cores, r.Machine.GOMAXPROCS, r.Machine.OS, r.Machine.Arch),
	}
	for _, inv := range r.Resumed {
		out = append(out, fmt.Sprintf("resumed: %s by %s (%s)", inv.Time, inv.Command, inv.Build))
	}
	for _, inv := range r.Shards {
		out = append(out, fmt.Sprintf("shard:   %s by %s (%s)", inv.Time, inv.Command, inv.Build))
	}
	if d := r.Data; d != nil {
		out = append(out, fmt.Sprintf("data:    %s (%s, seed %d): %d training images%s, fingerprint %.16s…; noise %g (seed %d)",
			d.Source, d.Layout, d.Seed, d.NTrain, valNote(d.NVal), d.Fingerprint, d.Noise, d.NoiseSeed))
	}
	if t := r.Test; t != nil {
		out = append(out, fmt.Sprintf("tested:  %s set of %s (%s, seed %d): %d images, fingerprint %.16s…; noise %g (seed %d)",
			t.Set, t.Source, t.Layout, t.Seed, len(t.Images), t.Fingerprint, t.Noise, t.NoiseSeed))
		if t.Note != "" {
			out = append(out, "         "+t.Note)
		}
	}
	if r.FStar != "" {
		out = append(out, "f*:      "+r.FStar)
	}
	for _, c := range r.Checkpoints {
		trained := ""
		if c.Precision != "" {
			trained = ", trained in " + c.Precision
		}
		if c.Training {
			trained += ", read while it was being trained"
		}
		out = append(out, fmt.Sprintf("learned: %s from %s (T = %d, manifest sha256 %.16s…%s)", c.Label, c.Path, c.T, c.ManifestSHA256, trained))
	}
	return out
}

func valNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (the last %d for validation)", n)
}

// Continued returns the record of a checkpoint continued by the invocation
// of cur: old's record with cur's invocation appended to Resumed; cur when
// the checkpoint has none (written by an older l2o); nil when both are nil.
func Continued(old, cur *Record) *Record {
	if old == nil {
		return cur
	}
	r := *old
	if cur != nil {
		r.Resumed = append(append([]Invocation(nil), old.Resumed...), cur.Invocation)
	}
	return &r
}

package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/eval"
)

// build compiles l2o (with the go tool's tags) into dir and returns its path.
func build(t *testing.T, dir, name string, tags ...string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go tool is not on PATH: the deployment tests build l2o")
	}
	out := filepath.Join(dir, name)
	args := []string{"build", "-o", out}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.Command("go", append(args, "../cmd/l2o")...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	return out
}

// run runs a command with the environment extra added, failing on error.
func run(t *testing.T, extra map[string]string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = os.Environ()
	for k, v := range extra {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s (%v): %v\n%s", name, strings.Join(args, " "), extra, err, b)
	}
	return string(b)
}

// values returns the curves of dir/curves.json without their times.
func values(t *testing.T, dir string) string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "curves.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	curves, err := eval.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range curves {
		c.Seconds = make([]float64, len(c.Seconds))
	}
	var b bytes.Buffer
	if err := eval.WriteJSON(&b, curves); err != nil {
		t.Fatal(err)
	}
	var file struct{ Curves json.RawMessage }
	if err := json.Unmarshal(b.Bytes(), &file); err != nil {
		t.Fatal(err)
	}
	return string(file.Curves)
}

// fixture trains a small checkpoint and evaluates it on one process: the
// reference every split run must equal.
type fixture struct {
	tmp, l2o, params, want string
	evalArgs               string
	l2oMPI                 string // built by mpiBinary
}

// mpiBinary returns l2o built with the mpi tag (once), skipping the test
// without Open MPI.
func (f *fixture) mpiBinary(t *testing.T) string {
	t.Helper()
	mpiAvailable(t)
	if f.l2oMPI == "" {
		f.l2oMPI = build(t, f.tmp, "l2o-mpi", "mpi")
	}
	return f.l2oMPI
}

var (
	shared    *fixture
	sharedErr string
)

// newFixture returns the fixture, made by the first test that asks.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	if shared == nil && sharedErr == "" {
		sharedErr = "the fixture failed in an earlier test"
		shared = makeFixture(t)
		sharedErr = ""
	}
	if shared == nil {
		t.Fatal(sharedErr)
	}
	return shared
}

func makeFixture(t *testing.T) *fixture {
	tmp, err := os.MkdirTemp("", "l2o-deploy-")
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{tmp: tmp, l2o: build(t, tmp, "l2o"), params: filepath.Join(tmp, "ck")}
	run(t, nil, f.l2o, "train", "greedy", "--param", "m-pc", "--size", "12", "--n-train", "3", "--max-steps", "2", "--out", f.params)
	f.evalArgs = "--safeguard --methods gd,lbfgs --n-test 7 --iters 6 --fstar-iters 30 --cache " + filepath.Join(tmp, "cache")
	whole := filepath.Join(tmp, "whole")
	run(t, nil, f.l2o, append(append([]string{"eval", "--params", f.params}, strings.Fields(f.evalArgs)...), "--out", whole)...)
	f.want = values(t, whole)
	return f
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		os.RemoveAll(shared.tmp)
	}
	os.Exit(code)
}

func (f *fixture) merge(t *testing.T, out string, shards ...string) {
	t.Helper()
	run(t, nil, f.l2o, append([]string{"curves", "merge", "--out", out}, shards...)...)
	if values(t, out) != f.want {
		t.Errorf("%s: the merged curves differ from one eval's", out)
	}
}

// TestSlurmArray runs slurm-array.sbatch as the tasks of --array=3-7:2
// would (three tasks), then merges their folders.
func TestSlurmArray(t *testing.T) {
	f := newFixture(t)
	out := filepath.Join(t.TempDir(), "array")
	var shards []string
	for _, id := range []string{"3", "5", "7"} {
		run(t, map[string]string{"L2O": f.l2o, "PARAMS": f.params, "OUT": out, "EVAL_ARGS": f.evalArgs,
			"SLURM_ARRAY_TASK_ID": id, "SLURM_ARRAY_TASK_MIN": "3", "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_CPUS_PER_TASK": "1"},
			"bash", "slurm-array.sbatch")
		shards = append(shards, filepath.Join(out, "shard-"+id))
	}
	f.merge(t, filepath.Join(t.TempDir(), "merged"), shards...)
}

// TestKubernetesIndexedJob runs the container script of
// k8s-indexed-job.yaml once for every completion index, then merges; the
// manifest's shard count must be its completions.
func TestKubernetesIndexedJob(t *testing.T) {
	b, err := os.ReadFile("k8s-indexed-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	manifest := string(b)
	m := regexp.MustCompile(`(?m)^  completions: (\d+)$`).FindStringSubmatch(manifest)
	s := regexp.MustCompile(`--shard indexed/(\d+)`).FindStringSubmatch(manifest)
	if m == nil || s == nil || m[1] != s[1] {
		t.Fatalf("the manifest's completions (%v) and --shard indexed/N (%v) must agree", m, s)
	}
	script := containerScript(t, manifest)
	f := newFixture(t)
	bin := filepath.Dir(f.l2o)
	results := filepath.Join(t.TempDir(), "results")
	var completions int
	fmt.Sscan(m[1], &completions)
	var shards []string
	for i := range completions {
		run(t, map[string]string{"PATH": bin + string(os.PathListSeparator) + os.Getenv("PATH"), "PARAMS": f.params, "EVAL_ARGS": f.evalArgs,
			"RESULTS": results, "JOB_COMPLETION_INDEX": fmt.Sprint(i)}, "/bin/sh", "-c", script)
		shards = append(shards, filepath.Join(results, fmt.Sprintf("shard-%d", i)))
	}
	f.merge(t, filepath.Join(t.TempDir(), "merged"), shards...)
}

// containerScript returns the block under the container's args: "- |".
func containerScript(t *testing.T, manifest string) string {
	lines := strings.Split(manifest, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "- |" {
			continue
		}
		indent := -1
		var body []string
		for _, b := range lines[i+1:] {
			n := len(b) - len(strings.TrimLeft(b, " "))
			if indent < 0 {
				indent = n
			}
			if strings.TrimSpace(b) != "" && n < indent {
				break
			}
			body = append(body, strings.TrimPrefix(b, strings.Repeat(" ", indent)))
		}
		return strings.Join(body, "\n")
	}
	t.Fatal("k8s-indexed-job.yaml has no script block (args: - |)")
	return ""
}

// mpiAvailable skips the test without Open MPI (mpirun and its headers).
func mpiAvailable(t *testing.T) {
	if _, err := exec.LookPath("mpirun"); err != nil {
		t.Skip("no mpirun: install Debian's openmpi-bin and libopenmpi-dev (.ci/run does)")
	}
	if err := exec.Command("pkg-config", "--exists", "ompi").Run(); err != nil {
		t.Skip("no Open MPI headers (pkg-config ompi): install Debian's libopenmpi-dev (.ci/run does)")
	}
}

// asRoot lets mpirun run as root (CI's containers).
var asRoot = map[string]string{"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}

// TestSlurmMPI runs slurm-mpi.sbatch as a job of 3 tasks would, and
// mpirun -np 1 and 2 directly: every run's curves equal one process's.
func TestSlurmMPI(t *testing.T) {
	f := newFixture(t)
	tmp := t.TempDir()
	l2oMPI := f.mpiBinary(t)
	env := map[string]string{"L2O_MPI": l2oMPI, "PARAMS": f.params, "EVAL_ARGS": f.evalArgs, "MPIRUN_FLAGS": "--oversubscribe",
		"OUT": filepath.Join(tmp, "np3"), "SLURM_NTASKS": "3", "SLURM_CPUS_PER_TASK": "1"}
	for k, v := range asRoot {
		env[k] = v
	}
	run(t, env, "bash", "slurm-mpi.sbatch")
	if values(t, env["OUT"]) != f.want {
		t.Error("mpirun -np 3 (slurm-mpi.sbatch): curves differ from one process's")
	}
	for _, np := range []string{"1", "2"} {
		out := filepath.Join(tmp, "np"+np)
		log := run(t, asRoot, "mpirun", append(append([]string{"--oversubscribe", "-np", np, l2oMPI, "eval", "--params", f.params}, strings.Fields(f.evalArgs)...), "--out", out)...)
		checkTestReads(t, log, "eval", np, 3, 7)
		if values(t, out) != f.want {
			t.Errorf("mpirun -np %s: curves differ from one process's", np)
		}
	}
}

// TestApplyUnderMPI: mpirun -np 2 and 3 bin/l2o-mpi apply print the rows
// and the safeguard's counts one process prints and save the same iterates
// byte for byte.
func TestApplyUnderMPI(t *testing.T) {
	f := newFixture(t)
	tmp := t.TempDir()
	l2oMPI := f.mpiBinary(t)
	args := func(out string) []string {
		return []string{"apply", "--params", f.params, "--safeguard", "--n-test", "7", "--iters", "12", "--save-at", "5,final", "--out", out}
	}
	one := filepath.Join(tmp, "one")
	want := strings.ReplaceAll(run(t, nil, f.l2o, args(one)...), one, "OUT")
	for _, np := range []string{"2", "3"} {
		out := filepath.Join(tmp, "np"+np)
		log := run(t, asRoot, "mpirun", append([]string{"--oversubscribe", "-np", np, l2oMPI}, args(out)...)...)
		checkTestReads(t, log, "apply", np, 3, 7)
		got := strings.ReplaceAll(withoutRankNotes(log), out, "OUT")
		if got != want {
			t.Errorf("mpirun -np %s apply printed\n%s\nwant\n%s", np, got, want)
		}
		for _, file := range []string{"x_t0005.npy", "x_t0012.npy", "saved.json"} {
			a, err1 := os.ReadFile(filepath.Join(one, file))
			b, err2 := os.ReadFile(filepath.Join(out, file))
			if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
				t.Errorf("mpirun -np %s apply: %s differs from one process's (%v, %v)", np, file, err1, err2)
			}
		}
	}
}

// TestMPIRefusals: under mpirun -np 2, l2o without MPI, a command that does
// not split its work, --shard beside the ranks' split
// and more ranks than test functions all end the job with a non-zero status
// and a message saying why, on every rank.
func TestMPIRefusals(t *testing.T) {
	f := newFixture(t)
	l2oMPI := f.mpiBinary(t)
	out := filepath.Join(t.TempDir(), "e")
	eval := append(append([]string{"eval", "--params", f.params}, strings.Fields(f.evalArgs)...), "--out", out)
	for name, tc := range map[string]struct {
		np   string
		args []string
		want string
	}{
		"no MPI":  {"2", append([]string{f.l2o}, eval...), "this l2o has no MPI"},
		"certify": {"2", []string{l2oMPI, "certify", "--params", f.params}, "does not split its work over MPI ranks"},
		"shard":   {"2", append(append([]string{l2oMPI}, eval...), "--shard", "1/2"), "the ranks split the functions already"},
		"ranks":   {"3", append(append([]string{l2oMPI}, eval...), "--n-test", "2"), "3 shards of 2 test functions"},
	} {
		cmd := exec.Command("mpirun", append([]string{"--oversubscribe", "-np", tc.np}, tc.args...)...)
		cmd.Env = os.Environ()
		for k, v := range asRoot {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		b, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(b), tc.want) {
			t.Errorf("%s: %v, output\n%s\nwant a failure saying %q", name, err, b, tc.want)
		}
	}
}

// TestTrainUnderMPI: mpirun -np 1, 2 and 3 bin/l2o-mpi train greedy (M-PC on
// 7 deblurring functions and 2 validation functions; M-PC on 9 ct-small
// functions and 5 validation functions, whose projector applies images in
// groups of 4, so that each rank holds whole groups; two penalty scales
// chosen on the validation functions; a family of blurs and weights)
// writes every .npy of the checkpoint (the validation iterates included)
// byte for byte as the plain l2o does, and the same hashes of the images
// and observations and names of the operators and weights, each rank
// having built and held only its block of the training and of the
// validation functions (under -np 3 the last rank holds no validation
// function of ct-small).
func TestTrainUnderMPI(t *testing.T) {
	f := newFixture(t)
	l2oMPI := f.mpiBinary(t)
	tmp := t.TempDir()
	for i, problem := range [][]string{
		{"--size", "12", "--n-train", "7", "--n-val", "2", "--weight-scales", "1,0.1"},
		{"--problem", "ct-small", "--data", "synthetic", "--size", "16", "--n-train", "9", "--n-val", "5", "--weight-scales", "1,0.1"},
		{"--size", "12", "--n-train", "7", "--n-val", "3", "--blur-sigma", "1:2", "--alpha", "1e-4:1e-2"},
	} {
		args := func(out string) []string {
			return append([]string{"train", "greedy", "--param", "m-pc", "--max-steps", "2", "--lambda", "1e-3", "--mu", "1e-3", "--out", out}, problem...)
		}
		one := filepath.Join(tmp, fmt.Sprint("one", i))
		run(t, nil, f.l2o, args(one)...)
		want := checkpointFiles(t, one)
		if len(want) < 4 {
			t.Fatalf("%v: the plain run wrote %d .npy files", problem, len(want))
		}
		for _, np := range []string{"1", "2", "3"} {
			out := filepath.Join(tmp, fmt.Sprint("np", np, "-", i))
			run(t, asRoot, "mpirun", append([]string{"--oversubscribe", "-np", np, l2oMPI}, args(out)...)...)
			got := checkpointFiles(t, out)
			for name, b := range want {
				if !bytes.Equal(got[name], b) {
					t.Errorf("%v, mpirun -np %s: %s differs from the plain run's", problem, np, name)
				}
			}
			if len(got) != len(want) {
				t.Errorf("%v, mpirun -np %s wrote %d files, the plain run %d", problem, np, len(got), len(want))
			}
			if a, b := observationsHash(t, one), observationsHash(t, out); a != b {
				t.Errorf("%v, mpirun -np %s: observations hash %s, the plain run's %s", problem, np, b, a)
			}
			if a, b := manifestText(t, one), manifestText(t, out); a != b {
				t.Errorf("%v, mpirun -np %s: the manifest records\n%s\nthe plain run's\n%s", problem, np, b, a)
			}
		}
	}
}

// TestResumeUnderMPI: a training under mpirun -np 2 stopped at 2 steps and
// resumed under mpirun -np 3 to 4 writes every .npy of a plain 4-step run
// byte for byte (every rank reads the checkpoint, rank 0 alone writes;
// each keeps its block of the training and of the 3 validation
// functions' iterates).
func TestResumeUnderMPI(t *testing.T) {
	f := newFixture(t)
	l2oMPI := f.mpiBinary(t)
	tmp := t.TempDir()
	args := func(out, steps string) []string {
		return []string{"train", "greedy", "--param", "m-pc", "--size", "12", "--n-train", "7", "--n-val", "3", "--max-steps", steps, "--lambda", "1e-3", "--mu", "1e-3", "--out", out}
	}
	one := filepath.Join(tmp, "one")
	run(t, nil, f.l2o, args(one, "4")...)
	want := checkpointFiles(t, one)
	out := filepath.Join(tmp, "split")
	run(t, asRoot, "mpirun", append([]string{"--oversubscribe", "-np", "2", l2oMPI}, args(out, "2")...)...)
	run(t, asRoot, "mpirun", "--oversubscribe", "-np", "3", l2oMPI, "train", "greedy", "--out", out, "--resume", "--max-steps", "4")
	got := checkpointFiles(t, out)
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Errorf("resumed under mpirun -np 3: %s differs from the plain 4-step run's", name)
		}
	}
	if len(got) != len(want) {
		t.Errorf("resumed under mpirun: %d files, the plain run %d", len(got), len(want))
	}
}

// checkpointFiles reads the .npy files of a checkpoint, and its manifest's
// steps without their times as "steps".
func checkpointFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".npy" {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Steps []map[string]any }
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, s := range m.Steps {
		delete(s, "seconds")
	}
	files["steps"], _ = json.Marshal(m.Steps)
	return files
}

// TestKilledRankResumable kills rank 1 of mpirun -np 2 bin/l2o-mpi train
// greedy once the checkpoint holds two steps: the job ends with an error,
// and the checkpoint left behind resumes on one process to the files of an
// uninterrupted plain run, byte for byte.
func TestKilledRankResumable(t *testing.T) {
	f := newFixture(t)
	l2oMPI := f.mpiBinary(t)
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "killed")
	args := []string{"train", "greedy", "--param", "m-pc", "--size", "16", "--n-train", "4", "--tol-rel", "0", "--lambda", "1e-3", "--mu", "1e-3"}
	job := exec.Command("mpirun", append(append([]string{"--oversubscribe", "-np", "2", l2oMPI}, args...), "--max-steps", "400", "--out", dir)...)
	job.Env = os.Environ()
	for k, v := range asRoot {
		job.Env = append(job.Env, k+"="+v)
	}
	var out bytes.Buffer
	job.Stdout, job.Stderr = &out, &out
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- job.Wait() }()
	steps := 0
	for deadline := time.Now().Add(2 * time.Minute); steps < 2; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			job.Process.Kill()
			t.Fatalf("no two steps in the checkpoint within 2 minutes:\n%s", out.String())
		}
		steps = len(manifestSteps(t, dir))
	}
	pid := rankPID(t, 1, dir)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-ended:
		if err == nil {
			t.Fatalf("the job ended without an error after rank 1 was killed:\n%s", out.String())
		}
	case <-time.After(time.Minute):
		job.Process.Kill()
		t.Fatalf("the job did not end within a minute of rank 1's death:\n%s", out.String())
	}
	done := len(manifestSteps(t, dir))
	upTo := fmt.Sprint(done + 1)
	run(t, nil, f.l2o, "train", "greedy", "--out", dir, "--resume", "--max-steps", upTo)
	plain := filepath.Join(tmp, "plain")
	run(t, nil, f.l2o, append(args, "--max-steps", upTo, "--out", plain)...)
	want, got := checkpointFiles(t, plain), checkpointFiles(t, dir)
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Errorf("resumed after the kill (%d steps, then %s): %s differs from an uninterrupted run's", done, upTo, name)
		}
	}
}

// manifestSteps returns the steps the manifest in dir records (none when
// it is missing or being replaced).
func manifestSteps(t *testing.T, dir string) []json.RawMessage {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil
	}
	var m struct{ Steps []json.RawMessage }
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m.Steps
}

// rankPID finds the process of MPI rank r whose command line names dir.
func rankPID(t *testing.T, r int, dir string) int {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		cmdline, err1 := os.ReadFile(filepath.Join(p, "cmdline"))
		environ, err2 := os.ReadFile(filepath.Join(p, "environ"))
		if err1 != nil || err2 != nil || !bytes.Contains(cmdline, []byte(dir)) || bytes.HasPrefix(cmdline, []byte("mpirun")) {
			continue
		}
		if bytes.Contains(environ, []byte(fmt.Sprintf("\x00OMPI_COMM_WORLD_RANK=%d\x00", r))) {
			var pid int
			fmt.Sscan(filepath.Base(p), &pid)
			return pid
		}
	}
	t.Fatalf("no process of rank %d for %s", r, dir)
	return 0
}

// observationsHash is the hash of the observations a checkpoint records.
func observationsHash(t *testing.T, dir string) string {
	t.Helper()
	m, err := checkpoint.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m.ObservationsHash
}

// manifestText returns what a checkpoint's manifest records of the
// functions: their data and observations hashes, operators and weights.
func manifestText(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(m["data_hash"], " ", m["observations_hash"], " ", m["operator"], " ", m["regularizer"], " ", m["n_val"])
}

// Command gpubudget measures what the CUDA device's trainers ask of the host
// per evaluation, without a GPU: it runs a tagged l2o binary (go build -tags
// l2ocuda ./cmd/l2o) with --device cuda on the CPU emulation of the driver
// (scripts/cuda-emu) with the kernels not executed (L2O_EMU_NOEXEC=1: the
// losses mean nothing, and the runs are told not to stop on them), reads
// the emulation's call log (L2O_EMU_CALL_LOG) and the process's CPU time,
// and prints one line for each of four workloads:
//
//	m-pc evaluation: launches=L graphs=G transforms=F waits=W copies_to_host=C host_ms=H
//
// m-pc evaluation: a greedy M-PC training (96², N = 25, the default inner
// solver, 50 steps: the length of Problem 1's training, which its training
// tolerance stops at step 50 on STL-10), per step-loss evaluation (the
// manifest's evaluations);
// algorithm-2 iteration: l2o apply of that checkpoint to 25 functions, per
// iteration; unrolled adam step: train unroll M-PC (T = 10, batch 4, 24
// functions, one epoch), per Adam step; banert step: train banert (T = 10,
// 5 functions, one epoch), per Adam step. Each count is the whole run's
// (setup included) divided by its evaluations; host_ms is the process's
// user + system CPU time (the emulated driver's included) divided likewise,
// the median of --reps runs. With --marginal every workload also runs
// longer (one more greedy step, or --more-steps, three times the
// iterations and epochs) and
// a second line gives the difference per additional evaluation: the work
// per evaluation without the setup. launches are kernels issued one by one,
// graphs CUDA graph launches, transforms cuFFT executions issued one by
// one, copies_to_host device-to-host copies, and waits the calls that
// make the host wait for the device: synchronisations, copies between
// host and device (synchronous copies from pageable memory wait for the
// queued work; copies to the device queued from page-locked memory do not)
// and frees.
//
// Usage (make gpu-budget builds the emulation and runs it):
//
//	LD_LIBRARY_PATH=EMU L2O_CUFFT=EMU/libcufft.so gpubudget --l2o EMU/l2o-cuda [--reps 3] [--marginal] [--out DIR]
//
// It exits 2 when the binary's device is not the emulation (its call log
// stays empty) and 1 when a run fails.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// Counts are the driver calls of a run, by kind, from the emulation's log.
type Counts struct {
	Launches   int `json:"launches"`   // kernels issued one by one
	Graphs     int `json:"graphs"`     // CUDA graph launches
	Transforms int `json:"transforms"` // cuFFT executions issued one by one
	Captured   int `json:"captured"`   // work recorded into graphs
	Syncs      int `json:"syncs"`      // context and stream synchronisations
	ToHost     int `json:"copies_to_host"`
	ToDevice   int `json:"copies_to_device"`
	// ToDeviceAsync are copies to the device queued from page-locked
	// memory: the host does not wait for them.
	ToDeviceAsync int `json:"copies_to_device_queued"`
	OnDevice      int `json:"copies_on_device"`
	Memsets       int `json:"memsets"`
	Allocs        int `json:"allocs"`
	Frees         int `json:"frees"`
}

// Waits are the calls that make the host wait for the device.
func (c Counts) Waits() int { return c.Syncs + c.ToHost + c.ToDevice + c.Frees }

// CountLog reads an L2O_EMU_CALL_LOG (scripts/cuda-emu/driver.cpp: one
// line a call, its kind first) and counts the calls by kind. An unknown
// kind is an error, so that a new call is counted before it is relied on.
func CountLog(r io.Reader) (Counts, error) {
	var c Counts
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "launch":
			c.Launches++
		case "graph":
			c.Graphs++
		case "fft", "ifft":
			c.Transforms++
		case "capture":
			c.Captured++
		case "sync":
			c.Syncs++
		case "dtoh":
			c.ToHost++
		case "htod":
			c.ToDevice++
		case "htod-async":
			c.ToDeviceAsync++
		case "dtod":
			c.OnDevice++
		case "memset":
			c.Memsets++
		case "alloc":
			c.Allocs++
		case "free":
			c.Frees++
		case "capture-begin", "capture-end":
		default:
			return c, fmt.Errorf("call log line %d: unknown call %q", n, f[0])
		}
	}
	return c, sc.Err()
}

// Result is one workload's measurement.
type Result struct {
	Name        string    `json:"name"`
	Args        []string  `json:"args"`
	Evaluations int       `json:"evaluations"`
	Counts      Counts    `json:"counts"`
	CPUms       []float64 `json:"cpu_ms"` // every repetition's user + system CPU time
}

// HostMS is every repetition's CPU milliseconds per evaluation.
func (r Result) HostMS() []float64 {
	ms := make([]float64, len(r.CPUms))
	for i, v := range r.CPUms {
		ms[i] = v / float64(r.Evaluations)
	}
	return ms
}

// Marginal is what more evaluates beyond r (the same workload, longer),
// per additional evaluation: the work per evaluation without the setup.
func Marginal(r, more Result) (Result, error) {
	d := Result{Name: r.Name + ", beyond the setup", Evaluations: more.Evaluations - r.Evaluations}
	if d.Evaluations < 1 || len(r.CPUms) != len(more.CPUms) {
		return d, fmt.Errorf("%s: the longer run made %d evaluations in %d repetitions, the shorter %d in %d", r.Name, more.Evaluations, len(more.CPUms), r.Evaluations, len(r.CPUms))
	}
	a, b := r.Counts, more.Counts
	d.Counts = Counts{b.Launches - a.Launches, b.Graphs - a.Graphs, b.Transforms - a.Transforms, b.Captured - a.Captured,
		b.Syncs - a.Syncs, b.ToHost - a.ToHost, b.ToDevice - a.ToDevice, b.ToDeviceAsync - a.ToDeviceAsync, b.OnDevice - a.OnDevice, b.Memsets - a.Memsets,
		b.Allocs - a.Allocs, b.Frees - a.Frees}
	for i := range r.CPUms {
		d.CPUms = append(d.CPUms, more.CPUms[i]-r.CPUms[i])
	}
	return d, nil
}

// per is n per evaluation, to two decimals.
func (r Result) per(n int) string {
	return strconv.FormatFloat(float64(n)/float64(r.Evaluations), 'f', 2, 64)
}

// Line is the workload's budget line.
func (r Result) Line() string {
	c := r.Counts
	return fmt.Sprintf("%s: launches=%s graphs=%s transforms=%s waits=%s copies_to_host=%s host_ms=%.3f",
		r.Name, r.per(c.Launches), r.per(c.Graphs), r.per(c.Transforms), r.per(c.Waits()), r.per(c.ToHost), median(r.HostMS()))
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// config is the fixed training and its sizes (flags only for tests).
type config struct {
	l2o, out          string
	size, n, steps    int
	iters, reps, nag  int
	epochs            int // of the unrolled and Banert runs
	unrollN, banertN  int
	keepLogs, onlyMPC bool
	marginal          bool
	moreSteps         int // the longer greedy run's additional steps
}

// longer is c with every run longer: moreSteps more greedy steps (one by
// default), three times the Algorithm 2 iterations and the epochs.
func (c config) longer() config {
	c.steps += c.moreSteps
	c.iters *= 3
	c.epochs *= 3
	c.out = filepath.Join(c.out, "longer")
	return c
}

// workload is one l2o command and how to count its evaluations from its
// output folder.
type workload struct {
	name  string
	args  func(dir string) []string
	evals func(dir string) (int, error)
}

func workloads(c config) []workload {
	size, n := strconv.Itoa(c.size), strconv.Itoa(c.n)
	greedy := []string{"train", "greedy", "--param", "m-pc", "--size", size, "--n-train", n, "--seed", "1",
		"--max-steps", strconv.Itoa(c.steps), "--tol-rel", "0", "--diverge-factor", "0", "--device", "cuda"}
	if c.nag > 0 {
		greedy = append(greedy, "--inner", "nag", "--nag-iters", strconv.Itoa(c.nag), "--nag-rounds", "1")
	}
	ws := []workload{
		{"m-pc evaluation", func(dir string) []string {
			return append(greedy, "--out", filepath.Join(dir, "greedy"))
		}, greedyEvals},
		{"algorithm-2 iteration", func(dir string) []string {
			return []string{"apply", "--params", filepath.Join(dir, "greedy"), "--size", size, "--n-test", n,
				"--iters", strconv.Itoa(c.iters), "--device", "cuda"}
		}, func(string) (int, error) { return c.iters, nil }},
		{"unrolled adam step", func(dir string) []string {
			return []string{"train", "unroll", "--param", "m-pc", "--size", size, "--n-train", strconv.Itoa(c.unrollN),
				"--seed", "1", "--T", "10", "--batch", "4", "--epochs", strconv.Itoa(c.epochs), "--device", "cuda", "--out", filepath.Join(dir, "unroll")}
		}, unrollSteps},
		{"banert step", func(dir string) []string {
			return []string{"train", "banert", "--size", size, "--n-train", strconv.Itoa(c.banertN), "--seed", "1",
				"--T", "10", "--epochs", strconv.Itoa(c.epochs), "--device", "cuda", "--out", filepath.Join(dir, "banert")}
		}, banertSteps},
	}
	if c.onlyMPC {
		ws = ws[:1]
	}
	return ws
}

func readJSON(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// greedyEvals sums the step-loss evaluations of the checkpoint's steps.
func greedyEvals(dir string) (int, error) {
	var m struct {
		Steps []struct {
			Evaluations int `json:"evaluations"`
		} `json:"steps"`
	}
	if err := readJSON(filepath.Join(dir, "greedy", "manifest.json"), &m); err != nil {
		return 0, err
	}
	total := 0
	for _, s := range m.Steps {
		total += s.Evaluations
	}
	return total, nil
}

// unrollSteps sums the Adam steps (batches) of the unrolled run's epochs.
func unrollSteps(dir string) (int, error) {
	var m struct {
		Epochs []struct {
			Batches int `json:"batches"`
		} `json:"epochs"`
	}
	if err := readJSON(filepath.Join(dir, "unroll", "unroll.json"), &m); err != nil {
		return 0, err
	}
	total := 0
	for _, e := range m.Epochs {
		total += e.Batches
	}
	return total, nil
}

// banertSteps is the Banert run's Adam steps.
func banertSteps(dir string) (int, error) {
	var m struct {
		AdamSteps int `json:"adam_steps"`
	}
	err := readJSON(filepath.Join(dir, "banert", "manifest.json"), &m)
	return m.AdamSteps, err
}

// errNotEmulated says the binary's CUDA device is not the emulation.
var errNotEmulated = errors.New("the call log is empty: --device cuda is not the CPU emulation of scripts/cuda-emu (run make gpu-budget, which sets LD_LIBRARY_PATH and L2O_CUFFT to it)")

// run runs one workload once in dir and returns its counts, evaluations
// and CPU milliseconds.
func run(c config, w workload, dir string, rep int) (Counts, int, float64, []string, error) {
	logPath := filepath.Join(dir, fmt.Sprintf("calls-%s.txt", strings.ReplaceAll(w.name, " ", "-")))
	args := w.args(dir)
	cmd := exec.Command(c.l2o, args...)
	cmd.Env = append(os.Environ(), "L2O_EMU_NOEXEC=1", "L2O_EMU_CALL_LOG="+logPath)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return Counts{}, 0, 0, args, fmt.Errorf("%s (repetition %d): l2o %s: %v\n%s", w.name, rep, strings.Join(args, " "), err, out)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	f, err := os.Open(logPath)
	if os.IsNotExist(err) {
		return Counts{}, 0, 0, args, errNotEmulated
	}
	if err != nil {
		return Counts{}, 0, 0, args, err
	}
	counts, err := CountLog(f)
	f.Close()
	if err != nil {
		return Counts{}, 0, 0, args, err
	}
	if counts == (Counts{}) {
		return Counts{}, 0, 0, args, errNotEmulated
	}
	if !c.keepLogs {
		os.Remove(logPath)
	}
	evals, err := w.evals(dir)
	if err != nil {
		return Counts{}, 0, 0, args, fmt.Errorf("%s: count its evaluations: %w", w.name, err)
	}
	if evals < 1 {
		return Counts{}, 0, 0, args, fmt.Errorf("%s: the run made no evaluation", w.name)
	}
	return counts, evals, float64(cpu.Microseconds()) / 1000, args, nil
}

// measure runs every workload c.reps times.
func measure(c config) ([]Result, error) {
	ws := workloads(c)
	res := make([]Result, len(ws))
	for rep := 1; rep <= c.reps; rep++ {
		dir := filepath.Join(c.out, fmt.Sprintf("rep-%d", rep))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		for i, w := range ws {
			counts, evals, ms, args, err := run(c, w, dir, rep)
			if err != nil {
				return nil, err
			}
			r := &res[i]
			if rep == 1 {
				*r = Result{Name: w.name, Args: args, Evaluations: evals, Counts: counts}
			} else if counts != r.Counts || evals != r.Evaluations {
				return nil, fmt.Errorf("%s: repetition %d made other calls (%+v, %d evaluations) than the first (%+v, %d)", w.name, rep, counts, evals, r.Counts, r.Evaluations)
			}
			r.CPUms = append(r.CPUms, ms)
		}
	}
	return res, nil
}

func main() {
	var c config
	fs := pflag.NewFlagSet("gpubudget", pflag.ContinueOnError)
	fs.StringVar(&c.l2o, "l2o", "", "the tagged l2o binary (go build -tags l2ocuda ./cmd/l2o)")
	fs.StringVar(&c.out, "out", "", "folder for the runs and budget.json (default: a new temporary folder)")
	fs.IntVar(&c.reps, "reps", 3, "repetitions (host_ms is their median)")
	fs.IntVar(&c.size, "size", 96, "image size")
	fs.IntVar(&c.n, "n-train", 25, "training functions of the greedy run and test functions of Algorithm 2")
	fs.IntVar(&c.steps, "steps", 50, "greedy steps (50: Problem 1's training)")
	fs.IntVar(&c.nag, "nag-iters", 0, "NAG iterations a block (0: the default inner solver)")
	fs.IntVar(&c.iters, "iters", 100, "Algorithm 2 iterations")
	fs.IntVar(&c.unrollN, "unroll-n-train", 24, "training functions of the unrolled run (batches of 4)")
	fs.IntVar(&c.banertN, "banert-n-train", 5, "training functions of the Banert run")
	fs.BoolVar(&c.keepLogs, "keep-logs", false, "keep the call logs in the runs' folders")
	fs.BoolVar(&c.onlyMPC, "only-mpc", false, "measure the greedy M-PC evaluation only")
	fs.IntVar(&c.epochs, "epochs", 1, "epochs of the unrolled and Banert runs")
	fs.BoolVar(&c.marginal, "marginal", false, "also run every workload longer (one more greedy step, 3× the iterations and epochs) and print the difference per additional evaluation: the work without the setup")
	fs.IntVar(&c.moreSteps, "more-steps", 1, "with --marginal, the longer greedy run's additional steps (more: a difference further above the machine's noise)")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if c.l2o == "" || c.reps < 1 || c.size < 1 || c.n < 1 || c.steps < 1 || c.iters < 1 || c.unrollN < 1 || c.banertN < 1 || c.nag < 0 || c.epochs < 1 || c.moreSteps < 1 {
		fmt.Fprintln(os.Stderr, "gpubudget: --l2o BIN is required; --reps, --size, --n-train, --steps, --more-steps, --iters and the runs' sizes must be positive")
		os.Exit(2)
	}
	if c.out == "" {
		dir, err := os.MkdirTemp("", "gpubudget-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "gpubudget:", err)
			os.Exit(1)
		}
		c.out = dir
	}
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "gpubudget:", err)
		if errors.Is(err, errNotEmulated) {
			os.Exit(2)
		}
		os.Exit(1)
	}
	res, err := measure(c)
	if err != nil {
		fail(err)
	}
	for _, r := range res {
		fmt.Println(r.Line())
	}
	if c.marginal {
		more, err := measure(c.longer())
		if err != nil {
			fail(err)
		}
		for i, r := range res {
			d, err := Marginal(r, more[i])
			if err != nil {
				fail(err)
			}
			fmt.Println(d.Line())
			res = append(res, more[i], d)
		}
	}
	raw, err := json.MarshalIndent(res, "", "  ")
	if err == nil {
		err = os.WriteFile(filepath.Join(c.out, "budget.json"), append(raw, '\n'), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpubudget:", err)
		os.Exit(1)
	}
	fmt.Printf("(%d repetitions; every run's calls by kind and CPU time in %s)\n", c.reps, filepath.Join(c.out, "budget.json"))
}

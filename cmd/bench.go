package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/greedyl2o/greedyl2o/bench"
	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/provenance"
	"github.com/spf13/pflag"
)

func init() {
	register(&Command{Name: "bench memory", Summary: "memory of greedy vs unrolled vs Banert training as T grows (held bytes, device peak, peak RSS)", Run: runBenchMemory})
}

type benchMemoryFlags struct {
	cfg        bench.Config
	trainers   string
	ts         string
	maxT       int
	budgetGB   float64
	out        string
	inProcess  bool
	childTrain string
	childT     int
	force      bool
}

func runBenchMemory(env *Env, args []string) error {
	var f benchMemoryFlags
	fs := f.define(env)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := f.checkDevice(fs); err != nil {
		return err
	}
	if f.childTrain != "" {
		row, err := bench.Measure(f.childTrain, f.childT, f.cfg)
		if err != nil {
			return asUsage(err)
		}
		row.Process = "child"
		b, err := json.Marshal(row)
		if err != nil {
			return err
		}
		fmt.Fprintln(env.Stdout, string(b))
		return nil
	}
	trainers, ts, err := f.check()
	if err != nil {
		return err
	}
	if _, err := bench.Objective(f.cfg); err != nil {
		return asUsage(err)
	}
	lock, err := claimResultsDir(env, "--out", f.out, f.force)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	run := func(tr string, T int) (bench.Row, error) { return bench.Measure(tr, T, f.cfg) }
	if !f.inProcess {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("finding this program to run each configuration in a child process: %w (use --in-process)", err)
		}
		run = func(tr string, T int) (bench.Row, error) { return benchMemoryChild(exe, f, tr, T) }
	}
	fmt.Fprintf(env.Stdout, "memory of training %s on %d %s functions of %d×%d (greedy and unrolled: %s), device %s%s, %s\n",
		strings.Join(trainers, ", "), f.cfg.NTrain, f.cfg.Problem, f.cfg.Size, f.cfg.Size, f.cfg.Param, f.cfg.Target,
		map[bool]string{true: " on its array operations", false: ""}[f.cfg.Arrays],
		map[bool]string{true: "in this process", false: "one child process per configuration"}[f.inProcess])
	rows, skips := bench.Sweep(trainers, ts, f.maxT, int64(f.budgetGB*1e9), run, func(r bench.Row) {
		fmt.Fprintf(env.Stderr, "  %s T=%d: held %.2f MB, peak RSS %.1f MB, %.3f s\n", r.Trainer, r.T, float64(r.HeldBytes)/1e6, float64(r.PeakRSS)/1e6, r.Seconds)
	})
	bench.WriteTable(env.Stdout, rows, skips)
	inv := env.invocation()
	rep := &bench.Report{Config: f.cfg, Rows: rows, Skipped: skips, Summaries: bench.Summarize(rows), Provenance: &provenance.Record{Invocation: inv}}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	var csvBuf, jsonBuf, svgBuf bytes.Buffer
	if err := bench.WriteCSV(&csvBuf, rows); err != nil {
		return err
	}
	if err := bench.WriteJSON(&jsonBuf, rep); err != nil {
		return err
	}
	files := map[string][]byte{"memory.csv": csvBuf.Bytes(), "memory.json": jsonBuf.Bytes()}
	title := fmt.Sprintf("training memory vs T: %s, %d×%d, N = %d", f.cfg.Param, f.cfg.Size, f.cfg.Size, f.cfg.NTrain)
	if len(rows) > 0 && bench.WritePlot(&svgBuf, rows, title) == nil {
		files["memory.svg"] = svgBuf.Bytes()
	}
	for name, b := range files {
		if err := checkpoint.WriteFileAtomic(filepath.Join(f.out, name), b); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
	}
	fmt.Fprintf(env.Stdout, "wrote memory.csv, memory.json and memory.svg (log–log plot) in %s\n", f.out)
	if len(rows) == 0 {
		return fmt.Errorf("no configuration could be measured")
	}
	return nil
}

// define declares the flags of bench memory.
func (f *benchMemoryFlags) define(env *Env) *pflag.FlagSet {
	fs := newFlags(env, "bench memory", "bench memory [--size 48 --n-train 4 --param m-pc] [--T 1,2,5,10,20,50,100 --max-T 100] [--trainers greedy,unrolled,banert] [--device cpu] [--out DIR]")
	fs.StringVar(&f.cfg.Problem, "problem", "deblur", "problem (synthetic training images)")
	fs.IntVar(&f.cfg.Size, "size", 48, "image size")
	fs.IntVar(&f.cfg.NTrain, "n-train", 4, "number of training functions")
	fs.StringVar(&f.cfg.Param, "param", "m-pc", "method of greedy and unrolled training")
	fs.IntVar(&f.cfg.Batch, "batch", 0, "unrolled mini-batch size (0: min(4, n-train))")
	fs.Int64Var(&f.cfg.Seed, "seed", 1, "seed of the synthetic data")
	fs.IntVar(&f.cfg.GreedyEvals, "greedy-evals", 20, "L-BFGS evaluations per greedy step (timing only; memory does not depend on it)")
	fs.IntVar(&f.cfg.Epochs, "epochs", 2, "unrolled epochs per measurement (the last is timed)")
	fs.IntVar(&f.cfg.BanertInputs, "banert-inputs", 3, "input channels of the Banert network (3 or 4)")
	fs.StringVar(&f.trainers, "trainers", strings.Join(bench.Trainers, ","), "trainers to measure: greedy, unrolled, banert")
	fs.StringVar(&f.ts, "T", "1,2,5,10,20,50,100", "horizons T to measure")
	fs.IntVar(&f.maxT, "max-T", 100, "largest T to measure")
	fs.Float64Var(&f.budgetGB, "budget-gb", 16, "skip horizons whose memory, extrapolated linearly in T, exceeds this many GB (0: no limit)")
	fs.StringVar(&f.cfg.Device, "device", "cpu", "where greedy, unrolled and Banert training's losses run: cpu (the CPU's own paths, float64), cpu32 (float32), cuda in a binary built with -tags l2ocuda, whose allocator then holds and counts every buffer of all three (host and host32 are names of cpu and cpu32)")
	fs.BoolVar(&f.cfg.Arrays, "arrays", false, "on the CPU: run the trainers' device code path on the CPU's array operations (float64, or float32 with --device cpu32), whose allocator then holds and counts every buffer as a device's would")
	fs.StringVar(&f.out, "out", "runs/bench-memory", "directory for memory.csv and memory.json (refused if it holds results, unless --force)")
	fs.BoolVar(&f.force, "force", false, "replace the results already in --out")
	fs.BoolVar(&f.inProcess, "in-process", false, "measure in this process instead of one child process per configuration (peak RSS is then cumulative)")
	fs.StringVar(&f.childTrain, "child-trainer", "", "internal: measure one trainer and print its row as JSON")
	fs.IntVar(&f.childT, "child-T", 0, "internal: horizon of --child-trainer")
	_ = fs.MarkHidden("child-trainer")
	_ = fs.MarkHidden("child-T")
	return fs
}

// checkDevice resolves --device into the execution target, and leaves
// Banert out by default on a device without network operations.
func (f *benchMemoryFlags) checkDevice(fs *pflag.FlagSet) error {
	t, err := execution.Resolve(f.cfg.Device, "")
	if err != nil {
		return asUsage(err)
	}
	if t.Device != nil && f.cfg.Arrays {
		return usagef("--arrays with --device %s: a device always runs its array operations; drop --arrays", f.cfg.Device)
	}
	f.cfg.Target = t
	if _, ok := t.Device.(gpu.NetOps); t.Device != nil && !ok && !fs.Changed("trainers") {
		f.trainers = bench.Greedy + "," + bench.Unrolled
	}
	return nil
}

// check parses --trainers and --T and validates the other flags.
func (f *benchMemoryFlags) check() (trainers []string, ts []int, err error) {
	trainers = strings.Split(f.trainers, ",")
	for i, tr := range trainers {
		trainers[i] = strings.TrimSpace(tr)
		if !contains(bench.Trainers, trainers[i]) {
			return nil, nil, usagef("--trainers: unknown trainer %q: use %s", tr, strings.Join(bench.Trainers, ", "))
		}
	}
	if f.cfg.BanertInputs != 3 && f.cfg.BanertInputs != 4 {
		return nil, nil, usagef("--banert-inputs %d: use 3 or 4", f.cfg.BanertInputs)
	}
	for _, s := range strings.Split(f.ts, ",") {
		T, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || T < 1 {
			return nil, nil, usagef("--T: %q is not a horizon ≥ 1", s)
		}
		if slices.Contains(ts, T) {
			return nil, nil, usagef("--T %s gives %d twice: each horizon is measured once", f.ts, T)
		}
		ts = append(ts, T)
	}
	if f.maxT < 1 || f.budgetGB < 0 {
		return nil, nil, usagef("--max-T must be ≥ 1 and --budget-gb ≥ 0")
	}
	if slices.Min(ts) > f.maxT {
		return nil, nil, usagef("--T %s: every horizon is above --max-T %d, so nothing would be measured", f.ts, f.maxT)
	}
	c := f.cfg
	switch {
	case c.Size < 8 || c.Size > 4096:
		return nil, nil, usagef("--size %d: give an image size from 8 to 4096", c.Size)
	case c.NTrain < 1 || c.Epochs < 1 || c.GreedyEvals < 1:
		return nil, nil, usagef("--n-train, --epochs and --greedy-evals must be at least 1 (got %d, %d, %d)", c.NTrain, c.Epochs, c.GreedyEvals)
	case c.Batch < 0 || c.Batch > c.NTrain:
		return nil, nil, usagef("--batch %d: give 0 (min(4, --n-train)) or a size up to --n-train %d", c.Batch, c.NTrain)
	}
	m, err := models.ParseMethod(c.Param)
	if err != nil {
		return nil, nil, usagef("--param: %v", err)
	}
	if err := m.CheckSize(c.Size, c.Size); err != nil {
		return nil, nil, usagef("--param %s: %v", c.Param, err)
	}
	return trainers, ts, nil
}

// benchMemoryChild measures one configuration in a fresh process running this
// program, so that its peak RSS is its own.
func benchMemoryChild(exe string, f benchMemoryFlags, trainer string, T int) (bench.Row, error) {
	c := f.cfg
	args := []string{"bench", "memory", "--child-trainer", trainer, "--child-T", strconv.Itoa(T),
		"--problem", c.Problem, "--size", strconv.Itoa(c.Size), "--n-train", strconv.Itoa(c.NTrain),
		"--param", c.Param, "--batch", strconv.Itoa(c.Batch), "--seed", strconv.FormatInt(c.Seed, 10),
		"--greedy-evals", strconv.Itoa(c.GreedyEvals), "--epochs", strconv.Itoa(c.Epochs),
		"--banert-inputs", strconv.Itoa(c.BanertInputs), "--device", c.Device}
	if c.Arrays {
		args = append(args, "--arrays")
	}
	cmd := exec.Command(exe, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		return bench.Row{}, fmt.Errorf("child process (%s): %v %s", strings.Join(args, " "), err, msg)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var row bench.Row
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &row); err != nil {
		return bench.Row{}, fmt.Errorf("child process printed no result row: %w", err)
	}
	return row, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

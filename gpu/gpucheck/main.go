// Command gpucheck turns the results scripts/gpu-check.sh leaves in a
// directory into one markdown table (gpu-check.md there, and on standard
// output) and exits 1 when a check failed or the GPU disagrees with the CPU
// beyond the stated tolerances, 2 when the directory cannot be read.
//
// Usage: go run ./gpu/gpucheck DIR
//
// It reads DIR/env.txt ("key: value" lines: GPU, driver, commit, date,
// sizes), DIR/status.txt ("name exit-code" for every command the script
// ran), DIR/test-cuda.txt and DIR/test-launch.txt (go test -v output), the
// training outputs DIR/{greedy,ct,unroll,banert}-{cuda,cpu}/ (their
// manifest.json or unroll.json: per-step losses and seconds) and
// DIR/memory-cuda/memory.json (bench memory --device cuda) and
// DIR/bench-steploss.txt (go test -bench output of the step losses on the
// device and on the CPU, when the script ran it).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Tolerances on |cuda − cpu| / |cpu| of the training losses: the device
// computes in float32 (reductions in double), the CPU in float64; the
// losses are minima of smooth functions (greedy) or averages over epochs
// whose parameters move by float32-rounded gradients (unrolled, Banert).
// On the CPU emulation of the driver (the same float32 kernels, 16×16, 3
// functions) the greedy, CT and Banert losses agreed to 2.2e-7 relative or
// better; a GPU adds fused multiply-adds and its own summation order in
// cuFFT.
const (
	tolGreedy = 1e-3
	tolUnroll = 1e-3
	tolBanert = 1e-3
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gpucheck DIR")
		os.Exit(2)
	}
	r, err := summarize(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpucheck:", err)
		os.Exit(2)
	}
	md := r.markdown()
	fmt.Print(md)
	if err := os.WriteFile(filepath.Join(os.Args[1], "gpu-check.md"), []byte(md), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gpucheck:", err)
		os.Exit(2)
	}
	if r.failed() {
		fmt.Fprintln(os.Stderr, "gpucheck: FAILED: see the rows marked FAIL")
		os.Exit(1)
	}
}

// row is one line of the table.
type row struct {
	check, cuda, cpu, compare, tol, verdict string
}

type report struct {
	env  [][2]string
	rows []row
}

func (r *report) add(w row) { r.rows = append(r.rows, w) }

func (r *report) failed() bool {
	for _, w := range r.rows {
		if w.verdict == "FAIL" {
			return true
		}
	}
	return false
}

func (r *report) markdown() string {
	var b strings.Builder
	b.WriteString("## GPU check (scripts/gpu-check.sh)\n\n")
	for _, kv := range r.env {
		fmt.Fprintf(&b, "- %s: %s\n", kv[0], kv[1])
	}
	b.WriteString("\n| check | cuda | cpu | comparison | tolerance | result |\n| --- | ---: | ---: | ---: | ---: | --- |\n")
	for _, w := range r.rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", w.check, w.cuda, w.cpu, w.compare, w.tol, w.verdict)
	}
	return b.String()
}

func summarize(dir string) (*report, error) {
	r := &report{}
	env, err := readKV(filepath.Join(dir, "env.txt"))
	if err != nil {
		return nil, err
	}
	r.env = env
	status, err := readStatus(filepath.Join(dir, "status.txt"))
	if err != nil {
		return nil, err
	}
	r.tests(dir, status)
	r.greedy(dir, status, "greedy", "greedy M-PC step")
	r.greedy(dir, status, "ct", "greedy M-PC step, CT")
	r.unroll(dir, status)
	r.banert(dir, status)
	r.memory(dir, status)
	r.stepLossBench(dir, status)
	// Any command that failed and has no row of its own.
	named := map[string]bool{}
	for _, w := range r.rows {
		named[strings.TrimSuffix(strings.Fields(w.check)[0], ":")] = true
	}
	names := make([]string, 0, len(status))
	for k := range status {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		switch {
		case strings.HasPrefix(k, "profile-"):
			// Profiles are measurements, not checks: reported either way.
			r.add(row{k + ": profile (see " + k + ".txt)", "", "", fmt.Sprintf("exit %d", status[k]), "", "info"})
		case status[k] != 0 && !named[k]:
			r.add(row{k, "", "", fmt.Sprintf("exit %d", status[k]), "exit 0", "FAIL"})
		}
	}
	return r, nil
}

// readKV reads "key: value" lines in order.
func readKV(path string) ([][2]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][2]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ": "); ok {
			out = append(out, [2]string{k, v})
		}
	}
	return out, sc.Err()
}

// readStatus reads "name exit-code" lines; a name seen twice keeps its last.
func readStatus(path string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 {
			continue
		}
		code, err := strconv.Atoi(fields[1])
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %w", path, sc.Text(), err)
		}
		out[fields[0]] = code
	}
	return out, sc.Err()
}

// goTestCounts counts the top-level results of a go test -v log.
func goTestCounts(path string) (pass, fail, skip int, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, 0, false, err
	}
	defer f.Close()
	return countResults(f)
}

func countResults(rd io.Reader) (pass, fail, skip int, ok bool, err error) {
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "--- PASS"):
			pass++
		case strings.HasPrefix(line, "--- FAIL"):
			fail++
		case strings.HasPrefix(line, "--- SKIP"):
			skip++
		case line == "PASS" || strings.HasPrefix(line, "ok "):
			ok = true
		}
	}
	return pass, fail, skip, ok && fail == 0, sc.Err()
}

func verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "FAIL"
}

func (r *report) tests(dir string, status map[string]int) {
	for _, t := range []struct{ name, file, what string }{
		{"test-cuda", "test-cuda.txt", "CUDA tests (gpu/cuda, 96² and 256², N = 25)"},
		{"test-launch", "test-launch.txt", "PTX assembly and launch limits (gpu/launch)"},
	} {
		code, ran := status[t.name]
		if !ran {
			continue
		}
		pass, fail, skip, ok, err := goTestCounts(filepath.Join(dir, t.file))
		if err != nil {
			r.add(row{t.name + ": " + t.what, "", "", err.Error(), "", "FAIL"})
			continue
		}
		r.add(row{t.name + ": " + t.what, fmt.Sprintf("%d passed, %d failed, %d skipped", pass, fail, skip), "", "", "all pass", verdict(ok && code == 0)})
	}
}

// readJSON reads a JSON object.
func readJSON(path string) (map[string]any, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// records returns the objects of the list key of the JSON object in path.
func records(path, key string) ([]map[string]any, error) {
	m, err := readJSON(path)
	if err != nil {
		return nil, err
	}
	list, ok := m[key].([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("%s: no %q records", path, key)
	}
	var out []map[string]any
	for _, v := range list {
		if o, ok := v.(map[string]any); ok {
			out = append(out, o)
		}
	}
	return out, nil
}

func num(m map[string]any, key string) float64 {
	if v, ok := m[key].(float64); ok {
		return v
	}
	return math.NaN()
}

func relDiff(a, b float64) float64 {
	if b == 0 {
		return math.Abs(a)
	}
	return math.Abs(a-b) / math.Abs(b)
}

func secs(v float64) string {
	switch {
	case math.IsNaN(v):
		return "—"
	case v >= 1:
		return fmt.Sprintf("%.3g s", v)
	default:
		return fmt.Sprintf("%.3g ms", 1e3*v)
	}
}

// pair reads the records of one training on cuda and on cpu.
func (r *report) pair(dir string, status map[string]int, name, file, key, what string) (cuda, cpu []map[string]any, ok bool) {
	good := true
	for _, dev := range []string{"cuda", "cpu"} {
		run := name + "-" + dev
		if code, ran := status[run]; !ran {
			good = false
		} else if code != 0 {
			r.add(row{run + ": " + what, "", "", fmt.Sprintf("exit %d (see %s.txt)", code, run), "exit 0", "FAIL"})
			good = false
		}
	}
	if !good {
		return nil, nil, false
	}
	var err error
	if cuda, err = records(filepath.Join(dir, name+"-cuda", file), key); err == nil {
		cpu, err = records(filepath.Join(dir, name+"-cpu", file), key)
	}
	if err != nil {
		r.add(row{name + ": " + what, "", "", err.Error(), "", "FAIL"})
		return nil, nil, false
	}
	return cuda, cpu, true
}

// timing adds the row of seconds per step, cuda against cpu.
func (r *report) timing(name, what string, cuda, cpu float64) {
	cmp := "—"
	if cuda > 0 && cpu > 0 {
		cmp = fmt.Sprintf("%.3g× faster", cpu/cuda)
	}
	r.add(row{name + ": " + what, secs(cuda), secs(cpu), cmp, "", "info"})
}

// losses adds the row of the largest relative difference of the losses.
func (r *report) losses(name, what string, cuda, cpu []float64, tol float64) {
	n := min(len(cuda), len(cpu))
	worst, at := 0.0, 0
	for i := 0; i < n; i++ {
		if d := relDiff(cuda[i], cpu[i]); d > worst || math.IsNaN(d) {
			worst, at = d, i
		}
	}
	ok := n > 0 && len(cuda) == len(cpu) && worst <= tol
	cmp := fmt.Sprintf("max rel. diff %.2g (at %d of %d)", worst, at, n)
	if len(cuda) != len(cpu) {
		cmp = fmt.Sprintf("%d values on cuda, %d on cpu", len(cuda), len(cpu))
	}
	r.add(row{name + ": " + what, fmt.Sprintf("%.9g", last(cuda)), fmt.Sprintf("%.9g", last(cpu)), cmp, fmt.Sprintf("%g", tol), verdict(ok)})
}

func last(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	return v[len(v)-1]
}

func column(recs []map[string]any, key string) []float64 {
	out := make([]float64, len(recs))
	for i, m := range recs {
		out[i] = num(m, key)
	}
	return out
}

// meanPer returns Σ key / Σ per over the records (seconds per step or per
// evaluation), NaN when undefined.
func meanPer(recs []map[string]any, key, per string) float64 {
	var s, n float64
	for _, m := range recs {
		s += num(m, key)
		if per == "" {
			n++
		} else {
			n += num(m, per)
		}
	}
	if !(n > 0) {
		return math.NaN()
	}
	return s / n
}

func (r *report) greedy(dir string, status map[string]int, name, what string) {
	cuda, cpu, ok := r.pair(dir, status, name, "manifest.json", "steps", what)
	if !ok {
		return
	}
	r.timing(name, what+" (s a step)", meanPer(cuda, "seconds", ""), meanPer(cpu, "seconds", ""))
	r.timing(name, what+" (s an evaluation of the step loss)", meanPer(cuda, "seconds", "evaluations"), meanPer(cpu, "seconds", "evaluations"))
	r.losses(name, what+": loss at every step (last shown)", column(cuda, "loss"), column(cpu, "loss"), tolGreedy)
}

func (r *report) unroll(dir string, status map[string]int) {
	const what = "unrolled M-PC, Adam step"
	cuda, cpu, ok := r.pair(dir, status, "unroll", "unroll.json", "epochs", what)
	if !ok {
		return
	}
	r.timing("unroll", what+" (s a step)", num(cuda[len(cuda)-1], "seconds_per_step"), num(cpu[len(cpu)-1], "seconds_per_step"))
	r.losses("unroll", what+": mean loss of every epoch (last shown)", column(cuda, "mean_loss"), column(cpu, "mean_loss"), tolUnroll)
}

func (r *report) banert(dir string, status map[string]int) {
	const what = "Banert, Adam step"
	cuda, cpu, ok := r.pair(dir, status, "banert", "manifest.json", "history", what)
	if !ok {
		return
	}
	r.timing("banert", what+" (s a step)", num(cuda[len(cuda)-1], "step_seconds"), num(cpu[len(cpu)-1], "step_seconds"))
	r.losses("banert", what+": mean loss of every epoch (last shown)", column(cuda, "mean_loss"), column(cpu, "mean_loss"), tolBanert)
}

// stepLossBenchmarks pairs each benchmark of the step loss on the device
// (steploss.BenchmarkStepLossCUDA) with the CPU's fused float64 path.
var stepLossBenchmarks = []struct{ what, cuda, cpu string }{
	{"M-PS", "BenchmarkStepLossCUDA/m-ps", "BenchmarkStepLossMPS"},
	{"M-PC", "BenchmarkStepLossCUDA/m-pc", "BenchmarkStepLossMPC"},
}

// stepLossBench adds a timing row for each step loss in
// DIR/bench-steploss.txt (one evaluation with its gradient, N = 25, 96²).
func (r *report) stepLossBench(dir string, status map[string]int) {
	code, ran := status["bench-steploss"]
	if !ran {
		return
	}
	const name = "bench-steploss"
	if code != 0 {
		r.add(row{name + ": step loss benchmarks", "", "", fmt.Sprintf("exit %d (see %s.txt)", code, name), "exit 0", "FAIL"})
		return
	}
	raw, err := os.ReadFile(filepath.Join(dir, name+".txt"))
	if err != nil {
		r.add(row{name + ": step loss benchmarks", "", "", err.Error(), "", "FAIL"})
		return
	}
	ns := benchNs(string(raw))
	for _, b := range stepLossBenchmarks {
		cuda, ok := ns[b.cuda]
		if !ok {
			r.add(row{name + ": " + b.what, "", "", "no result for " + b.cuda, "", "FAIL"})
			continue
		}
		r.timing(name, b.what+" step loss + gradient, N = 25, 96² (s an evaluation)", cuda*1e-9, ns[b.cpu]*1e-9)
	}
}

// benchNs reads go test -bench output: ns/op by benchmark name, the
// -GOMAXPROCS suffix removed.
func benchNs(out string) map[string]float64 {
	res := map[string]float64{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || f[3] != "ns/op" {
			continue
		}
		v, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			continue
		}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		res[name] = v
	}
	return res
}

func (r *report) memory(dir string, status map[string]int) {
	code, ran := status["memory-cuda"]
	if !ran {
		return
	}
	const what = "bench memory --device cuda: device allocator peak"
	if code != 0 {
		r.add(row{"memory-cuda: " + what, "", "", fmt.Sprintf("exit %d (see memory-cuda.txt)", code), "exit 0", "FAIL"})
		return
	}
	recs, err := records(filepath.Join(dir, "memory-cuda", "memory.json"), "rows")
	if err != nil {
		r.add(row{"memory-cuda: " + what, "", "", err.Error(), "", "FAIL"})
		return
	}
	byTrainer := map[string][]string{}
	var trainers []string
	for _, m := range recs {
		tr, _ := m["trainer"].(string)
		if _, seen := byTrainer[tr]; !seen {
			trainers = append(trainers, tr)
		}
		byTrainer[tr] = append(byTrainer[tr], fmt.Sprintf("T=%g: %.3g MB", num(m, "T"), num(m, "device_peak_bytes")/1e6))
	}
	for _, tr := range trainers {
		r.add(row{"memory-cuda: " + what + ", " + tr, strings.Join(byTrainer[tr], ", "), "", "", "", "info"})
	}
}

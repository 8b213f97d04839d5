package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCountLog counts a call log written as the emulation writes it.
func TestCountLog(t *testing.T) {
	log := `alloc - 4000
htod - 4000
htod-async - 4000
launch l2o_axpby 512
capture-begin - 0
capture l2o_scale 256
capture fft 3
capture-end - 2
graph - 2
fft 96x96 25
ifft 96x96 25
memset - 40
dtod - 40
sync - 0
sync stream 0
dtoh - 8
free - 0
`
	got, err := CountLog(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	want := Counts{Launches: 1, Graphs: 1, Transforms: 2, Captured: 2, Syncs: 2, ToHost: 1, ToDevice: 1, ToDeviceAsync: 1, OnDevice: 1, Memsets: 1, Allocs: 1, Frees: 1}
	if got != want {
		t.Errorf("counted %+v, want %+v", got, want)
	}
	if w := got.Waits(); w != 5 {
		t.Errorf("waits %d, want 5 (two syncs, the synchronous copies to and from the host, the free; not the queued copy)", w)
	}
	if _, err := CountLog(strings.NewReader("launch k 1\nprefetch - 8\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("an unknown call gave %v, want an error naming line 2", err)
	}
	r := Result{Name: "m-pc evaluation", Evaluations: 4, Counts: got, CPUms: []float64{2, 0.8, 1.2}}
	if l, w := r.Line(), "m-pc evaluation: launches=0.25 graphs=0.25 transforms=0.50 waits=1.25 copies_to_host=0.25 host_ms=0.300"; l != w {
		t.Errorf("line\n\t%s\nwant\n\t%s", l, w)
	}
}

// TestLineMatchesTheCallLog runs the budget of a small greedy M-PC training
// on the CPU emulation and checks the printed line against the kept call
// log, counted here line by line, and the manifest's evaluations. It needs
// the emulation: L2O_EMU_L2O names a tagged l2o binary and LD_LIBRARY_PATH
// and L2O_CUFFT the emulated libraries (scripts/cuda-emu/run.sh sets them).
func TestLineMatchesTheCallLog(t *testing.T) {
	bin := os.Getenv("L2O_EMU_L2O")
	if bin == "" {
		t.Skip("L2O_EMU_L2O is not set: the budget runs on the CPU emulation (scripts/cuda-emu/run.sh runs this test)")
	}
	dir := t.TempDir()
	c := config{l2o: bin, out: dir, size: 16, n: 3, steps: 2, nag: 5, iters: 3, reps: 1, unrollN: 4, banertN: 2, epochs: 1, keepLogs: true, onlyMPC: true}
	res, err := measure(c)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "rep-1", "calls-m-pc-evaluation.txt"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	replayed := 0 // the operations the graph launches ran
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		f := strings.Fields(l)
		kinds[f[0]]++
		if f[0] == "graph" {
			n, err := strconv.Atoi(f[2])
			if err != nil {
				t.Fatalf("call log line %q: %v", l, err)
			}
			replayed += n
		}
	}
	evals, err := greedyEvals(filepath.Join(dir, "rep-1"))
	if err != nil {
		t.Fatal(err)
	}
	// Two steps of NAG with 5 iterations a block: step 0 moves G only
	// (x⁰ = x⁻¹: H's block has no curvature), step 1 both, each with its
	// few evaluations beside NAG's.
	if evals < 15 || evals != res[0].Evaluations {
		t.Fatalf("the manifest counts %d evaluations, the budget %d; want the same, at least 15", evals, res[0].Evaluations)
	}
	per := func(n int) string { return fmt.Sprintf("%.2f", float64(n)/float64(evals)) }
	want := fmt.Sprintf("m-pc evaluation: launches=%s graphs=%s transforms=%s waits=%s copies_to_host=%s host_ms=",
		per(kinds["launch"]), per(kinds["graph"]), per(kinds["fft"]+kinds["ifft"]),
		per(kinds["sync"]+kinds["dtoh"]+kinds["htod"]+kinds["free"]), per(kinds["dtoh"]))
	if l := res[0].Line(); !strings.HasPrefix(l, want) {
		t.Errorf("the budget line\n\t%s\nthe call log gives\n\t%s…", l, want)
	}
	// NAG's iterations stay on the device, a block's result read back
	// once: at least three copies to the host (three blocks), however
	// many evaluations.
	if kinds["launch"]+replayed < 10*evals || kinds["dtoh"] < 3 {
		t.Errorf("the log has %d launches, %d operations replayed from graphs and %d copies to the host for %d evaluations: not a step loss's", kinds["launch"], replayed, kinds["dtoh"], evals)
	}
	// A binary whose device is not the emulation leaves no log: refused.
	c.l2o, c.out = "/bin/true", t.TempDir()
	if _, err := exec.LookPath(c.l2o); err == nil {
		if _, err := measure(c); err != errNotEmulated {
			t.Errorf("a binary that calls no driver gave %v, want errNotEmulated", err)
		}
	}
}

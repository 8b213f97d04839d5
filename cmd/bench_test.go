package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/bench"
)

func TestBenchMemoryInProcess(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := Main([]string{"bench", "memory", "--in-process", "--size", "12", "--n-train", "2", "--T", "1,2,4,8", "--max-T", "4",
		"--trainers", "greedy,unrolled", "--greedy-evals", "2", "--epochs", "1", "--out", dir}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "memory.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep bench.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 6 || len(rep.Skipped) != 2 {
		t.Fatalf("%d rows and %d skips, want 6 (2 trainers × T ≤ 4) and 2 (T = 8):\n%s", len(rep.Rows), len(rep.Skipped), out.String())
	}
	g1, _ := bench.Find(rep.Rows, bench.Greedy, 1)
	g4, _ := bench.Find(rep.Rows, bench.Greedy, 4)
	u1, _ := bench.Find(rep.Rows, bench.Unrolled, 1)
	u4, _ := bench.Find(rep.Rows, bench.Unrolled, 4)
	if g1.HeldBytes != g4.HeldBytes || !(u4.HeldBytes > 3*u1.HeldBytes) {
		t.Errorf("held bytes: greedy %d → %d, unrolled %d → %d: want greedy constant and unrolled about 4×", g1.HeldBytes, g4.HeldBytes, u1.HeldBytes, u4.HeldBytes)
	}
	if !strings.Contains(out.String(), "unrolled: ") || !strings.Contains(out.String(), "per unrolled iteration") {
		t.Errorf("no slope line in the table:\n%s", out.String())
	}
	for _, name := range []string{"memory.csv", "memory.svg"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	out.Reset()
	if code := Main([]string{"runs", "show", dir}, &out, &errb); code != 0 || !strings.Contains(out.String(), "bench memory: 6 measurements") || !strings.Contains(out.String(), "command: l2o bench memory") {
		t.Errorf("runs show of bench memory's folder: exit %d:\n%s", code, out.String())
	}
}

func TestBenchMemoryChildAndDevice(t *testing.T) {
	var out, errb bytes.Buffer
	code := Main([]string{"bench", "memory", "--child-trainer", "unrolled", "--child-T", "2", "--size", "12", "--n-train", "2", "--epochs", "1"}, &out, &errb)
	if code != 0 {
		t.Fatalf("child mode: exit %d: %s", code, errb.String())
	}
	var row bench.Row
	if err := json.Unmarshal(out.Bytes(), &row); err != nil {
		t.Fatalf("child output %q is not a JSON row: %v", out.String(), err)
	}
	if row.Trainer != "unrolled" || row.T != 2 || row.HeldBytes <= 0 || row.PeakRSS <= 0 || row.Process != "child" {
		t.Errorf("child row %+v", row)
	}
	for _, args := range [][]string{
		{"bench", "memory", "--device", "cuda"},
		{"bench", "memory", "--trainers", "nope"},
		{"bench", "memory", "--T", "0"},
		{"bench", "memory", "--size", "2"},
		{"bench", "memory", "--size", "0"},
		{"bench", "memory", "--n-train", "0"},
		{"bench", "memory", "--epochs", "0"},
		{"bench", "memory", "--greedy-evals", "0"},
		{"bench", "memory", "--param", "foo"},
		{"bench", "memory", "--param", "pc99"},
		{"bench", "memory", "--T", "1,1"},
		{"bench", "memory", "--T", "5", "--max-T", "2"},
	} {
		errb.Reset()
		if code := Main(args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errb.String())
		}
	}
}

// TestBenchMemoryOnHostDevice runs bench memory with greedy, unrolled and
// Banert on the CPU's array operations (--arrays) in this process: the
// table prints the device allocator's ratios and a Banert row from the
// allocator. --arrays with a device, and a device bench cannot open, exit 2.
func TestBenchMemoryOnHostDevice(t *testing.T) {
	var out, errb bytes.Buffer
	dir := t.TempDir()
	args := []string{"bench", "memory", "--device", "cpu", "--arrays", "--in-process", "--T", "1,2", "--size", "12", "--n-train", "2",
		"--epochs", "1", "--greedy-evals", "2", "--out", dir}
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rep bench.Report
	b, err := os.ReadFile(filepath.Join(dir, "memory.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	peak := map[int]int64{}
	for _, r := range rep.Rows {
		if r.Trainer == bench.Banert {
			if !r.Allocator || r.DevicePeak <= 0 {
				t.Errorf("banert row T = %d not from the allocator: %+v", r.T, r)
			}
			peak[r.T] = r.DevicePeak
		}
	}
	// One more unrolled step keeps three more 12×12 images (x^t, ∇f, Δ_t).
	if len(peak) != 2 || peak[2]-peak[1] != 3*12*12*8 {
		t.Errorf("banert allocator peaks %v at T = 1, 2: want two rows %d bytes apart", peak, 3*12*12*8)
	}
	if !strings.Contains(out.String(), "greedy(2)/unrolled(2)") || !strings.Contains(out.String(), "device allocator") {
		t.Errorf("no allocator ratio in the table:\n%s", out.String())
	}
	errb.Reset()
	if code := Main([]string{"bench", "memory", "--device", "host", "--trainers", "banert", "--banert-inputs", "5"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--banert-inputs") {
		t.Errorf("5-input banert: exit %d, want 2 naming --banert-inputs: %s", code, errb.String())
	}
	for _, bad := range [][]string{{"--device", testOpsDevice, "--arrays"}, {"--device", "tpu"}} {
		errb.Reset()
		if code := Main(append([]string{"bench", "memory", "--out", t.TempDir()}, bad...), &out, &errb); code != 2 || !strings.Contains(errb.String(), "--") {
			t.Errorf("%v: exit %d, want 2 naming the flag: %s", bad, code, errb.String())
		}
	}
}

package deploy

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// TestRanksReadTheirImages: mpirun -np 1, 2 and 3 bin/l2o-mpi train greedy
// on a folder of 10 images (7 training, 3 validation functions): each rank
// reads the images of its blocks alone, counted as it reads them (so a
// rank that read another's images fails), and the checkpoint's .npy files
// and data hash are the plain l2o's.
func TestRanksReadTheirImages(t *testing.T) {
	f := newFixture(t)
	l2oMPI := f.mpiBinary(t)
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "images")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, im := range data.Synthetic(10, 12, 12, 5) {
		var b bytes.Buffer
		if err := data.WritePGM(&b, im, 8); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "img"+strconv.Itoa(i)+".pgm"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := func(out string) []string {
		return []string{"train", "greedy", "--param", "m-pc", "--size", "12", "--data", dir, "--n-train", "7", "--n-val", "3", "--max-steps", "1", "--lambda", "1e-3", "--mu", "1e-3", "--out", out}
	}
	one := filepath.Join(tmp, "one")
	run(t, nil, f.l2o, args(one)...)
	want := checkpointFiles(t, one)
	note := regexp.MustCompile(`rank (\d+) of \d+ holds .*; it read (\d+) images`)
	for _, np := range []int{1, 2, 3} {
		out := filepath.Join(tmp, "np"+strconv.Itoa(np))
		log := run(t, asRoot, "mpirun", append([]string{"--oversubscribe", "-np", strconv.Itoa(np), l2oMPI}, args(out)...)...)
		got := checkpointFiles(t, out)
		for name, b := range want {
			if !bytes.Equal(got[name], b) {
				t.Errorf("mpirun -np %d: %s differs from the plain run's", np, name)
			}
		}
		if a, b := dataHash(t, one), dataHash(t, out); a != b || a == "" {
			t.Errorf("mpirun -np %d: data hash %q, the plain run's %q", np, b, a)
		}
		if np == 1 {
			continue // one rank holds every function and reads them all
		}
		read := map[int]int{}
		for _, m := range note.FindAllStringSubmatch(log, -1) {
			r, _ := strconv.Atoi(m[1])
			read[r], _ = strconv.Atoi(m[2])
		}
		if len(read) != np {
			t.Fatalf("mpirun -np %d: %d ranks said how many images they read:\n%s", np, len(read), log)
		}
		for r := range np {
			tb, vb := steploss.Blocks(7, np)[r], steploss.Blocks(3, np)[r]
			if w := tb[1] - tb[0] + vb[1] - vb[0]; read[r] != w {
				t.Errorf("mpirun -np %d: rank %d read %d images, its blocks hold %d", np, r, read[r], w)
			}
		}
	}
}

// dataHash returns the data hash a checkpoint's manifest records.
func dataHash(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`"data_hash": "([0-9a-f]+)"`).FindSubmatch(b)
	if m == nil {
		return ""
	}
	return string(m[1])
}

// testReads matches the line each rank of eval or apply under mpirun
// writes on what it holds and read.
var testReads = regexp.MustCompile(`(?m)^note: rank (\d+) of \d+ holds test functions \[(\d+), (\d+)\) of (\d+); it read (\d+) images\n`)

// withoutRankNotes is a run's output without the ranks' notes (stderr).
func withoutRankNotes(log string) string { return testReads.ReplaceAllString(log, "") }

// checkTestReads checks what each of np ranks of eval or apply (cmd) on
// nTrain training and nTest test functions says it held and read: block r
// of the test functions (eval.Shard r+1/np) and, to hash them for the test
// set's selection, block r of the training images, and no other image
// (with np = 1, all of them).
func checkTestReads(t *testing.T, log, cmd, np string, nTrain, nTest int) {
	t.Helper()
	k, _ := strconv.Atoi(np)
	seen := map[int]bool{}
	for _, m := range testReads.FindAllStringSubmatch(log, -1) {
		var v [5]int
		for i := range v {
			v[i], _ = strconv.Atoi(m[i+1])
		}
		r, lo, hi, total, read := v[0], v[1], v[2], v[3], v[4]
		s := eval.Shard{Index: r + 1, Count: k}
		tlo, thi := s.Bounds(nTest)
		rlo, rhi := s.Bounds(nTrain)
		if lo != tlo || hi != thi || total != nTest {
			t.Errorf("%s -np %s: rank %d holds test functions [%d, %d) of %d, want [%d, %d) of %d", cmd, np, r, lo, hi, total, tlo, thi, nTest)
		}
		if want := thi - tlo + rhi - rlo; read != want {
			t.Errorf("%s -np %s: rank %d read %d images, want %d (its %d test and %d training images)", cmd, np, r, read, want, thi-tlo, rhi-rlo)
		}
		seen[r] = true
	}
	if want := k; k == 1 {
		want = 0 // one process reads everything, and says nothing
		if len(seen) != want {
			t.Errorf("%s -np 1: %d notes of ranks", cmd, len(seen))
		}
	} else if len(seen) != want {
		t.Errorf("%s -np %s: %d ranks said what they read, want %d:\n%s", cmd, np, len(seen), want, log)
	}
}

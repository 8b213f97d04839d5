package data

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
)

// world is k processes in goroutines for Blocks: Part is block r of the
// k, Share a barrier per call at which every process's block is copied.
type world struct {
	k     int
	mu    sync.Mutex
	calls []*shareCall
}

type shareCall struct {
	refs []Ref
	wg   sync.WaitGroup
}

func (w *world) blocks(r int, read func(int) bool) *Blocks {
	n := 0 // this process's calls of Share
	part := func(m int) (int, int) { return r * m / w.k, (r + 1) * m / w.k }
	return &Blocks{
		Part: part,
		Read: read,
		Share: func(refs []Ref, lo, hi int) error {
			w.mu.Lock()
			if n == len(w.calls) {
				c := &shareCall{refs: make([]Ref, len(refs))}
				c.wg.Add(w.k)
				w.calls = append(w.calls, c)
			}
			c := w.calls[n]
			copy(c.refs[lo:hi], refs[lo:hi])
			w.mu.Unlock()
			n++
			c.wg.Done()
			c.wg.Wait()
			copy(refs, c.refs)
			return nil
		},
	}
}

// writeImages writes the images as PGM files name(i) in dir.
func writeImages(t *testing.T, dir string, imgs []*Image, name func(int) string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, im := range imgs {
		var b bytes.Buffer
		if err := WritePGM(&b, im, 8); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name(i)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBlocksSelectOneProcessTestSet: k = 1, 2, 3 processes, each with
// Request.Blocks, take the test set one process takes (refs, skipped
// candidates) on sources whose test candidates repeat training images and
// each other, so that the processes hash candidates over several rounds;
// each holds exactly the test images it asked for, one process's, and
// reads only its blocks where nothing is skipped.
func TestBlocksSelectOneProcessTestSet(t *testing.T) {
	distinct := Synthetic(6, 12, 12, 3)
	tmp := t.TempDir()
	// A flat folder of 14 images of 6 contents (shuffled by the seed).
	flat := filepath.Join(tmp, "flat")
	writeImages(t, flat, make14(distinct), func(i int) string { return fmt.Sprintf("im%02d.pgm", i) })
	// train/ and test/: test/ repeats a training image and one of its own.
	folders := filepath.Join(tmp, "folders")
	writeImages(t, filepath.Join(folders, "train"), distinct[:2], func(i int) string { return fmt.Sprintf("a%d.pgm", i) })
	writeImages(t, filepath.Join(folders, "test"), []*Image{distinct[2], distinct[0], distinct[3], distinct[3], distinct[4], distinct[5]}, func(i int) string { return fmt.Sprintf("b%d.pgm", i) })
	// Without repeats: each process reads its blocks alone.
	plain := filepath.Join(tmp, "plain")
	writeImages(t, plain, distinct, func(i int) string { return fmt.Sprintf("im%02d.pgm", i) })

	for _, tc := range []struct {
		name          string
		req           Request
		noRepeats     bool
		wantSkippedGt int
	}{
		{"flat", Request{NTrain: 3, NTest: 3, Seed: 4}, false, 0},
		{"folders", Request{NTrain: 2, NTest: 4}, false, 1},
		{"plain", Request{NTrain: 2, NTest: 4, Seed: 9}, true, -1},
	} {
		spec := filepath.Join(tmp, tc.name)
		one, err := Select(spec, tc.req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if one.Skipped <= tc.wantSkippedGt {
			t.Fatalf("%s: one process skipped %d candidates: the source does not exercise the rounds", tc.name, one.Skipped)
		}
		for k := 1; k <= 3; k++ {
			w := &world{k: k}
			got := make([]*Selection, k)
			errs := make([]error, k)
			var wg sync.WaitGroup
			for r := range k {
				wg.Add(1)
				go func() {
					defer wg.Done()
					req := tc.req
					lo, hi := r*req.NTest/k, (r+1)*req.NTest/k
					req.Blocks = w.blocks(r, func(j int) bool { return j >= lo && j < hi })
					got[r], errs[r] = Select(spec, req)
				}()
			}
			wg.Wait()
			for r, s := range got {
				if errs[r] != nil {
					t.Fatalf("%s, %d processes: process %d: %v", tc.name, k, r, errs[r])
				}
				if !reflect.DeepEqual(s.TestRefs, one.TestRefs) || !reflect.DeepEqual(s.TrainRefs, one.TrainRefs) || s.Skipped != one.Skipped {
					t.Errorf("%s, %d processes: process %d selected test %v (%d skipped), train %v; one process %v (%d), %v", tc.name, k, r, s.TestRefs, s.Skipped, s.TrainRefs, one.TestRefs, one.Skipped, one.TrainRefs)
				}
				lo, hi := r*tc.req.NTest/k, (r+1)*tc.req.NTest/k
				for j, im := range s.Test {
					if in := j >= lo && j < hi; in != (im != nil) || (in && !reflect.DeepEqual(im, one.Test[j])) {
						t.Errorf("%s, %d processes: process %d holds test image %d: %v, want it: %v (and one process's)", tc.name, k, r, j, im != nil, in)
					}
				}
				tlo, thi := r*tc.req.NTrain/k, (r+1)*tc.req.NTrain/k
				if want := hi - lo + thi - tlo; tc.noRepeats && s.Loaded != want {
					t.Errorf("%s, %d processes: process %d read %d images, its blocks hold %d", tc.name, k, r, s.Loaded, want)
				}
			}
		}
	}
}

// make14 is 14 images of the 6 contents of distinct.
func make14(distinct []*Image) []*Image {
	out := make([]*Image, 14)
	for i := range out {
		out[i] = distinct[(i*5)%len(distinct)]
	}
	return out
}

package greedy

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/sbinet/npyio"
)

// TestLockDir: a second lock on a held directory fails at once naming the
// holder's pid; after Unlock it succeeds.
func TestLockDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	l, err := checkpoint.LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = checkpoint.LockDir(dir)
	var le *checkpoint.LockedError
	if !errors.As(err, &le) || !errors.Is(err, checkpoint.ErrLocked) || le.PID != os.Getpid() || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("second lock: %v, want a checkpoint.LockedError naming pid %d", err, os.Getpid())
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	l2, err := checkpoint.LockDir(dir)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	l2.Unlock()
	var nilLock *checkpoint.DirLock
	if err := nilLock.Unlock(); err != nil {
		t.Error(err)
	}
}

// TestChecksumsRecordedAndVerified: every committed file has a checksum;
// a changed byte, a missing entry and a file of another run are refused
// with ErrChecksum naming the file; verification passes on intact files.
func TestChecksumsRecordedAndVerified(t *testing.T) {
	dir := t.TempDir()
	o := deblurSet(t, 2, 8, 1)
	if _, err := Train(o, Config{Problem: Problem{Name: "deblur"}, Method: Method{Param: method(t, "m-ps")}, Stop: Stop{MaxSteps: 3}, Store: Store{Dir: dir}}); err != nil {
		t.Fatal(err)
	}
	m, err := checkpoint.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{checkpoint.ParamFile("theta", 0), checkpoint.ParamFile("phi", 0), checkpoint.ParamFile("theta", 2), checkpoint.ParamFile("phi", 2), checkpoint.StateFile("x", 3), checkpoint.StateFile("xprev", 3)}
	for _, rel := range want {
		if len(m.Checksums[rel]) != 64 {
			t.Errorf("no SHA-256 for %s: %v", rel, m.Checksums)
		}
	}
	if len(m.Checksums) != 8 || !m.Verified() {
		t.Errorf("%d checksums, want 8", len(m.Checksums))
	}
	if err := checkpoint.VerifyChecksums(dir, m.Checksums); err != nil {
		t.Fatal(err)
	}
	if _, _, err := learned.Load(dir); err != nil {
		t.Fatal(err)
	}
	p := checkpoint.ParamPath(dir, "phi", 1)
	b, _ := os.ReadFile(p)
	b[len(b)-1] ^= 0x80
	os.WriteFile(p, b, 0o644)
	_, _, err = learned.Load(dir)
	var ce *checkpoint.ChecksumError
	if !errors.Is(err, checkpoint.ErrChecksum) || !errors.As(err, &ce) || ce.Path != p || !strings.Contains(err.Error(), p) {
		t.Errorf("a changed byte: %v, want a checkpoint.ChecksumError for %s", err, p)
	}
	if err := checkpoint.VerifyChecksums(dir, m.Checksums); !errors.Is(err, checkpoint.ErrChecksum) {
		t.Errorf("VerifyChecksums: %v", err)
	}
	delete(m.Checksums, checkpoint.ParamFile("phi", 1))
	if _, _, err := checkpoint.LoadParams(dir, m, 1); !errors.Is(err, checkpoint.ErrChecksum) || !strings.Contains(err.Error(), "not listed") {
		t.Errorf("a file the manifest does not list: %v", err)
	}
	// Without checksums (an older checkpoint) the files load unverified.
	m.Checksums = nil
	if _, _, err := checkpoint.LoadParams(dir, m, 1); err != nil || m.Verified() {
		t.Errorf("unverified load: %v", err)
	}
	if err := checkpoint.RecordChecksums(dir, m); err != nil || len(m.Checksums) != 8 {
		t.Errorf("RecordChecksums: %v, %d sums", err, len(m.Checksums))
	}
}

// TestResumeRefusesChangedFiles: a resume checks every committed file.
func TestResumeRefusesChangedFiles(t *testing.T) {
	dir := t.TempDir()
	o := deblurSet(t, 2, 8, 1)
	cfg := Config{Problem: Problem{Name: "deblur"}, Method: Method{Param: method(t, "m-ps")}, Stop: Stop{MaxSteps: 2}, Store: Store{Dir: dir}}
	if _, err := Train(o, cfg); err != nil {
		t.Fatal(err)
	}
	p := checkpoint.ParamPath(dir, "theta", 0)
	b, _ := os.ReadFile(p)
	b[len(b)-2] ^= 1
	os.WriteFile(p, b, 0o644)
	cfg.Store.Resume, cfg.Stop.MaxSteps = true, 3
	if _, err := Train(o, cfg); !errors.Is(err, checkpoint.ErrChecksum) || !errors.Is(err, checkpoint.ErrCannotResume) || !strings.Contains(err.Error(), p) {
		t.Errorf("resume over a changed parameter file: %v", err)
	}
}

// TestResumeRefusesOtherObservations: functions with the same images but
// other data y (another noise draw or level, blur, angles) do not resume a
// run; the same ones do.
func TestResumeRefusesOtherObservations(t *testing.T) {
	dir := t.TempDir()
	o := deblurSet(t, 2, 8, 1)
	cfg := Config{Problem: Problem{Name: "deblur"}, Method: Method{Param: method(t, "m-ps")}, Stop: Stop{MaxSteps: 2}, Store: Store{Dir: dir}}
	if _, err := Train(o, cfg); err != nil {
		t.Fatal(err)
	}
	other, err := o.Subset([]int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	other.Y[3] += 1e-3
	cfg.Store.Resume, cfg.Stop.MaxSteps = true, 3
	if _, err := Train(other, cfg); !errors.Is(err, checkpoint.ErrCannotResume) || !strings.Contains(err.Error(), "observations") {
		t.Errorf("resume on other observations: %v", err)
	}
	if _, err := Train(o, cfg); err != nil {
		t.Errorf("resume on the same observations: %v", err)
	}
}

// TestDecodeNPYRejectsBadInput: a header announcing more values than the
// file holds, a huge shape and non-finite values are errors, never panics
// or huge allocations.
func TestDecodeNPYRejectsBadInput(t *testing.T) {
	var buf bytes.Buffer
	if err := npyio.Write(&buf, []float64{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	if v, err := checkpoint.DecodeNPY(good, "x.npy", 3); err != nil || len(v) != 3 {
		t.Fatalf("good file: %v %v", v, err)
	}
	if _, err := checkpoint.DecodeNPY(good, "x.npy", 4); err == nil {
		t.Error("wrong length accepted")
	}
	if _, err := checkpoint.DecodeNPY(good[:len(good)-4], "x.npy", -1); err == nil {
		t.Error("truncated file accepted")
	}
	huge := bytes.Replace(good, []byte("(3,)"), []byte("(999999999999,)"), 1)
	if _, err := checkpoint.DecodeNPY(huge, "x.npy", -1); err == nil {
		t.Error("a header announcing 1e12 values accepted")
	}
	buf.Reset()
	npyio.Write(&buf, []float64{1, 2, math.Inf(1)})
	if _, err := checkpoint.DecodeNPY(buf.Bytes(), "x.npy", -1); err == nil {
		t.Error("an infinite value accepted")
	}
}

// TestRemoveTemps removes only WriteFileAtomic's temporary files.
func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "params"), 0o755)
	keep := []string{"manifest.json", ".tmp-notes.txt-123", ".tmp-manifest.json-12a", "params/theta_00000.npy"}
	remove := []string{".tmp-manifest.json-123456", "params/.tmp-theta_00001.npy-42"}
	for _, f := range append(keep, remove...) {
		os.WriteFile(filepath.Join(dir, f), nil, 0o644)
	}
	if got := checkpoint.RemoveTemps(dir); len(got) != len(remove) {
		t.Errorf("removed %v, want %v", got, remove)
	}
	for _, f := range keep {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s removed", f)
		}
	}
}

// TestTrainStopsOnDivergence: a reference step far beyond 2/L makes the
// mean objective explode; Train stops at once with ErrDiverged naming the
// step, and commits no step past it.
func TestTrainStopsOnDivergence(t *testing.T) {
	dir := t.TempDir()
	o := deblurSet(t, 2, 8, 1)
	_, err := Train(o, Config{
		Problem: Problem{Name: "deblur"},
		Method:  Method{Param: method(t, "ps"), Tau: 100 / o.L, Lambda: Schedule{Values: []float64{1}, Relative: true}},
		Stop:    Stop{MaxSteps: 50},
		Store:   Store{Dir: dir},
	})
	if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "step 0") {
		t.Fatalf("τ = 100/L: %v, want ErrDiverged at step 0", err)
	}
	// Off (negative factor): the same step is taken.
	res, err := Train(o, Config{
		Problem: Problem{Name: "deblur"},
		Method:  Method{Param: method(t, "ps"), Tau: 100 / o.L, Lambda: Schedule{Values: []float64{1}, Relative: true}},
		Stop:    Stop{MaxSteps: 1, DivergeFactor: -1},
	})
	if err != nil || len(res.Steps) != 1 {
		t.Errorf("without the factor: %v", err)
	}
}

// TestTrainStop: Config.Stop ends the run between steps with
// ErrInterrupted, the completed steps committed.
func TestTrainStop(t *testing.T) {
	dir := t.TempDir()
	o := deblurSet(t, 2, 8, 1)
	n := 0
	_, err := Train(o, Config{
		Problem: Problem{Name: "deblur"},
		Method:  Method{Param: method(t, "m-ps")},
		Stop:    Stop{MaxSteps: 10, Interrupt: func() bool { return n == 2 }},
		Store:   Store{Dir: dir},
		Record:  Record{Progress: func(checkpoint.StepInfo) { n++ }},
	})
	if !errors.Is(err, checkpoint.ErrInterrupted) {
		t.Fatalf("Stop: %v", err)
	}
	m, err := checkpoint.ReadManifest(dir)
	if err != nil || len(m.Steps) != 2 || m.Finished {
		t.Fatalf("after the stop: %v, %d steps, finished %v", err, len(m.Steps), m.Finished)
	}
}

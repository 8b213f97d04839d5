package greedy

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"strings"

	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// TestDividedTrainingEqualsOne: 1, 2 and 3 "processes" (goroutines), each
// training with Method.Divide on its block of 7 functions and holding only
// that block's iterates, learn the parameters, evaluation counts and
// iterates of one training, bit for bit: the per-step sums over the
// functions (mean f, ‖∇f‖, the data curvatures by power iteration, the
// paper's bound and PC's closed form, relative weights, the preconditioners
// of PS, PP and PC) pass between the processes in function order (M-PC,
// M-PS, M-PP, L-BFGS and NAG inner solvers; PF, reduced, its subspace built
// from every process's gradients; the repeat check on the training
// functions).
func TestDividedTrainingEqualsOne(t *testing.T) {
	o := deblurSet(t, 7, 12, 3)
	rel, err := ParseSchedule("rel:1e-2")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, param string
		inner       InnerSolver
		lambda      Schedule
		repeat      int
	}{
		{"m-pc nag", "m-pc", NAG{}, Constant(1e-3), 0},
		{"m-pc nag paper", "m-pc", NAG{Step: StepPaper}, Constant(1e-3), 0},
		{"m-pc nag closed", "m-pc", NAG{Step: StepClosed}, Constant(1e-3), 0},
		{"m-pc lbfgs", "m-pc", LBFGS{}, Constant(1e-3), 0},
		{"m-ps lbfgs", "m-ps", LBFGS{}, Constant(1e-3), 0},
		{"m-ps lbfgs rel", "m-ps", LBFGS{}, rel, 0},
		{"m-pp nag", "m-pp", NAG{}, Constant(1e-3), 0},
		{"m-pp lbfgs", "m-pp", LBFGS{}, Constant(1e-3), 0},
		{"pf lbfgs", "pf", LBFGS{}, Constant(1e-3), 0},
		{"m-ps repeat check", "m-ps", LBFGS{}, Constant(1e-3), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := func(d *Divide) Config {
				stop := Stop{MaxSteps: 2}
				if tc.repeat > 0 {
					stop = Stop{MaxSteps: 4, TolRel: 1.5, RepeatCheck: tc.repeat}
				}
				return Config{Method: Method{Param: method(t, tc.param), Lambda: tc.lambda, Mu: Constant(1e-3), Divide: d},
					Solver: Solver{Inner: tc.inner}, Stop: stop, Store: Store{KeepParams: true}}
			}
			want, err := Train(o, cfg(nil))
			if err != nil {
				t.Fatal(err)
			}
			if tc.repeat > 0 && len(want.Manifest.RepeatChecks) == 0 {
				t.Fatalf("%s: no repeat check ran (%s after %d steps)", tc.name, want.StopCause, len(want.Steps))
			}
			for _, k := range []int{1, 2, 3} {
				got := trainDivided(t, o, k, cfg)
				for b, r := range got {
					if len(r.Steps) != len(want.Steps) || r.StopCause != want.StopCause {
						t.Fatalf("%s, %d processes, process %d: %d steps (%s), want %d (%s)", tc.name, k, b, len(r.Steps), r.StopCause, len(want.Steps), want.StopCause)
					}
					for s := range want.Steps {
						ws, gs := want.Steps[s], r.Steps[s]
						d := firstBitDiff(append(append([]float64(nil), r.Theta[s]...), r.Phi[s]...), append(append([]float64(nil), want.Theta[s]...), want.Phi[s]...))
						if d >= 0 || gs.Evaluations != ws.Evaluations || math.Float64bits(gs.Loss) != math.Float64bits(ws.Loss) ||
							math.Float64bits(gs.MeanF) != math.Float64bits(ws.MeanF) || math.Float64bits(gs.MaxGradNorm) != math.Float64bits(ws.MaxGradNorm) || gs.Lambda != ws.Lambda {
							t.Errorf("%s, %d processes, process %d, step %d: parameters differ at %d (evaluations %d, want %d; loss %v, want %v; mean f %v, want %v; λ %v, want %v)",
								tc.name, k, b, s, d, gs.Evaluations, ws.Evaluations, gs.Loss, ws.Loss, gs.MeanF, ws.MeanF, gs.Lambda, ws.Lambda)
						}
					}
					blk, hw := steploss.Blocks(o.N, k)[b], o.ImageLen()
					if d := firstBitDiff(r.X, want.X[blk[0]*hw:blk[1]*hw]); d >= 0 {
						t.Errorf("%s, %d processes, process %d: final iterates of its block differ at %d", tc.name, k, b, d)
					}
				}
			}
		})
	}
}

func firstBitDiff(a, b []float64) int {
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	return -1
}

// TestReadOnlyResumeWritesNothing: a read-only resume (the ranks of a
// divided run but the writer) continues a checkpoint to more steps and
// leaves its files as they were; without Dir and Resume it is refused.
func TestReadOnlyResumeWritesNothing(t *testing.T) {
	o := deblurSet(t, 3, 12, 5)
	dir := t.TempDir()
	cfg := Config{Method: Method{Param: method(t, "m-ps"), Lambda: Constant(1e-3), Mu: Constant(1e-3)},
		Solver: Solver{Inner: LBFGS{}}, Stop: Stop{MaxSteps: 2}, Store: Store{Dir: dir}}
	if _, err := Train(o, cfg); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Stop.MaxSteps, cfg.Store.Resume, cfg.Store.ReadOnly = 3, true, true
	res, err := Train(o, cfg)
	if err != nil || len(res.Steps) != 3 {
		t.Fatalf("read-only resume: %v, %d steps", err, len(res.Steps))
	}
	after, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("a read-only resume changed the manifest (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "params", "theta_00002.npy")); err == nil {
		t.Error("a read-only resume wrote step 2's parameters")
	}
	cfg.Store.Resume = false
	var fe *FieldError
	if _, err := Train(o, cfg); !errors.As(err, &fe) || fe.Field != "Store.ReadOnly" {
		t.Errorf("read-only without Resume: %v, want a FieldError naming Store.ReadOnly", err)
	}
}

// trainDivided trains k "processes" (goroutines), process b with the
// configuration cfg gives for its block of o's functions, joined by
// steploss.Pipes, and returns their results in block order.
func trainDivided(t *testing.T, o *problem.Objective, k int, cfg func(*Divide) Config) []*Result {
	t.Helper()
	got, errs := trainBlocks(o, steploss.Blocks(o.N, k), cfg)
	for b := range k {
		if errs[b] != nil {
			t.Fatalf("%d processes, process %d: %v", k, b, errs[b])
		}
	}
	return got
}

// trainBlocks trains one "process" (goroutine) a block of o's functions,
// joined by steploss.Pipes, and returns their results and errors in block
// order.
func trainBlocks(o *problem.Objective, blocks [][2]int, cfg func(*Divide) Config) ([]*Result, []error) {
	k := len(blocks)
	links := steploss.Pipes(k)
	got, errs := make([]*Result, k), make([]error, k)
	var wg sync.WaitGroup
	for b, blk := range blocks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[b], errs[b] = Train(o, cfg(&Divide{Lo: blk[0], Hi: blk[1], Link: links[b]}))
		}()
	}
	wg.Wait()
	return got, errs
}

// TestDividedCTTrainingEqualsOne: the CT projector applies images in
// groups of 4, so a process's block holds whole groups
// (steploss.GroupBlocks): then 1, 2 and 3 processes train one process's
// parameters and iterates bit for bit; blocks that split a group are
// refused before any work.
func TestDividedCTTrainingEqualsOne(t *testing.T) {
	o := testproblems.CTSmall(t, 9, 16, 3)
	if g := o.BatchGroup(); g != 4 {
		t.Fatalf("ct-small applies %d images together, want 4", g)
	}
	cfg := func(d *Divide) Config {
		return Config{Method: Method{Param: method(t, "m-ps"), Lambda: Constant(1e-3), Mu: Constant(1e-3), Divide: d},
			Solver: Solver{Inner: LBFGS{}}, Stop: Stop{MaxSteps: 2}, Store: Store{KeepParams: true}}
	}
	want, err := Train(o, cfg(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{1, 2, 3} {
		blocks := steploss.GroupBlocks(o.N, k, 4)
		got, errs := trainBlocks(o, blocks, cfg)
		for b, r := range got {
			if errs[b] != nil {
				t.Fatalf("%d processes, process %d: %v", k, b, errs[b])
			}
			for s := range want.Steps {
				if d := firstBitDiff(append(r.Theta[s], r.Phi[s]...), append(want.Theta[s], want.Phi[s]...)); d >= 0 {
					t.Errorf("%d processes, process %d, step %d: parameters differ at %d", k, b, s, d)
				}
			}
			hw := o.ImageLen()
			if d := firstBitDiff(r.X, want.X[blocks[b][0]*hw:blocks[b][1]*hw]); d >= 0 {
				t.Errorf("%d processes, process %d: final iterates of its block differ at %d", k, b, d)
			}
		}
	}
	_, errs := trainBlocks(o, [][2]int{{0, 5}, {5, 9}}, cfg)
	for b, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "GroupBlocks") {
			t.Errorf("block %d of [0, 5), [5, 9): %v, want a refusal naming steploss.GroupBlocks", b, err)
		}
	}
}

// TestDividedTrainingOnHeldBlocks: processes given only their block's
// functions (Divide.Total) train one process's parameters and iterates bit
// for bit and record the hash of every function's observations (the
// SHA-256 state passed from block to block); a block whose objective does
// not hold Hi − Lo functions is refused.
func TestDividedTrainingOnHeldBlocks(t *testing.T) {
	o := deblurSet(t, 7, 12, 4)
	cfg := func(d *Divide) Config {
		return Config{Method: Method{Param: method(t, "m-pc"), Lambda: Constant(1e-3), Mu: Constant(1e-3), Divide: d},
			Solver: Solver{Inner: NAG{}}, Stop: Stop{MaxSteps: 2}, Store: Store{KeepParams: true}}
	}
	want, err := Train(o, cfg(nil))
	if err != nil {
		t.Fatal(err)
	}
	blocks := steploss.Blocks(o.N, 3)
	links := steploss.Pipes(len(blocks))
	got, errs := make([]*Result, len(blocks)), make([]error, len(blocks))
	var wg sync.WaitGroup
	for b, blk := range blocks {
		part, err := o.Block(blk[0], blk[1])
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[b], errs[b] = Train(part, cfg(&Divide{Lo: blk[0], Hi: blk[1], Link: links[b], Total: o.N}))
		}()
	}
	wg.Wait()
	hw := o.ImageLen()
	for b, r := range got {
		if errs[b] != nil {
			t.Fatalf("process %d: %v", b, errs[b])
		}
		if r.Manifest.ObservationsHash != want.Manifest.ObservationsHash || r.Manifest.NTrain != o.N {
			t.Errorf("process %d: observations hash %s of %d functions, want %s of %d", b, r.Manifest.ObservationsHash, r.Manifest.NTrain, want.Manifest.ObservationsHash, o.N)
		}
		for s := range want.Steps {
			if d := firstBitDiff(append(r.Theta[s], r.Phi[s]...), append(want.Theta[s], want.Phi[s]...)); d >= 0 {
				t.Errorf("process %d, step %d: parameters differ at %d", b, s, d)
			}
		}
		if d := firstBitDiff(r.X, want.X[blocks[b][0]*hw:blocks[b][1]*hw]); d >= 0 {
			t.Errorf("process %d: final iterates differ at %d", b, d)
		}
	}
	if _, err := Train(o, cfg(&Divide{Lo: 0, Hi: 3, Link: steploss.Pipes(1)[0], Total: o.N})); err == nil || !strings.Contains(err.Error(), "it holds 7") {
		t.Errorf("a block of 3 functions given all 7: %v, want a refusal", err)
	}
}

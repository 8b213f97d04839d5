package greedy

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// TestDividedValidationEqualsOne: 1, 2 and 3 "processes" (goroutines),
// each holding its block of the training functions and its block of the
// validation functions alone (Divide.ValTotal; with 2 validation
// functions the third process holds none), record one process's
// validation objectives, scores, kept scales, gradient norms, repeat
// checks and stop, bit for bit, and the first process writes one
// process's checkpoint: every .npy (the validation iterates gathered)
// byte for byte. Candidate scales, a lookahead, stopping on the
// validation functions with a patience and the repeat check on them all
// read sums over the validation functions.
func TestDividedValidationEqualsOne(t *testing.T) {
	o := deblurSet(t, 7, 12, 3)
	for _, tc := range []struct {
		name string
		nVal int
		cfg  func(c *Config)
	}{
		{"scales and lookahead", 5, func(c *Config) { c.Solver.WeightScales, c.Solver.ValLookahead = []float64{10, 1, 0.1}, 2 }},
		{"stop on validation, repeat check", 5, func(c *Config) {
			c.Stop = Stop{MaxSteps: 5, TolRel: 20, OnValidation: true, ValPatience: 2, RepeatCheck: 2}
		}},
		{"fewer validation functions than processes", 2, func(c *Config) { c.Solver.WeightScales = []float64{1, 0.1} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			val := deblurSet(t, tc.nVal, 12, 8)
			cfg := func(d *Divide, v *problem.Objective, dir string) Config {
				c := Config{Problem: Problem{Validation: v},
					Method: Method{Param: method(t, "m-pc"), Lambda: Constant(1e-3), Mu: Constant(1e-3), Divide: d},
					Solver: Solver{Inner: LBFGS{MaxEvaluations: 30}}, Stop: Stop{MaxSteps: 2}, Store: Store{Dir: dir}}
				tc.cfg(&c)
				return c
			}
			wantDir := t.TempDir()
			want, err := Train(o, cfg(nil, val, wantDir))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("one process: %d steps, %s, %d repeat checks", len(want.Steps), want.StopCause, len(want.Manifest.RepeatChecks))
			if len(want.Steps) == 0 {
				t.Fatalf("one process trained no step: %s", want.StopCause)
			}
			for _, k := range []int{1, 2, 3} {
				dir := t.TempDir()
				got, errs := trainValBlocks(o, val, k, func(d *Divide, v *problem.Objective) Config {
					if d.Lo > 0 {
						return cfg(d, v, "")
					}
					return cfg(d, v, dir)
				})
				for b, r := range got {
					if errs[b] != nil {
						t.Fatalf("%d processes, process %d: %v", k, b, errs[b])
					}
					if r.StopCause != want.StopCause || len(r.Steps) != len(want.Steps) || len(r.Manifest.RepeatChecks) != len(want.Manifest.RepeatChecks) || r.Manifest.NVal != tc.nVal {
						t.Fatalf("%d processes, process %d: %d steps (%s), %d repeat checks, %d validation functions; want %d (%s), %d, %d",
							k, b, len(r.Steps), r.StopCause, len(r.Manifest.RepeatChecks), r.Manifest.NVal, len(want.Steps), want.StopCause, len(want.Manifest.RepeatChecks), tc.nVal)
					}
					for s, ws := range want.Steps {
						gs := r.Steps[s]
						for _, p := range [][2]float64{{gs.ValF, ws.ValF}, {gs.ValScore, ws.ValScore}, {gs.ValMaxGradNorm, ws.ValMaxGradNorm}, {gs.WeightScale, ws.WeightScale}, {gs.Loss, ws.Loss}} {
							if math.Float64bits(p[0]) != math.Float64bits(p[1]) {
								t.Errorf("%d processes, process %d, step %d: validation f %v, score %v, max ‖∇f‖ %v, scale %v, loss %v; want %v, %v, %v, %v, %v",
									k, b, s, gs.ValF, gs.ValScore, gs.ValMaxGradNorm, gs.WeightScale, gs.Loss, ws.ValF, ws.ValScore, ws.ValMaxGradNorm, ws.WeightScale, ws.Loss)
								break
							}
						}
					}
					for i, c := range want.Manifest.RepeatChecks {
						if g := r.Manifest.RepeatChecks[i]; math.Float64bits(g.Growth) != math.Float64bits(c.Growth) {
							t.Errorf("%d processes, process %d: repeat check %d grows by %v, want %v", k, b, i, g.Growth, c.Growth)
						}
					}
				}
				sameNPY(t, wantDir, dir)
			}
		})
	}
}

// trainValBlocks trains k "processes" (goroutines) joined by
// steploss.Pipes, process b holding block b of the training functions o
// and of the validation functions val alone (steploss.GroupBlocks; none
// past their groups), and returns their results and errors.
func trainValBlocks(o, val *problem.Objective, k int, cfg func(*Divide, *problem.Objective) Config) ([]*Result, []error) {
	blocks := steploss.GroupBlocks(o.N, k, o.BatchGroup())
	vblocks := steploss.GroupBlocks(val.N, k, val.BatchGroup())
	links := steploss.Pipes(k)
	got, errs := make([]*Result, k), make([]error, k)
	var wg sync.WaitGroup
	for b, blk := range blocks {
		vb := [2]int{val.N, val.N}
		if b < len(vblocks) {
			vb = vblocks[b]
		}
		part, err := o.Block(blk[0], blk[1])
		var vpart *problem.Objective
		if err == nil && vb[0] < vb[1] {
			vpart, err = val.Block(vb[0], vb[1])
		}
		if err != nil {
			errs[b] = err
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[b], errs[b] = Train(part, cfg(&Divide{Lo: blk[0], Hi: blk[1], Link: links[b], Total: o.N, ValLo: vb[0], ValHi: vb[1], ValTotal: val.N}, vpart))
		}()
	}
	wg.Wait()
	return got, errs
}

// sameNPY fails unless the two checkpoints hold the same .npy files, byte
// for byte.
func sameNPY(t *testing.T, want, got string) {
	t.Helper()
	list := func(dir string) []string {
		var out []string
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, ".npy") {
				rel, _ := filepath.Rel(dir, p)
				out = append(out, rel)
			}
			return nil
		})
		sort.Strings(out)
		return out
	}
	w, g := list(want), list(got)
	if strings.Join(w, " ") != strings.Join(g, " ") || len(w) == 0 {
		t.Fatalf("checkpoint files %v, want %v", g, w)
	}
	for _, f := range w {
		a, _ := os.ReadFile(filepath.Join(want, f))
		b, _ := os.ReadFile(filepath.Join(got, f))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs from one process's", f)
		}
	}
}

// TestDividedCTValidationEqualsOne: the CT projector applies images in
// groups of 4, so the validation blocks hold whole groups too; 2
// processes record one process's validation objectives and checkpoint.
func TestDividedCTValidationEqualsOne(t *testing.T) {
	all := testproblems.CTSmall(t, 14, 16, 3)
	o, err := all.Block(0, 8)
	if err != nil {
		t.Fatal(err)
	}
	val, err := all.Block(8, 14)
	if err != nil {
		t.Fatal(err)
	}
	cfg := func(d *Divide, v *problem.Objective, dir string) Config {
		return Config{Problem: Problem{Validation: v},
			Method: Method{Param: method(t, "m-ps"), Lambda: Constant(1e-3), Mu: Constant(1e-3), Divide: d},
			Solver: Solver{Inner: LBFGS{}, WeightScales: []float64{1, 0.1}}, Stop: Stop{MaxSteps: 2}, Store: Store{Dir: dir}}
	}
	wantDir, dir := t.TempDir(), t.TempDir()
	want, err := Train(o, cfg(nil, val, wantDir))
	if err != nil {
		t.Fatal(err)
	}
	got, errs := trainValBlocks(o, val, 2, func(d *Divide, v *problem.Objective) Config {
		if d.Lo > 0 {
			return cfg(d, v, "")
		}
		return cfg(d, v, dir)
	})
	for b, r := range got {
		if errs[b] != nil {
			t.Fatalf("process %d: %v", b, errs[b])
		}
		for s, ws := range want.Steps {
			if gs := r.Steps[s]; math.Float64bits(gs.ValF) != math.Float64bits(ws.ValF) {
				t.Errorf("process %d, step %d: validation f %v, want %v", b, s, gs.ValF, ws.ValF)
			}
		}
	}
	sameNPY(t, wantDir, dir)
}

// TestDividedFamilyNamesEveryOperator: processes holding blocks of a
// family of blurs and weights alone (Divide.Total) record one process's
// operator and regularizer names and parameters given every function's
// (Divide.Family), and are refused without them.
func TestDividedFamilyNamesEveryOperator(t *testing.T) {
	p, err := problem.Lookup("deblur", problem.Options{H: 12, BlurSigmaRange: [2]float64{1, 2}, AlphaRange: [2]float64{1e-4, 1e-2}})
	if err != nil {
		t.Fatal(err)
	}
	const n = 5
	truth := deblurSet(t, n, 12, 6).Truth
	o, err := p.Instantiate(truth, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	fam, err := p.Family(n, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg := func(d *Divide) Config {
		return Config{Method: Method{Param: method(t, "m-ps"), Lambda: Constant(1e-3), Mu: Constant(1e-3), Divide: d},
			Solver: Solver{Inner: LBFGS{}}, Stop: Stop{MaxSteps: 1}, Store: Store{KeepParams: true}}
	}
	want, err := Train(o, cfg(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, withFamily := range []bool{true, false} {
		blocks := steploss.Blocks(n, 2)
		links := steploss.Pipes(2)
		got, errs := make([]*Result, 2), make([]error, 2)
		var wg sync.WaitGroup
		for b, blk := range blocks {
			part, err := o.Block(blk[0], blk[1])
			if err != nil {
				t.Fatal(err)
			}
			d := &Divide{Lo: blk[0], Hi: blk[1], Link: links[b], Total: n}
			if withFamily {
				d.Family = fam
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[b], errs[b] = Train(part, cfg(d))
			}()
		}
		wg.Wait()
		for b := range blocks {
			if !withFamily {
				if errs[b] == nil || !strings.Contains(errs[b].Error(), "Divide.Family") {
					t.Errorf("process %d without the family: %v, want a refusal naming Divide.Family", b, errs[b])
				}
				continue
			}
			if errs[b] != nil {
				t.Fatalf("process %d: %v", b, errs[b])
			}
			m, w := got[b].Manifest, want.Manifest
			if m.Operator != w.Operator || m.Regular != w.Regular || firstBitDiff(got[b].Theta[0], want.Theta[0]) >= 0 {
				t.Errorf("process %d: operator %s, regularizer %s; one process's %s, %s (or other parameters)", b, m.Operator, m.Regular, w.Operator, w.Regular)
			}
		}
	}
}

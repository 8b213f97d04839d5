package steploss

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/models"
)

// TestLinkedBlocksAgree runs 1, 2, 3 and 5 "processes" (goroutines), each
// with the step loss of its block of 7 functions (NewStepLossBlock), joined
// by channels: every process's value, gradient and block gradients must be
// bitwise those of one step loss on all 7, and the blocks' next iterates
// together its next iterate.
func TestLinkedBlocksAgree(t *testing.T) {
	o := testproblems.DeblurSet(t, 7, 16, 2)
	x, g, p := testproblems.StepData(t, o, 7)
	hw := o.ImageLen()
	for _, prec := range []Precision{Float64, Float32} {
		for _, name := range []string{"ps", "m-ps", "m-pc", "m-pp", "pc3:pc", "m-npoly2"} {
			t.Run(string(prec)+"/"+name, func(t *testing.T) {
				one := loadedLoss(t, name, o, stepPaths{precision: prec, noReduce: true}, x, g, p, 0.05, 0.3)
				u := testPoint(one, 3)
				want := evalAll(t, one, u)
				for _, k := range []int{1, 2, 3, 5} {
					blocks := Blocks(o.N, k)
					links := Pipes(k)
					got := make([][][]float64, k)
					errs := make([]error, k)
					var wg sync.WaitGroup
					for b, blk := range blocks {
						wg.Add(1)
						go func() {
							defer wg.Done()
							errs[b] = func() error {
								sub, err := o.Block(blk[0], blk[1])
								if err != nil {
									return err
								}
								s, err := NewStepLossBlock(testproblems.Method(t, name), sub, o.N, 1/o.L, prec, links[b])
								if err != nil {
									return err
								}
								defer s.Close()
								part := func(v []float64) []float64 { return v[blk[0]*hw : blk[1]*hw] }
								if err := s.SetStep(part(x), part(g), part(p), 0.05, 0.3); err != nil {
									return err
								}
								got[b] = evalAllErr(s, u)
								if got[b] == nil {
									return fmt.Errorf("evaluation failed")
								}
								return nil
							}()
						}()
					}
					wg.Wait()
					for b := range k {
						if errs[b] != nil {
							t.Fatalf("%d blocks, block %d: %v", k, b, errs[b])
						}
						for i := range len(want) - 1 { // all but the next iterate
							if j := firstDiff(got[b][i], want[i]); j >= 0 {
								t.Errorf("%d blocks, block %d: result %d [%d] = %v, want %v", k, b, i, j, got[b][i][j], want[i][j])
							}
						}
						nextWant := want[len(want)-1][blocks[b][0]*hw : blocks[b][1]*hw]
						if j := firstDiff(got[b][len(want)-1], nextWant); j >= 0 {
							t.Errorf("%d blocks, block %d: next[%d] differs", k, b, j)
						}
					}
				}
			})
		}
	}
}

// evalAllErr is evalAll for a goroutine: nil on an error.
func evalAllErr(s *StepLoss, u []float64) [][]float64 {
	grad := make([]float64, len(u))
	v, err := s.Eval(u, grad)
	if err != nil {
		return nil
	}
	out := [][]float64{{v}, grad}
	for b := range len(terms(s.method)) {
		gb := make([]float64, s.BlockLen(b))
		vb, err := s.EvalBlock(b, u, gb)
		if err != nil {
			return nil
		}
		out = append(out, []float64{vb}, gb)
	}
	next := make([]float64, s.obj.N*s.obj.ImageLen())
	if err := s.Next(next, u); err != nil {
		return nil
	}
	return append(out, next)
}

// TestLinkedBlocksReduce divides PF's reduced step loss (its subspace
// built from every function's gradient, gathered in function order, each
// block keeping its functions' coordinates) into 1, 2, 3 and 5 blocks:
// every block's Dim, value, gradient, block gradients and curvature must
// be bitwise those of one step loss on all 7 functions, and the blocks'
// next iterates together its next iterate.
func TestLinkedBlocksReduce(t *testing.T) {
	o := testproblems.DeblurSet(t, 7, 12, 2)
	x, g, p := testproblems.StepData(t, o, 5)
	hw := o.ImageLen()
	for _, name := range []string{"pf", "pf:ps"} {
		one := loadedLoss(t, name, o, stepPaths{}, x, g, p, 0.05, 0.3)
		if one.reducers == nil {
			t.Fatalf("%s: the one-process loss is not reduced (%s)", name, one.ev.kind())
		}
		u := testPoint(one, 4)
		want := evalAll(t, one, u)
		wantCurv, _ := one.Curvature(0)
		for _, k := range []int{1, 2, 3, 5} {
			blocks, links := Blocks(o.N, k), Pipes(k)
			got, curv := make([][][]float64, k), make([]float64, k)
			errs := make([]error, k)
			var wg sync.WaitGroup
			for b, blk := range blocks {
				wg.Go(func() {
					sub, err := o.Block(blk[0], blk[1])
					if err != nil {
						errs[b] = err
						return
					}
					m, err := models.ParseMethod(name)
					if err != nil {
						errs[b] = err
						return
					}
					s, err := NewStepLossBlock(m, sub, o.N, 1/o.L, Float64, links[b])
					if err != nil {
						errs[b] = err
						return
					}
					defer s.Close()
					part := func(v []float64) []float64 { return v[blk[0]*hw : blk[1]*hw] }
					if errs[b] = s.SetStep(part(x), part(g), part(p), 0.05, 0.3); errs[b] != nil {
						return
					}
					if s.reducers == nil {
						errs[b] = fmt.Errorf("block %d is not reduced (%s)", b, s.ev.kind())
						return
					}
					if s.Dim() != one.Dim() {
						errs[b] = fmt.Errorf("block %d: %d working coordinates, want %d", b, s.Dim(), one.Dim())
						return
					}
					curv[b], _ = s.Curvature(0)
					got[b] = evalAllErr(s, u)
				})
			}
			wg.Wait()
			for b := range k {
				if errs[b] != nil {
					t.Fatalf("%s, %d blocks: %v", name, k, errs[b])
				}
				if got[b] == nil {
					t.Fatalf("%s, %d blocks, block %d: an evaluation failed", name, k, b)
				}
				if math.Float64bits(curv[b]) != math.Float64bits(wantCurv) {
					t.Errorf("%s, %d blocks, block %d: curvature %v, want %v", name, k, b, curv[b], wantCurv)
				}
				for i := range len(want) - 1 {
					if j := firstDiff(got[b][i], want[i]); j >= 0 {
						t.Errorf("%s, %d blocks, block %d: result %d [%d] = %v, want %v", name, k, b, i, j, got[b][i][j], want[i][j])
					}
				}
				if j := firstDiff(got[b][len(want)-1], want[len(want)-1][blocks[b][0]*hw:blocks[b][1]*hw]); j >= 0 {
					t.Errorf("%s, %d blocks, block %d: next[%d] differs", name, k, b, j)
				}
			}
		}
	}
}

// TestPipesGatherInARow: three blocks gathering many times in a row, one
// of them yielding between its sends, each get every block's values of
// each round in block order.
func TestPipesGatherInARow(t *testing.T) {
	const k, rounds = 3, 2000
	links := Pipes(k)
	errs := make(chan error, k)
	for b := range k {
		go func() {
			g := links[b].(Gatherer)
			for r := range rounds {
				if b == k-1 {
					runtime.Gosched()
				}
				all, at, err := g.Gather([]float64{float64(r), float64(b)})
				if err != nil {
					errs <- err
					return
				}
				for c := range k {
					if all[2*c] != float64(r) || all[2*c+1] != float64(c) || at != 2*b {
						errs <- fmt.Errorf("block %d, round %d: gathered %v at %d", b, r, all, at)
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for range k {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

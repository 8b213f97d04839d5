package steploss

import (
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testproblems"
)

// evalAt returns the step loss's value and gradient at u, the loss built
// and loaded at GOMAXPROCS procs.
func evalAt(t *testing.T, procs int, name string, paths stepPaths, seed uint64) (float64, []float64, []float64) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	o := testproblems.DeblurSet(t, 7, 16, 2)
	x, g, p := testproblems.StepData(t, o, 7)
	s := loadedLoss(t, name, o, paths, x, g, p, 0.05, 0.3)
	u := testPoint(s, seed)
	grad := make([]float64, len(u))
	v, err := s.Eval(u, grad)
	if err != nil {
		t.Fatal(err)
	}
	next := make([]float64, len(x))
	if err := s.Next(next, u); err != nil {
		t.Fatal(err)
	}
	return v, grad, next
}

// TestThreadCountInvariance checks that the step loss's value, gradient and
// next iterate are bitwise the same at 1, 2, 3 and 5 threads (GOMAXPROCS)
// on 7 functions, for every family and both precisions: every sum over
// functions follows the functions, not the chunks of the threads.
func TestThreadCountInvariance(t *testing.T) {
	for _, prec := range []Precision{Float64, Float32} {
		for _, name := range []string{"ps", "pc", "m-ps", "m-pc", "m-pp", "pc3:pc", "pf:ps", "pf", "m-npoly2"} {
			if prec == Float32 && name == "pf" {
				continue // reduced PF is float64 only
			}
			t.Run(string(prec)+"/"+name, func(t *testing.T) {
				paths := stepPaths{precision: prec}
				v1, g1, n1 := evalAt(t, 1, name, paths, 1)
				for _, procs := range []int{2, 3, 5} {
					v, g, n := evalAt(t, procs, name, paths, 1)
					if math.Float64bits(v) != math.Float64bits(v1) {
						t.Errorf("%d threads: value %v, want %v (1 thread)", procs, v, v1)
					}
					if i := firstDiff(g, g1); i >= 0 {
						t.Errorf("%d threads: gradient[%d] = %v, want %v (1 thread)", procs, i, g[i], g1[i])
					}
					if i := firstDiff(n, n1); i >= 0 {
						t.Errorf("%d threads: next[%d] = %v, want %v (1 thread)", procs, i, n[i], n1[i])
					}
				}
			})
		}
	}
}

// firstDiff returns the first index where a and b differ in bits, or -1.
func firstDiff(a, b []float64) int {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	return -1
}

// TestShardInvariance checks that the step loss on 7 functions divided into
// 1, 2, 3 and 5 blocks (one engine each, the running sums passed from block
// to block) gives bitwise the value, gradient, block gradients and next
// iterate of one engine on every function, for every family the engine
// runs in its own kinds and both precisions.
func TestShardInvariance(t *testing.T) {
	o := testproblems.DeblurSet(t, 7, 16, 2)
	x, g, p := testproblems.StepData(t, o, 7)
	for _, prec := range []Precision{Float64, Float32} {
		for _, name := range []string{"ps", "pc", "m-ps", "m-pc", "m-pp", "pf:ps", "pc3:pc", "m-pc5", "m-npoly2"} {
			t.Run(string(prec)+"/"+name, func(t *testing.T) {
				one := loadedLoss(t, name, o, stepPaths{precision: prec, noReduce: true}, x, g, p, 0.05, 0.3)
				u := testPoint(one, 2)
				want := evalAll(t, one, u)
				for _, k := range []int{1, 2, 3, 5} {
					s := loadedLoss(t, name, o, stepPaths{precision: prec, noReduce: true, shards: Blocks(o.N, k)}, x, g, p, 0.05, 0.3)
					got := evalAll(t, s, u)
					for i := range want {
						if j := firstDiff(got[i], want[i]); j >= 0 {
							t.Errorf("%d shards (%s): result %d [%d] = %v, want %v", k, s.ev.kind(), i, j, got[i][j], want[i][j])
						}
					}
				}
			})
		}
	}
}

// evalAll returns, at u, the value, the gradient, each block's gradient
// (EvalBlock) and the next iterate, as slices.
func evalAll(t *testing.T, s *StepLoss, u []float64) [][]float64 {
	t.Helper()
	grad := make([]float64, len(u))
	v, err := s.Eval(u, grad)
	if err != nil {
		t.Fatal(err)
	}
	out := [][]float64{{v}, grad}
	for b := range len(terms(s.method)) {
		gb := make([]float64, s.BlockLen(b))
		vb, err := s.EvalBlock(b, u, gb)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, []float64{vb}, gb)
	}
	next := make([]float64, s.obj.N*s.obj.ImageLen())
	if err := s.Next(next, u); err != nil {
		t.Fatal(err)
	}
	return append(out, next)
}

// TestShardInvarianceReduced is TestShardInvariance for reduced terms (PF
// in its step's subspace): every shard builds the subspace from every
// function's operand and keeps its own functions' coordinates, and the
// value, gradients and next iterate are bitwise one engine's.
func TestShardInvarianceReduced(t *testing.T) {
	o := testproblems.DeblurSet(t, 7, 12, 2)
	x, g, p := testproblems.StepData(t, o, 7)
	for _, name := range []string{"pf", "pf:ps", "m-pf"} {
		t.Run(name, func(t *testing.T) {
			one := loadedLoss(t, name, o, stepPaths{}, x, g, p, 0.05, 0.3)
			if k := one.ev.kind(); k != "reduced" {
				t.Fatalf("kind %q, want reduced", k)
			}
			u := testPoint(one, 2)
			want := evalAll(t, one, u)
			for _, k := range []int{2, 3, 5} {
				s := loadedLoss(t, name, o, stepPaths{shards: Blocks(o.N, k)}, x, g, p, 0.05, 0.3)
				if s.Dim() != one.Dim() {
					t.Fatalf("%d shards: %d coordinates, want %d", k, s.Dim(), one.Dim())
				}
				got := evalAll(t, s, u)
				for i := range want {
					if j := firstDiff(got[i], want[i]); j >= 0 {
						t.Errorf("%d shards: result %d [%d] = %v, want %v", k, i, j, got[i][j], want[i][j])
					}
				}
			}
		})
	}
}

// TestGroupBlocks: blocks of whole groups, the last one short, and no more
// blocks than groups.
func TestGroupBlocks(t *testing.T) {
	for _, tc := range []struct {
		n, k, g int
		want    [][2]int
	}{
		{9, 3, 4, [][2]int{{0, 4}, {4, 8}, {8, 9}}},
		{50, 2, 4, [][2]int{{0, 28}, {28, 50}}},
		{7, 3, 4, [][2]int{{0, 4}, {4, 7}}},
		{7, 3, 1, [][2]int{{0, 3}, {3, 5}, {5, 7}}},
	} {
		if got := GroupBlocks(tc.n, tc.k, tc.g); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("GroupBlocks(%d, %d, %d) = %v, want %v", tc.n, tc.k, tc.g, got, tc.want)
		}
	}
}

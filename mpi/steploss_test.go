package mpi_test

import (
	"math"
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/mpi"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// TestStepLossOverRanks: each rank holds its block of 7 functions (the
// step loss's Blocks for the run's size), joined by mpi.Chain; its step
// loss value and gradient are bitwise those of one step loss on all 7,
// which every rank also computes, and its next iterates those of its
// block; PF's reduced step loss gathers every rank's gradients (Chain.Gather).
// Run under mpirun -np 1, 2, 3 (.ci/mpi.sh).
func TestStepLossOverRanks(t *testing.T) {
	o := testproblems.DeblurSet(t, 7, 16, 2)
	x, g, p := testproblems.StepData(t, o, 7)
	hw := o.ImageLen()
	blk := steploss.Blocks(o.N, mpi.Size())[mpi.Rank()]
	sub, err := o.Block(blk[0], blk[1])
	if err != nil {
		t.Fatal(err)
	}
	part := func(v []float64) []float64 { return v[blk[0]*hw : blk[1]*hw] }
	for tag, name := range []string{"ps", "m-ps", "m-pc", "m-pp", "pf"} {
		one, err := steploss.NewStepLossIn(testproblems.Method(t, name), o, 1/o.L, steploss.Float64)
		if err != nil {
			t.Fatal(err)
		}
		block, err := steploss.NewStepLossBlock(testproblems.Method(t, name), sub, o.N, 1/o.L, steploss.Float64, mpi.Chain{Tag: 100 + tag})
		if err != nil {
			t.Fatal(err)
		}
		if err := one.SetStep(x, g, p, 0.05, 0.3); err != nil {
			t.Fatal(err)
		}
		if err := block.SetStep(part(x), part(g), part(p), 0.05, 0.3); err != nil {
			t.Fatal(err)
		}
		u := one.Reference()
		for i := range u {
			u[i] *= 1 + 0.01*float64(i%7)
		}
		want, got := make([]float64, len(u)), make([]float64, len(u))
		vw, err1 := one.Eval(u, want)
		vg, err2 := block.Eval(u, got)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v, %v", name, err1, err2)
		}
		if math.Float64bits(vw) != math.Float64bits(vg) {
			t.Errorf("%s, rank %d of %d: step loss %v, one process %v", name, mpi.Rank(), mpi.Size(), vg, vw)
		}
		for i := range want {
			if math.Float64bits(want[i]) != math.Float64bits(got[i]) {
				t.Fatalf("%s, rank %d of %d: gradient[%d] %v, one process %v", name, mpi.Rank(), mpi.Size(), i, got[i], want[i])
			}
		}
		nextWant, nextGot := make([]float64, len(x)), make([]float64, sub.N*hw)
		if err := one.Next(nextWant, u); err != nil {
			t.Fatal(err)
		}
		if err := block.Next(nextGot, u); err != nil {
			t.Fatal(err)
		}
		for i, v := range nextGot {
			if math.Float64bits(v) != math.Float64bits(part(nextWant)[i]) {
				t.Fatalf("%s, rank %d: next iterate [%d] differs", name, mpi.Rank(), i)
			}
		}
		one.Close()
		block.Close()
	}
}

// BenchmarkStepLossOverRanks times one evaluation (value and gradient) of
// the M-PC step loss on 25 functions of 96×96, each rank holding its block
// and passing the running sums on (mpi.Chain). Run it with a fixed count,
// the same on every rank: mpirun -np 2 -x GOMAXPROCS=1 bin/mpi.test
// -test.run '^$' -test.bench StepLossOverRanks -test.benchtime 200x
// (docs/scale-out.md); on one process it is the whole step loss.
func BenchmarkStepLossOverRanks(b *testing.B) {
	o := testproblems.DeblurSet(b, 25, 96, 2)
	x, g, p := testproblems.StepData(b, o, 7)
	hw := o.ImageLen()
	blk := steploss.Blocks(o.N, mpi.Size())[mpi.Rank()]
	sub, err := o.Block(blk[0], blk[1])
	if err != nil {
		b.Fatal(err)
	}
	loss, err := steploss.NewStepLossBlock(testproblems.Method(b, "m-pc"), sub, o.N, 1/o.L, steploss.Float64, mpi.Chain{Tag: 200})
	if err != nil {
		b.Fatal(err)
	}
	defer loss.Close()
	part := func(v []float64) []float64 { return v[blk[0]*hw : blk[1]*hw] }
	if err := loss.SetStep(part(x), part(g), part(p), 0.05, 0.3); err != nil {
		b.Fatal(err)
	}
	// Two points in turn: an evaluation at the last point may be reused.
	u := [2][]float64{loss.Reference(), loss.Reference()}
	for i := range u[1] {
		u[1][i] *= 1.01
	}
	grad := make([]float64, len(u[0]))
	b.ResetTimer()
	for i := range b.N {
		if _, err := loss.Eval(u[i%2], grad); err != nil {
			b.Fatal(err)
		}
	}
}

package steploss

import (
	"sync"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/internal/testsupport"
)

// TestDeviceShardsAgree checks that the engine's device pass divides: the
// step loss on 7 functions on the float64 CPU device in 2, 3 and 5 shards,
// and in 2 and 3 linked blocks (NewStepLossBlockOn over Pipes), gives the
// value, gradient, block gradients and next iterate of one device loss on
// every function, to rounding (each block sums its functions on its device,
// the blocks' sums then added in block order).
func TestDeviceShardsAgree(t *testing.T) {
	o := testproblems.DeblurSet(t, 7, 16, 2)
	x, g, p := testproblems.StepData(t, o, 7)
	dev := gpu.CPU()
	for _, name := range []string{"ps", "pc", "m-ps", "m-pc", "m-pp", "pc3:pc"} {
		t.Run(name, func(t *testing.T) {
			one := loadedLoss(t, name, o, stepPaths{device: dev}, x, g, p, 0.05, 0.3)
			if k := one.ev.kind(); k != "device" {
				t.Fatalf("kind %q, want device", k)
			}
			u := testPoint(one, 4)
			want := evalAll(t, one, u)
			check := func(what string, got [][]float64, next []float64) {
				for i := range len(want) - 1 {
					if d := testsupport.RelDiff(got[i], want[i]); !(d <= 1e-12) {
						t.Errorf("%s: result %d differs by %.2g relative to its largest value", what, i, d)
					}
				}
				if d := testsupport.RelDiff(got[len(want)-1], next); !(d <= 1e-12) {
					t.Errorf("%s: next differs by %.2g", what, d)
				}
			}
			for _, k := range []int{2, 3, 5} {
				s := loadedLoss(t, name, o, stepPaths{device: dev, shards: Blocks(o.N, k)}, x, g, p, 0.05, 0.3)
				check(s.ev.kind(), evalAll(t, s, u), want[len(want)-1])
			}
			for _, k := range []int{2, 3} {
				got := linkedOnDevice(t, name, dev, k, x, g, p, u)
				hw := o.ImageLen()
				for b, blk := range Blocks(o.N, k) {
					check("linked block", got[b], want[len(want)-1][blk[0]*hw:blk[1]*hw])
				}
			}
		})
	}
}

// linkedOnDevice evaluates the device step loss of name in k linked blocks,
// one goroutine each, and returns each block's evalAll.
func linkedOnDevice(t *testing.T, name string, dev gpu.Ops, k int, x, g, p, u []float64) [][][]float64 {
	t.Helper()
	o := testproblems.DeblurSet(t, 7, 16, 2)
	hw, links := o.ImageLen(), Pipes(k)
	got, errs := make([][][]float64, k), make([]error, k)
	var wg sync.WaitGroup
	for b, blk := range Blocks(o.N, k) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sub, err := o.Block(blk[0], blk[1])
			if err != nil {
				errs[b] = err
				return
			}
			s, err := NewStepLossBlockOn(testproblems.Method(t, name), sub, o.N, 1/o.L, dev, links[b])
			if err != nil {
				errs[b] = err
				return
			}
			defer s.Close()
			part := func(v []float64) []float64 { return v[blk[0]*hw : blk[1]*hw] }
			if errs[b] = s.SetStep(part(x), part(g), part(p), 0.05, 0.3); errs[b] == nil {
				got[b] = evalAllErr(s, u)
			}
		}()
	}
	wg.Wait()
	for b := range k {
		if errs[b] != nil || got[b] == nil {
			t.Fatalf("%d linked blocks, block %d: %v", k, b, errs[b])
		}
	}
	return got
}

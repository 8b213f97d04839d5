//go:build l2ocuda

package cuda

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// uncapturedNAG is the device without its captures but with NAG's update:
// the step loss runs NAG's iterations on it one operation at a time.
type uncapturedNAG struct {
	gpu.Ops
	gpu.NAGOps
}

// TestNAGUpdateAgrees runs three NAG updates on the device and on the CPU
// device from the same vectors and table of β and compares u, y and the
// count.
func TestNAGUpdateAgrees(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(8))
	const n = 301
	vecs := [][]float64{randVec(r, n), randVec(r, n), randVec(r, n), randVec(r, n)} // u, y, g, ref
	betas := []float64{0.1, 0.4, 0.7}
	var outs [2][]float64
	for i, ops := range []gpu.Ops{d, gpu.CPU()} {
		var bufs []gpu.Buffer
		for _, v := range append(vecs, betas, []float64{0}) {
			b, err := ops.Alloc(len(v))
			if err != nil {
				t.Fatal(err)
			}
			defer ops.Free(b)
			if err := ops.CopyIn(b, v); err != nil {
				t.Fatal(err)
			}
			bufs = append(bufs, b)
		}
		for range 3 {
			if err := ops.(gpu.NAGOps).NAGUpdate(bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], bufs[5], -0.04, 0.3, 0.8); err != nil {
				t.Fatal(err)
			}
		}
		for _, b := range []gpu.Buffer{bufs[0], bufs[1], bufs[5]} {
			v := make([]float64, b.Len())
			if err := ops.CopyOut(v, b); err != nil {
				t.Fatal(err)
			}
			outs[i] = append(outs[i], v...)
		}
	}
	agree(t, "NAG update (u, y, count)", outs[0], outs[1], 1e-5)
}

// nagLoss is an M-PC step loss on ops at a step with momentum and
// penalties, 16×16, 3 functions.
func nagLoss(t *testing.T, ops gpu.Ops) (*steploss.StepLoss, []float64) {
	t.Helper()
	return nagLossOn(t, ops, testproblems.Deblur(t, 3, 16, "", -1, 3))
}

// nagLossOn is nagLoss on the functions of o.
func nagLossOn(t *testing.T, ops gpu.Ops, o *problem.Objective) (*steploss.StepLoss, []float64) {
	t.Helper()
	m, err := models.ParseMethod("m-pc")
	if err != nil {
		t.Fatal(err)
	}
	s, err := steploss.NewStepLossOn(m, o, 1/o.L, ops)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	g := make([]float64, len(o.X0))
	if err := o.Eval(nil, g, o.X0, nil); err != nil {
		t.Fatal(err)
	}
	p := make([]float64, len(g))
	for i := range p {
		p[i] = 0.02 * g[i]
	}
	if err := s.SetStep(o.X0, g, p, 0.01, 0.02); err != nil {
		t.Fatal(err)
	}
	u := s.Reference()
	for i := range u {
		u[i] *= 0.9
	}
	return s, u
}

// TestCapturedNAGAgrees runs NAG's iterations on the device
// (StepLoss.DescendBlock: 12 a block, θ then φ, twice), where iterations
// after a block's first are one captured graph replayed, and on the device
// without captures, and checks that the iterates are bitwise the same; on
// the emulation, that the graphs were launched.
func TestCapturedNAGAgrees(t *testing.T) {
	d := device(t)
	calls := filepath.Join(t.TempDir(), "calls.txt")
	if emulated(d) {
		t.Setenv("L2O_EMU_CALL_LOG", calls)
	}
	var us [2][]float64
	for i, ops := range []gpu.Ops{d, uncapturedNAG{d, d}} {
		s, u := nagLoss(t, ops)
		for range 2 {
			for b, step := range []float64{0.5, 0.3} {
				ok, err := s.DescendBlock(b, u, step, gpu.NAGBetas(12))
				if err != nil || !ok {
					t.Fatalf("block %d: ok %v, %v", b, ok, err)
				}
			}
		}
		if s.Evaluations() != 48 {
			t.Errorf("%d evaluations, want 48", s.Evaluations())
		}
		us[i] = u
	}
	for j := range us[0] {
		if math.Float64bits(us[0][j]) != math.Float64bits(us[1][j]) || math.IsNaN(us[0][j]) {
			t.Fatalf("parameter %d: %.17g captured, %.17g not", j, us[0][j], us[1][j])
		}
	}
	if emulated(d) {
		raw, err := os.ReadFile(calls)
		if err != nil {
			t.Fatal(err)
		}
		// Four blocks, each 11 iterations replayed from its graph.
		if n := strings.Count(string(raw), "\ngraph "); n != 44 {
			t.Errorf("%d graph launches, want 44", n)
		}
	}
}

// TestNAGOnDeviceAgainstHostLoop runs NAG's iterations with the iterates
// on the device (StepLoss.DescendBlock) and on the host (a loop over
// EvalBlock on the same device) and compares the results: float32 on the
// device against the host's float64 penalty and update, to 1e-4 of the
// largest parameter.
func TestNAGOnDeviceAgainstHostLoop(t *testing.T) {
	d := device(t)
	steps := []float64{0.5, 0.3}
	const iters = 10
	s, u := nagLoss(t, d)
	for b, step := range steps {
		if ok, err := s.DescendBlock(b, u, step, gpu.NAGBetas(iters)); err != nil || !ok {
			t.Fatalf("block %d: ok %v, %v", b, ok, err)
		}
	}
	h, v := nagLoss(t, d)
	lo := []int{0, h.ThetaLen(), h.Dim()}
	betas := gpu.NAGBetas(iters)
	for b, step := range steps {
		ub := v[lo[b]:lo[b+1]]
		prev := append([]float64(nil), ub...)
		y := append([]float64(nil), v...)
		g := make([]float64, len(ub))
		for _, beta := range betas {
			yb := y[lo[b]:lo[b+1]]
			for i := range ub {
				yb[i] = ub[i] + beta*(ub[i]-prev[i])
			}
			if _, err := h.EvalBlock(b, y, g); err != nil {
				t.Fatal(err)
			}
			for i := range ub {
				prev[i], ub[i] = ub[i], yb[i]-step*g[i]
			}
		}
	}
	agree(t, "NAG's result on the device against the host loop", u, v, 1e-4)
}

// maxNAGOps is the most device operations (kernels, transforms, copies
// and memsets on the device) one NAG iteration of an M-PC block may queue
// on deblurring and on CT: at these sizes a kernel's cost on a GPU is its
// launch, so the count is the iteration's time.
const maxNAGOps = 20

// TestNAGIterationOperations counts, on the CPU emulation (which records
// every piece of device work it runs, L2O_EMU_WORK_LOG), the device
// operations of one NAG iteration of StepLoss.DescendBlock replayed from
// its captured graph, for M-PC on deblurring and on ct-small: the work of
// 5 iterations less that of 3, halved, kind by kind. It fails above
// maxNAGOps, and where the iterations' work differs in number.
func TestNAGIterationOperations(t *testing.T) {
	d := device(t)
	if !emulated(d) {
		t.Skip("the device's work is recorded by the CPU emulation (scripts/cuda-emu) only")
	}
	work := filepath.Join(t.TempDir(), "work.txt")
	t.Setenv("L2O_EMU_WORK_LOG", work)
	for _, c := range []struct {
		name string
		o    *problem.Objective
	}{{"deblurring", testproblems.Deblur(t, 3, 16, "", -1, 3)}, {"ct-small", testproblems.CTSmall(t, 2, 16, 3)}} {
		s, u := nagLossOn(t, d, c.o)
		kinds := func(iters int) map[string]int {
			readLog(t, work)
			if ok, err := s.DescendBlock(0, slices.Clone(u), 0.5, gpu.NAGBetas(iters)); err != nil || !ok {
				t.Fatalf("%s: ok %v, %v", c.name, ok, err)
			}
			out := map[string]int{}
			for _, l := range readLog(t, work) {
				f := strings.Fields(l)
				if f[0] == "kernel" {
					f = f[1:]
				}
				out[f[0]]++
			}
			return out
		}
		kinds(2) // allocations, plans and the first capture
		three, five := kinds(3), kinds(5)
		total := 0
		var lines []string
		for k, n := range five {
			diff := n - three[k]
			if diff%2 != 0 {
				t.Errorf("%s: %s ran %d times in 5 iterations and %d in 3: not the same work each iteration", c.name, k, n, three[k])
			}
			if diff != 0 {
				lines = append(lines, fmt.Sprintf("%s ×%d", k, diff/2))
			}
			total += diff / 2
		}
		sort.Strings(lines)
		t.Logf("%s: %d device operations a NAG iteration: %s", c.name, total, strings.Join(lines, ", "))
		if total > maxNAGOps {
			t.Errorf("%s: %d device operations a NAG iteration, want at most %d: %s", c.name, total, maxNAGOps, strings.Join(lines, ", "))
		}
	}
}

package unroll

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/wcrr"
)

func deviceTestObjective(t *testing.T, boundary string, alpha float64) *problem.Objective {
	return deviceObjectiveSized(t, 3, 12, boundary, alpha)
}

// deviceObjectiveSized is n deblurring functions of size×size with the blur
// boundary given and α (negative: the problem's).
func deviceObjectiveSized(t *testing.T, n, size int, boundary string, alpha float64) *problem.Objective {
	t.Helper()
	return testproblems.Deblur(t, n, size, boundary, alpha, 5)
}

func relDiff(a, b []float64) float64 {
	var d, n float64
	for i := range a {
		d += (a[i] - b[i]) * (a[i] - b[i])
		n += b[i] * b[i]
	}
	return math.Sqrt(d / n)
}

// TestDeviceLossMatchesGraph checks the unrolled loss on the CPU device's
// array operations (the hand-written reverse pass) against the gorgonia
// graph's autodiff: loss, gradient in every (θt, φt), the per-step values
// and the iterates, to 1e-10 relative, for every term kind, with momentum,
// loss weights, both blur boundaries and without the regularizer.
func TestDeviceLossMatchesGraph(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	cases := []struct {
		method, boundary string
		alpha            float64
	}{
		{"ps", "zero", -1}, {"m-ps", "zero", -1}, {"pp", "reflect", -1}, {"m-pc", "zero", -1},
		{"pc3", "circular", -1}, {"m-pc5-reflect", "reflect", -1}, {"pc", "zero", 0}, {"m-pp", "zero", -1},
		{"m-pc", "ct", -1},                           // ct-small: the ray transform on the device (tomo.NewDeviceRay)
		{"m-pc", "wcrr", -1},                         // WCRR: mconv.NewDeviceConv, wcrr.NewDevicePotentials
		{"m-pf", "zero", -1}, {"pf:pc3", "zero", -1}, // PF by its graph on the host (ondevice.GraphTerm)
	}
	for _, c := range cases {
		var o *problem.Objective
		switch c.boundary {
		case "wcrr":
			o = deviceTestObjective(t, "zero", c.alpha)
			o.Reg = &problem.WCRR{Model: wcrr.Random(3, [3]int{2, 3, 4}, 9), Name: "random"}
			o.Alpha = 3e-3
		case "ct":
			o = testproblems.CTSmall(t, 3, 12, 5)
		default:
			o = deviceTestObjective(t, c.boundary, c.alpha)
		}
		m, err := models.ParseMethod(c.method)
		if err != nil {
			t.Fatal(err)
		}
		const T, B = 4, 2
		weights := []float64{0.5, 1, 0.25, 2}
		ref, err := NewLoss(m, o, T, B, 0, weights)
		if err != nil {
			t.Fatal(err)
		}
		dev, err := NewLossFor(m, o, T, B, 0, weights, execution.OnDevice(gpu.CPU()))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range []*Loss{ref, dev} {
			if err := l.SetBatch([]int{2, 0}); err != nil {
				t.Fatal(err)
			}
		}
		u := ref.Reference()
		for i := range u {
			u[i] += 0.05 * r.NormFloat64() * (math.Abs(u[i]) + 0.1)
		}
		gr, gd := make([]float64, len(u)), make([]float64, len(u))
		vr, err := ref.Eval(u, gr)
		if err != nil {
			t.Fatal(err)
		}
		vd, err := dev.Eval(u, gd)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(vd-vr) > 1e-10*math.Abs(vr) || relDiff(gd, gr) > 1e-10 {
			t.Errorf("%s (%s, α=%g): loss %.15g vs graph %.15g, gradient %.2g relative", c.method, c.boundary, o.Alpha, vd, vr, relDiff(gd, gr))
		}
		sr, _ := ref.StepValues()
		sd, _ := dev.StepValues()
		if relDiff(sd, sr) > 1e-12 {
			t.Errorf("%s: step values %v vs %v", c.method, sd, sr)
		}
		xr, _ := ref.Iterate(T)
		xd, err := dev.Iterate(T)
		if err != nil || relDiff(xd, xr) > 1e-12 {
			t.Errorf("%s: x^T differs by %.2g (%v)", c.method, relDiff(xd, xr), err)
		}
		if dev.HeldBytes() <= 0 || dev.HeldBytes() >= ref.HeldBytes() {
			t.Errorf("%s: device loss holds %d bytes, the graph %d", c.method, dev.HeldBytes(), ref.HeldBytes())
		}
		ref.Close()
		dev.Close()
	}
}

// TestDeviceLossFloat32 runs the unrolled loss (M-PC and M-PS, T = 10) on the
// float32 host device, the CUDA device's arithmetic, against the graph in
// float64: loss and gradient within 1e-4 relative.
func TestDeviceLossFloat32(t *testing.T) {
	o := deviceObjectiveSized(t, 4, 48, "", -1)
	for _, name := range []string{"m-ps", "m-pc"} {
		m, err := models.ParseMethod(name)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := NewLoss(m, o, 10, 4, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		dev, err := NewLossFor(m, o, 10, 4, 0, nil, execution.OnDevice(gpu.Host32()))
		if err != nil {
			t.Fatal(err)
		}
		u := ref.Reference()
		for i := range u {
			u[i] = 0.9*u[i] + 1e-3/o.L*math.Sin(float64(i))
		}
		gr, gd := make([]float64, len(u)), make([]float64, len(u))
		vr, err := ref.Eval(u, gr)
		if err != nil {
			t.Fatal(err)
		}
		vd, err := dev.Eval(u, gd)
		if err != nil {
			t.Fatal(err)
		}
		dv, dg := math.Abs(vd-vr)/vr, relDiff(gd, gr)
		t.Logf("%s: float32 device vs float64 graph: loss %.2g, gradient %.2g relative", name, dv, dg)
		if dv > 1e-4 || !(dg <= 1e-4) {
			t.Errorf("%s: float32 device differs: loss %.3g, gradient %.3g relative", name, dv, dg)
		}
		ref.Close()
		dev.Close()
	}
}

// TestDeviceResumeIsBitwise: unrolled training on the CPU in float32 (its
// float32 arrays), stopped after one epoch and resumed to three, ends with
// the parameters of an uninterrupted run, bit for bit, also when the first
// epoch ran on the float32 host device by name (a checkpoint recording
// "host32", as earlier versions wrote); a resume in float64 is refused.
func TestDeviceResumeIsBitwise(t *testing.T) {
	o := deviceObjectiveSized(t, 5, 8, "", -1)
	m, err := models.ParseMethod("m-pc")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Problem: Problem{Name: "deblur", Seed: 4}, Method: Method{Param: m, T: 3},
		Target: execution.CPU(problem.Float32), Solver: Solver{LearningRate: 1e-3, Batch: 2, Epochs: 3}}
	straight := cfg
	straight.Run.Dir = filepath.Join(t.TempDir(), "straight")
	want, err := Train(o, straight)
	if err != nil {
		t.Fatal(err)
	}
	split := cfg
	split.Run.Dir = filepath.Join(t.TempDir(), "split")
	split.Solver.Epochs = 1
	first := split
	first.Target = execution.OnDevice(gpu.Host32())
	if _, err := Train(o, first); err != nil {
		t.Fatal(err)
	}
	if st, err := readState(split.Run.Dir); err != nil || st.Device != "host32" {
		t.Fatalf("the first epoch's state: %v, device %q; want host32", err, st.Device)
	}
	cpu := split
	cpu.Solver.Epochs, cpu.Run.Resume, cpu.Target = 3, true, execution.Target{}
	if _, err := Train(o, cpu); err == nil || !strings.Contains(err.Error(), "device cpu32") {
		t.Errorf("resuming a float32 run on the graph: %v, want a refusal naming cpu32", err)
	}
	split.Solver.Epochs, split.Run.Resume = 3, true
	got, err := Train(o, split)
	if err != nil {
		t.Fatal(err)
	}
	for tt := range want.Theta {
		for i := range want.Theta[tt] {
			if got.Theta[tt][i] != want.Theta[tt][i] || got.Phi[tt][i] != want.Phi[tt][i] {
				t.Fatalf("step %d parameter %d: resumed run differs from the uninterrupted one", tt, i)
			}
		}
	}
}

// TestDeviceRecordsTheTrajectoryThere: a run on a device records the
// learned trajectory's values (the manifest's steps) computed on the
// device: on the float32 host device they agree with the CPU's float64
// Trajectory of the same parameters to float32 rounding, and differ from it.
func TestDeviceRecordsTheTrajectoryThere(t *testing.T) {
	o := deviceObjectiveSized(t, 4, 12, "", -1)
	m, err := models.ParseMethod("m-pc")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	cfg := Config{Problem: Problem{Name: "deblur", Seed: 4}, Method: Method{Param: m, T: 3},
		Target: execution.OnDevice(gpu.Host32()), Solver: Solver{LearningRate: 1e-3, Batch: 2, Epochs: 1}, Run: Run{Dir: dir}}
	res, err := Train(o, cfg)
	if err != nil {
		t.Fatal(err)
	}
	man, err := checkpoint.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	host, err := Trajectory(o, m, res.Theta, res.Phi, man.Tau)
	if err != nil {
		t.Fatal(err)
	}
	differ := false
	for i, st := range man.Steps {
		for _, v := range [][2]float64{{st.MeanF, host[i].MeanF}, {st.RefLoss, host[i].RefLoss}, {st.MaxGradNorm, host[i].MaxGradNorm}} {
			if math.Abs(v[0]-v[1]) > 1e-5*math.Abs(v[1]) {
				t.Errorf("step %d records %v, the CPU's float64 trajectory %v", i, v[0], v[1])
			}
			differ = differ || v[0] != v[1]
		}
	}
	if !differ {
		t.Errorf("the record equals the CPU's float64 trajectory bit for bit: it was not computed on the float32 device")
	}
}

package bench

import (
	"testing"

	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/gpu"
)

// countingOps is the CPU device under another name with its own counters,
// so that the memory benchmark's greedy row comes from an allocator the test
// controls.
type countingOps struct {
	*gpu.HostDevice
	gpu.Counter
	leak bool
	sums map[gpu.Buffer]int64 // the bytes of each live readout's sums
}

func (c *countingOps) Name() string { return "counting-test" }

func (c *countingOps) Alloc(n int) (gpu.Buffer, error) {
	b, err := c.HostDevice.Alloc(n)
	if err == nil {
		c.Counter.Add(int64(n) * 8)
	}
	return b, err
}

func (c *countingOps) AllocReadout(n, k int) (gpu.Buffer, error) {
	b, err := c.HostDevice.AllocReadout(n, k)
	if err == nil {
		c.Counter.Add(int64(n+k) * 8)
		c.sums[b] = int64(k) * 8
	}
	return b, err
}

func (c *countingOps) Free(b gpu.Buffer) {
	if !c.leak {
		c.Counter.Sub(int64(b.Len())*8 + c.sums[b])
	}
	delete(c.sums, b)
	c.HostDevice.Free(b)
}

func (c *countingOps) Stats() gpu.MemStats { return c.Counter.Stats() }
func (c *countingOps) ResetPeak()          { c.Counter.ResetPeak() }

var testOps = &countingOps{HostDevice: gpu.CPU(), sums: map[gpu.Buffer]int64{}}

func init() {
	if err := gpu.Register("counting-test", func() (gpu.Device, error) { return testOps, nil }); err != nil {
		panic(err)
	}
}

// TestGreedyOnDeviceMeter measures greedy training on a device: the row's
// held bytes are the allocator's high-water mark, which must equal the
// step loss's buffers (x, x⁺, r, scratch, and the objective's y, residual
// and scratch: 7 batches; the difference field: 2; g, p: 2; the training iterates and their gradients,
// evaluated on the device (steploss.StepLoss.DeviceObjective): 2; M-PC's spectra: 2 terms + Σθ̂v̂ and r̂: 4
// batches of 2·H·(W/2+1), 5 single spectra: θ̂, φ̂, each term's Σconj(v̂)r̂ and the pass's, and 2 single
// images: each term's parameters, and gradient, as an image for the device's transforms; the readouts:
// each term's gradient image with a sum, and the value's sum alone; the blur), the same for T = 2 and T = 6, and
// a step loss that does not give its buffers back must show in the
// counters after the run.
func TestGreedyOnDeviceMeter(t *testing.T) {
	cfg := Config{Size: 12, NTrain: 2, GreedyEvals: 3, Device: "counting-test", Target: execution.OnDevice(testOps)}
	var held [2]int64
	for i, T := range []int{2, 6} {
		row, err := Measure(Greedy, T, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if row.Device != "counting-test" {
			t.Errorf("row device %q", row.Device)
		}
		held[i] = row.HeldBytes
	}
	const n, h, w = 2, 12, 12
	img, spec := n*h*w, n*2*h*(w/2+1)
	want := int64(8 * (7*img + 2*img + 2*img + 2*img + 4*spec + 5*(2*h*(w/2+1)) + 2*h*w + 2*(h*w+1) + 1 + 25))
	if held[0] != want || held[1] != want {
		t.Errorf("held %d bytes at T = 2 and %d at T = 6, want %d each", held[0], held[1], want)
	}
	if in := testOps.Stats().InUse; in != 0 {
		t.Errorf("%d bytes still in use after training", in)
	}
	testOps.leak = true
	defer func() { testOps.leak = false }()
	if _, err := Measure(Greedy, 2, cfg); err != nil {
		t.Fatal(err)
	}
	if in := testOps.Stats().InUse; in != want {
		t.Errorf("a step loss that leaks its buffers left %d bytes in use, want %d", in, want)
	}
	testOps.leak = false
}

// TestBanertOnDeviceMeter measures Banert training on a device: its
// allocator counts the unrolled loss's buffers, which grow by exactly three
// images (x^t, ∇f(x^t), Δ_t) per step of T, and gives them all back.
func TestBanertOnDeviceMeter(t *testing.T) {
	cfg := Config{Size: 12, NTrain: 2, Epochs: 1, Device: "counting-test", Target: execution.OnDevice(testOps)}
	base := testOps.Stats().InUse // what other tests' leaking step losses left
	var held [2]int64
	for i, T := range []int{2, 5} {
		row, err := Measure(Banert, T, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !row.Allocator || row.Batch != 1 {
			t.Errorf("T = %d: row not from the allocator: %+v", T, row)
		}
		held[i] = row.HeldBytes
	}
	if got, want := held[1]-held[0], int64(3*3*12*12*8); got != want {
		t.Errorf("Banert's device bytes grew by %d from T = 2 to 5, want %d (three images per step)", got, want)
	}
	if in := testOps.Stats().InUse - base; in != 0 {
		t.Errorf("%d bytes still in use after Banert training", in)
	}
	// The 4-input network keeps the regularizer's part of ∇f too: four
	// images per step.
	cfg.BanertInputs = 4
	var four [2]int64
	for i, T := range []int{2, 5} {
		row, err := Measure(Banert, T, cfg)
		if err != nil {
			t.Fatal(err)
		}
		four[i] = row.HeldBytes
	}
	if got, want := four[1]-four[0], int64(3*4*12*12*8); got != want {
		t.Errorf("4-input Banert's device bytes grew by %d from T = 2 to 5, want %d (four images per step)", got, want)
	}
}

// TestUnrolledOnDeviceMeter measures unrolled training on a device: its
// allocator counts the loss's buffers, 2(T+1) trajectory batches, T steps'
// parameter gradients and values plus a fixed part, so the bytes grow by
// exactly that much per step of T, and the
// greedy/unrolled ratio printed comes from that allocator.
func TestUnrolledOnDeviceMeter(t *testing.T) {
	cfg := Config{Size: 12, NTrain: 2, Batch: 2, Epochs: 1, GreedyEvals: 2, Device: "counting-test", Target: execution.OnDevice(testOps)}
	var rows []Row
	for _, T := range []int{2, 5} {
		for _, tr := range []string{Greedy, Unrolled} {
			row, err := Measure(tr, T, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !row.Allocator {
				t.Fatalf("%s T=%d: row not marked as counted by the allocator", tr, T)
			}
			rows = append(rows, row)
		}
	}
	u2, _ := Find(rows, Unrolled, 2)
	u5, _ := Find(rows, Unrolled, 5)
	if got, want := u5.HeldBytes-u2.HeldBytes, int64(3*(2*2*12*12*8+2*12*12*8+2*8)); got != want {
		t.Errorf("unrolled bytes grew by %d from T = 2 to 5, want %d (per step: two batches, M-PC's two parameter gradients and the value's float64 sum in each of the two readouts)", got, want)
	}
	found := false
	for _, g := range Growths(rows) {
		if g.What == "greedy(5)/unrolled(5)" {
			found = true
			g5, _ := Find(rows, Greedy, 5)
			if want := float64(g5.DevicePeak) / float64(u5.DevicePeak); g.Allocator != want {
				t.Errorf("allocator ratio %v, want %v", g.Allocator, want)
			}
		}
	}
	if !found {
		t.Error("no greedy(5)/unrolled(5) ratio")
	}
}

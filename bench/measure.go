package bench

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"time"

	"github.com/greedyl2o/greedyl2o/baselines/banert"
	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/greedy"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/ondevice"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/steploss"
	"github.com/greedyl2o/greedyl2o/unroll"
)

// The trainers Measure knows.
const (
	Greedy   = "greedy"
	Unrolled = "unrolled"
	Banert   = "banert"
)

// Trainers lists the trainers in the order the benchmark runs them.
var Trainers = []string{Greedy, Unrolled, Banert}

// DefaultTs are the horizons of the benchmark.
var DefaultTs = []int{1, 2, 5, 10, 20, 50, 100}

// Config describes the training problem of the benchmark.
type Config struct {
	// Problem is a registered problem name (default "deblur").
	Problem string
	// Size is the image size (default 48) and NTrain the number of synthetic
	// training functions (default 4).
	Size, NTrain int
	// Param is the method of greedy and unrolled training (default "m-pc").
	Param string
	// Batch is the unrolled mini-batch size (default min(4, NTrain)).
	Batch int
	// Seed of the synthetic data (default 1).
	Seed int64
	// GreedyEvals caps the L-BFGS evaluations per greedy step (default 20):
	// the benchmark times memory-relevant work, not a converged training.
	GreedyEvals int
	// Epochs of unrolled training per measurement (default 2); the timing is
	// that of the last epoch, so it excludes the first run's allocations.
	Epochs int
	// BanertInputs is the number of input channels of the Banert network (default 3).
	BanertInputs int
	// Device is the --device the Target was resolved from (recorded in
	// memory.json and passed to the child processes): "cpu" by default.
	Device string
	// Target is where the trainers' losses run (execution.Resolve of
	// Device): the CPU's own paths in its precision (the zero Target: float64),
	// or a device with array operations (cuda in l2ocuda builds), whose
	// allocator then holds every buffer of greedy's step loss, the unrolled
	// loss and Banert's unrolled loss, and whose counters give the row's
	// DevicePeak.
	Target execution.Target `json:"-"`
	// Arrays runs the trainers' device code path on the CPU's array
	// operations in the Target's precision (gpu.CPU, gpu.Host32), whose
	// allocator then holds and counts every buffer as a device's would.
	Arrays bool `json:",omitempty"`
}

func (c *Config) defaults() error {
	if c.Problem == "" {
		c.Problem = "deblur"
	}
	if c.Size == 0 {
		c.Size = 48
	}
	if c.NTrain == 0 {
		c.NTrain = 4
	}
	if c.Param == "" {
		c.Param = "m-pc"
	}
	if c.Batch == 0 {
		c.Batch = min(4, c.NTrain)
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.GreedyEvals == 0 {
		c.GreedyEvals = 20
	}
	if c.Epochs == 0 {
		c.Epochs = 2
	}
	if c.BanertInputs == 0 {
		c.BanertInputs = 3
	}
	if c.Device == "" {
		c.Device = "cpu"
	}
	switch {
	case c.Size < 4 || c.Size > 4096:
		return fmt.Errorf("bench: image size %d out of range: use 4 to 4096", c.Size)
	case c.NTrain < 1:
		return fmt.Errorf("bench: %d training functions: use at least 1", c.NTrain)
	case c.Batch < 1 || c.Batch > c.NTrain:
		return fmt.Errorf("bench: batch size %d must be between 1 and the %d training functions", c.Batch, c.NTrain)
	case c.GreedyEvals < 1 || c.Epochs < 1:
		return fmt.Errorf("bench: greedy evaluations (%d) and unrolled epochs (%d) must be at least 1", c.GreedyEvals, c.Epochs)
	}
	return nil
}

// Row is one measurement.
type Row struct {
	Trainer string `json:"trainer"`
	T       int    `json:"T"`
	Size    int    `json:"size"`
	NTrain  int    `json:"n_train"`
	// Batch is the number of functions in the training graph (greedy: all
	// NTrain; unrolled: the mini-batch; Banert: 1).
	Batch int `json:"batch"`
	// HeldBytes is graph.HeldBytes of the training graph after a run.
	HeldBytes int64 `json:"held_bytes"`
	// DevicePeak is the peak of the device counters during the measurement,
	// above what was in use when it started (on the CPU device without
	// Config.Device: the tallies the trainers record there with gpu.Track).
	DevicePeak int64 `json:"device_peak_bytes"`
	// PeakRSS is the process's VmHWM at the end (per configuration only when
	// the measurement ran in its own process).
	PeakRSS int64 `json:"peak_rss_bytes"`
	// LiveHeap is measured by the Go runtime rather than by a tally: the
	// largest live heap after a garbage collection at the end of a training
	// step (greedy: every step; unrolled: every epoch; Banert: every pass),
	// less the live heap before training. It counts what the trainer keeps
	// from step to step, the graph's bookkeeping included, and not what a
	// step allocates and drops. (The collections between steps may lower
	// the peak RSS a little against an unmetered run.)
	LiveHeap int64 `json:"live_heap_bytes"`
	// Seconds is the training time measured: greedy, all T steps; unrolled,
	// one epoch; Banert, one epoch of NTrain steps (batch size 1).
	Seconds float64 `json:"seconds"`
	// SecondsPerStep is per greedy step (with the capped inner solver) or per
	// Adam step (one run of the unrolled graph with its gradient).
	SecondsPerStep float64 `json:"seconds_per_step"`
	Device         string  `json:"device"`
	Process        string  `json:"process"` // "child" or "shared"
	// DeviceUsed is total − free device memory (cuMemGetInfo) after the
	// training (its loss freed), for devices that report it (CUDA). It is
	// device-wide: every context on the GPU (this process's, the parent
	// bench process's, other programs') and cuFFT's plans (their work
	// areas come from the allocator and are in DevicePeak too).
	DeviceUsed int64 `json:"device_used_bytes,omitempty"`
	// Allocator is set when every buffer of the trainer's loss was
	// allocated on the device (Config.Device other than cpu): DevicePeak
	// and HeldBytes are then the device allocator's high-water mark, the
	// same meter for greedy and unrolled.
	Allocator bool `json:"allocator,omitempty"`
}

// memInfo is implemented by devices that report their free and total memory.
type memInfo interface {
	MemInfo() (free, total int64, err error)
}

// arrays returns the array operations the trainer runs on (nil: the CPU's
// own paths) and the device whose counters the row reads: the Target's
// device; with Arrays, or for Banert in float32 (whose float32 path on the
// CPU is its array code), the CPU's array operations in the Target's
// precision.
func arrays(cfg Config, trainer string) (gpu.Ops, gpu.Device, error) {
	ops := cfg.Target.Device
	if ops == nil && (cfg.Arrays || trainer == Banert && cfg.Target.Prec() == problem.Float32) {
		if ops = cfg.Target.Arrays(); ops == nil {
			ops = gpu.CPU()
		}
	}
	if ops == nil {
		return nil, gpu.CPU(), nil
	}
	if _, ok := ops.(gpu.NetOps); trainer == Banert && !ok {
		return nil, nil, fmt.Errorf("bench: device %s has no network operations for Banert training; measure it with device cpu", ops.Name())
	}
	return ops, ops, nil
}

// runsOn is the target of a trainer on the array operations ops, or, for
// nil, the CPU's own paths in the configured precision.
func runsOn(cfg Config, ops gpu.Ops) execution.Target {
	if ops != nil {
		return execution.OnDevice(ops)
	}
	return cfg.Target
}

// Objective builds the training functions of the benchmark from synthetic images.
func Objective(cfg Config) (*problem.Objective, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	prob, err := problem.Lookup(cfg.Problem, problem.Options{H: cfg.Size, Seed: uint64(cfg.Seed)})
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	gen := data.Synthetic
	if strings.HasPrefix(cfg.Problem, "ct") {
		gen = func(n, h, w int, seed int64) []*data.Image { return data.Phantoms(n, h, seed) }
	}
	n, _, _, pix, err := data.Stack(gen(cfg.NTrain, prob.H, prob.W, cfg.Seed))
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	o, err := prob.Instantiate(pix, n, 0)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	return o, nil
}

// Measure trains with the named trainer for horizon T on the benchmark's
// functions and reports memory and time. It runs in the calling process:
// PeakRSS is the process's high-water mark (reset first where the kernel
// allows it).
func Measure(trainer string, T int, cfg Config) (Row, error) {
	if err := cfg.defaults(); err != nil {
		return Row{}, err
	}
	if T < 1 {
		return Row{}, fmt.Errorf("bench: horizon T = %d must be at least 1", T)
	}
	o, err := Objective(cfg)
	if err != nil {
		return Row{}, err
	}
	ops, dev, err := arrays(cfg, trainer)
	if err != nil {
		return Row{}, err
	}
	_ = ResetPeakRSS()
	heap := newHeapMeter()
	base := dev.Stats().InUse
	dev.ResetPeak()
	row := Row{Trainer: trainer, T: T, Size: cfg.Size, NTrain: cfg.NTrain, Device: cfg.Target.String(), Process: "shared"}
	switch trainer {
	case Greedy:
		err = measureGreedy(&row, o, T, cfg, heap, ops)
	case Unrolled:
		err = measureUnrolled(&row, o, T, cfg, heap, ops)
	case Banert:
		if ops != nil {
			err = measureBanertOn(&row, o, T, cfg, heap, ops.(gpu.NetOps))
		} else {
			err = measureBanert(&row, o, T, cfg, heap)
		}
	default:
		err = fmt.Errorf("bench: unknown trainer %q: use %s", trainer, strings.Join(Trainers, ", "))
	}
	if err != nil {
		return Row{}, err
	}
	row.DevicePeak = dev.Stats().Peak - base
	if ops != nil {
		// Every buffer of the loss was allocated on the device: its
		// high-water mark is what the loss held.
		row.HeldBytes, row.Allocator, row.Device = row.DevicePeak, true, ops.Name()
	}
	row.LiveHeap = heap.peak
	if mi, ok := dev.(memInfo); ok {
		if free, total, err := mi.MemInfo(); err == nil {
			row.DeviceUsed = total - free
		}
	}
	if _, row.PeakRSS, err = RSS(); err != nil {
		return Row{}, err
	}
	return row, nil
}

// measureGreedy holds the greedy step-loss graph (built and run like the one
// greedy.Train uses, to read its held bytes), then runs greedy.Train for T
// steps for the time, the live heap after every step and the process's peak
// memory. The time excludes the collections of the live-heap meter.
func measureGreedy(row *Row, o *problem.Objective, T int, cfg Config, heap *heapMeter, ops gpu.Ops) error {
	m, err := models.ParseMethod(cfg.Param)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	row.Batch = o.N
	if ops != nil {
		if err := steploss.CheckDevice(m, o); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		row.Device = ops.Name()
	} else {
		// The fast paths allocate on the Go heap: their tally is recorded
		// on the CPU device's counters.
		held, err := greedyStepLossBytes(m, o, cfg.Target)
		if err != nil {
			return err
		}
		row.HeldBytes = held
		gpu.Track(held)
		defer gpu.Untrack(held)
	}
	began := time.Now()
	res, err := greedy.Train(o, greedy.Config{
		Method: greedy.Method{Param: m},
		Target: runsOn(cfg, ops),
		Solver: greedy.Solver{Inner: greedy.LBFGS{MaxEvaluations: cfg.GreedyEvals}},
		Stop:   greedy.Stop{MaxSteps: T},
		Record: greedy.Record{Progress: func(checkpoint.StepInfo) { heap.sample() }},
	})
	if err != nil {
		return fmt.Errorf("bench: greedy training: %w", err)
	}
	row.Seconds = (time.Since(began) - heap.spent).Seconds()
	row.SecondsPerStep = row.Seconds / float64(len(res.Steps))
	return nil
}

// greedyStepLossBytes evaluates the greedy step loss (with its gradient) once
// at the first step and returns the bytes its graph holds.
func greedyStepLossBytes(m models.Method, o *problem.Objective, t execution.Target) (int64, error) {
	loss, err := steploss.NewStepLossFor(m, o, 1/o.L, t)
	if err != nil {
		return 0, fmt.Errorf("bench: greedy graph: %w", err)
	}
	defer loss.Close()
	grad := make([]float64, len(o.X0))
	if err := o.Eval(nil, grad, o.X0, nil); err != nil {
		return 0, err
	}
	if err := loss.SetStep(o.X0, grad, make([]float64, len(o.X0)), 0, 0); err != nil {
		return 0, err
	}
	if _, err := loss.Eval(loss.Reference(), make([]float64, loss.Dim())); err != nil {
		return 0, fmt.Errorf("bench: greedy graph: %w", err)
	}
	return loss.HeldBytes(), nil
}

// measureUnrolled runs unroll.Train (which tracks its graph's bytes on the
// device) for cfg.Epochs epochs and times the last, sampling the live heap
// after every epoch.
func measureUnrolled(row *Row, o *problem.Objective, T int, cfg Config, heap *heapMeter, ops gpu.Ops) error {
	m, err := models.ParseMethod(cfg.Param)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	row.Batch = cfg.Batch
	if ops != nil {
		if err := ondevice.CheckObjective(o); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	res, err := unroll.Train(o, unroll.Config{
		Problem: unroll.Problem{Seed: cfg.Seed},
		Method:  unroll.Method{Param: m, T: T},
		Target:  runsOn(cfg, ops),
		Solver:  unroll.Solver{Batch: cfg.Batch, Epochs: cfg.Epochs},
		Run:     unroll.Run{Progress: func(unroll.EpochInfo) { heap.sample() }},
	})
	if err != nil {
		return fmt.Errorf("bench: unrolled training: %w", err)
	}
	last := res.Epochs[len(res.Epochs)-1]
	if ops == nil {
		row.HeldBytes = res.HeldBytes
	}
	row.Seconds = last.Seconds
	row.SecondsPerStep = last.SecondsPerStep
	return nil
}

// measureBanert runs the Banert training graph (batch size 1) on every
// training function twice, timing the second pass as an epoch. Adam's
// update is not included (it is negligible next to a run of the graph). The
// live heap is sampled after each pass.
func measureBanert(row *Row, o *problem.Objective, T int, cfg Config, heap *heapMeter) error {
	tg, err := banert.BuildTrainingGraph(o, T, cfg.BanertInputs)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer tg.Close()
	row.Batch = 1
	var tracked int64
	defer func() { gpu.Untrack(tracked) }()
	for pass := 0; pass < 2; pass++ {
		began := time.Now()
		for k := 0; k < o.N; k++ {
			if err := tg.SetFunction(k); err != nil {
				return err
			}
			if err := tg.Run(); err != nil {
				return fmt.Errorf("bench: banert graph: %w", err)
			}
			if h := graph.HeldBytes(tg.Graph); h > tracked {
				gpu.Track(h - tracked)
				tracked = h
			}
		}
		row.Seconds = time.Since(began).Seconds()
		heap.sample()
	}
	row.HeldBytes = tracked
	row.SecondsPerStep = row.Seconds / float64(o.N)
	return nil
}

// measureBanertOn is measureBanert with the unrolled loss on a device
// (ondevice.BanertLoss, its reverse pass instead of the graph): every
// buffer comes from the device's allocator.
func measureBanertOn(row *Row, o *problem.Objective, T int, cfg Config, heap *heapMeter, ops gpu.NetOps) error {
	dl, err := ondevice.NewBanertLoss(ops, o, T, cfg.BanertInputs, 1)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer dl.Close()
	net, err := banert.NewNetwork(cfg.BanertInputs, uint64(cfg.Seed))
	if err != nil {
		return err
	}
	row.Batch = 1
	row.Device = ops.Name()
	grad := make([]float64, len(net.Theta))
	hw, m := o.ImageLen(), o.DataLen()
	for pass := 0; pass < 2; pass++ {
		began := time.Now()
		for k := 0; k < o.N; k++ {
			if _, err := dl.Eval(T, net.Theta, o.X0[k*hw:(k+1)*hw], o.Y[k*m:(k+1)*m], grad); err != nil {
				return fmt.Errorf("bench: banert on %s: %w", ops.Name(), err)
			}
		}
		row.Seconds = time.Since(began).Seconds()
		heap.sample()
	}
	row.SecondsPerStep = row.Seconds / float64(o.N)
	return nil
}

// heapMeter records the largest live heap at the samples, above the live
// heap at its creation, and the time its collections took.
type heapMeter struct {
	base, peak int64
	spent      time.Duration
}

// newHeapMeter takes the base after three collections: the second empties
// sync.Pool victim caches of earlier work, the third frees what finalizers
// released.
func newHeapMeter() *heapMeter {
	LiveHeap()
	LiveHeap()
	return &heapMeter{base: LiveHeap()}
}

// sample collects garbage and records the live heap.
func (m *heapMeter) sample() {
	began := time.Now()
	m.peak = max(m.peak, LiveHeap()-m.base)
	m.spent += time.Since(began)
}

// LiveHeap runs a garbage collection and returns the bytes of heap objects
// it found live (the runtime metric /gc/heap/live:bytes).
func LiveHeap() int64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

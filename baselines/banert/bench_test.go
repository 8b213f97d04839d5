package banert

import (
	"math"
	"testing"
	"time"

	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/internal/testsupport"
	"github.com/greedyl2o/greedyl2o/optim"
	"github.com/greedyl2o/greedyl2o/problem"
)

// BenchmarkAdamStep96 is one training step (unrolled loss and gradient for
// T = 10, then Adam) on a 96×96 deblurring function; it also reports the
// bytes the unrolled graph holds and the process's CPU time per step
// (cpu-s/step, all threads) and the fastest step's wall time (min-s/step:
// on a machine shared with other jobs, the one least disturbed).
func BenchmarkAdamStep96(b *testing.B) {
	o := tinyObjective(b, 1, 96, false)
	net, _ := NewNetwork(3, 1)
	tg, err := BuildTrainingGraph(o, 10, 3)
	if err != nil {
		b.Fatal(err)
	}
	defer tg.Close()
	grad := make([]float64, len(net.Theta))
	opt := optim.NewAdam(len(grad), 1e-3)
	b.ResetTimer()
	cpu, fastest := testsupport.CPUSeconds(), math.Inf(1)
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := lossAndGradient(tg, 0, net.Theta, grad); err != nil {
			b.Fatal(err)
		}
		opt.Update(net.Theta, grad)
		fastest = min(fastest, time.Since(start).Seconds())
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/step")
	b.ReportMetric(fastest, "min-s/step")
	b.ReportMetric((testsupport.CPUSeconds()-cpu)/float64(b.N), "cpu-s/step")
	b.ReportMetric(float64(graph.HeldBytes(tg.Graph))/1e6, "MB-held")
}

// BenchmarkIteration96 is one learned iteration of the trained method on 25
// functions of 96×96, reported against one direct evaluation of ∇f.
func BenchmarkIteration96(b *testing.B) {
	o := tinyObjective(b, 25, 96, false)
	net, _ := NewNetwork(3, 1)
	it, err := (&Method{Net: net}).Start(o)
	if err != nil {
		b.Fatal(err)
	}
	grad := make([]float64, len(o.X0))
	start := time.Now()
	const reps = 20
	for i := 0; i < reps; i++ {
		o.Eval(nil, grad, o.X0, nil)
	}
	gradSecs := time.Since(start).Seconds() / reps
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := it.Next(); err != nil {
			b.Fatal(err)
		}
	}
	per := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(per, "s/iter")
	b.ReportMetric(gradSecs, "s/grad")
	b.ReportMetric(per/gradSecs, "iter/grad")
}

// BenchmarkAdamStep96Device is BenchmarkAdamStep96 on the array
// operations' code path (ondevice.BanertLoss: the hand-written reverse pass
// over the device's network operations) on the CPU, in float64 (host) and
// in float32 with float64 sums (host32, `l2o train banert --device cpu32`).
func BenchmarkAdamStep96Device(b *testing.B) {
	for _, dev := range []struct {
		name   string
		target execution.Target
	}{{"host", execution.OnDevice(gpu.CPU())}, {"host32", execution.CPU(problem.Float32)}} {
		b.Run(dev.name, func(b *testing.B) {
			o := tinyObjective(b, 1, 96, false)
			net, _ := NewNetwork(3, 1)
			d, err := newArraysLoss(dev.target, o, 10, 3, 1)
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			grad := make([]float64, len(net.Theta))
			opt := optim.NewAdam(len(grad), 1e-3)
			cpu := testsupport.CPUSeconds()
			for b.Loop() {
				if _, err := d.Eval(10, net.Theta, o.X0, o.Y, grad); err != nil {
					b.Fatal(err)
				}
				opt.Update(net.Theta, grad)
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/step")
			b.ReportMetric((testsupport.CPUSeconds()-cpu)/float64(b.N), "cpu-s/step")
		})
	}
}

package steploss

import (
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
)

// readCounter is the CPU device counting the calls that bring results to
// the host: copies out, readouts and the reductions that return a value.
type readCounter struct {
	*gpu.HostDevice
	reads int
}

func (c *readCounter) CopyOut(dst []float64, src gpu.Buffer) error {
	c.reads++
	return c.HostDevice.CopyOut(dst, src)
}

func (c *readCounter) ReadOut(vals, sums []float64, r gpu.Buffer) error {
	c.reads++
	return c.HostDevice.ReadOut(vals, sums, r)
}

func (c *readCounter) Dot(x, y gpu.Buffer) (float64, error) {
	c.reads++
	return c.HostDevice.Dot(x, y)
}

func (c *readCounter) HuberValue(vals []float64, d gpu.Buffer, s gpu.Batch, eps float64) error {
	c.reads++
	return c.HostDevice.HuberValue(vals, d, s, eps)
}

// TestDeviceEvaluationReadsOnce checks that a step-loss evaluation on the
// device pass brings its results to the host in one read per PC gradient
// (the value riding with the first), and one for the value alone: an
// M-PC block evaluation (the greedy default) reads once, a full M-PC
// evaluation twice.
func TestDeviceEvaluationReadsOnce(t *testing.T) {
	o := testproblems.DeblurSet(t, 3, 16, 1)
	x, g, p := testproblems.StepData(t, o, 5)
	dev := &readCounter{HostDevice: gpu.CPU()}
	for _, c := range []struct {
		name  string
		block int // -1: the full gradient, -2: the value alone
		want  int
	}{{"m-pc", 0, 1}, {"m-pc", 1, 1}, {"m-pc", -1, 2}, {"m-pc", -2, 1}, {"pc", -1, 1}} {
		s := loadedLoss(t, c.name, o, stepPaths{device: dev}, x, g, p, 0.05, 0.3)
		u := testPoint(s, 1)
		grad := make([]float64, len(u))
		dev.reads = 0
		var err error
		switch c.block {
		case -1:
			_, err = s.Eval(u, grad)
		case -2:
			_, err = s.Eval(u, nil)
		default:
			_, err = s.EvalBlock(c.block, u, grad[:s.ThetaLen()])
		}
		if err != nil {
			t.Fatal(err)
		}
		if dev.reads != c.want {
			t.Errorf("%s, block %d: %d reads to the host an evaluation, want %d", c.name, c.block, dev.reads, c.want)
		}
	}
}

package optest_test

import (
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/internal/optest"
	"github.com/greedyl2o/greedyl2o/mconv"
	"github.com/greedyl2o/greedyl2o/tomo"
	"github.com/greedyl2o/greedyl2o/wcrr"
)

// The host devices pass the suites: the CPU device to 1e-12, the float32
// host device with the CUDA device's tolerance (1e-5).

func TestHostConvIdentities(t *testing.T) {
	for _, s := range []mconv.Shape{
		{N: 1, Cin: 3, Cout: 4, H: 7, W: 9, K: 3},
		{N: 2, Cin: 2, Cout: 3, H: 6, W: 5, K: 5},
	} {
		for _, c := range []struct {
			d   gpu.Ops
			tol float64
		}{{gpu.CPU(), 1e-12}, {gpu.Host32(), 1e-5}} {
			conv, err := mconv.NewDeviceConv(c.d)
			if err != nil {
				t.Fatal(err)
			}
			if err := optest.CheckConv(c.d, conv, s, c.tol); err != nil {
				t.Errorf("%s, %+v:\n%v", c.d.Name(), s, err)
			}
		}
	}
}

func TestHostRayIdentities(t *testing.T) {
	for _, g := range []tomo.Geometry{{N: 16, Angles: 12, Det: tomo.DefaultDet(16)}, {N: 9, Angles: 7, Det: 11}} {
		if err := optest.CheckRay(gpu.CPU(), g, 1e-12); err != nil {
			t.Errorf("cpu, %+v: %v", g, err)
		}
		if err := optest.CheckRay(gpu.Host32(), g, 1e-5); err != nil {
			t.Errorf("host32, %+v: %v", g, err)
		}
	}
}

func TestHostRidgeIdentities(t *testing.T) {
	if err := optest.CheckRidge(gpu.CPU(), 2, 3, 20, 1e-12); err != nil {
		t.Errorf("cpu: %v", err)
	}
	if err := optest.CheckRidge(gpu.Host32(), 2, 3, 20, 1e-5); err != nil {
		t.Errorf("host32: %v", err)
	}
}

// brokenWeights is the CPU's convolution with a weight adjoint that
// forgets the last output channel: CheckConv must notice.
type brokenWeights struct{ mconv.DeviceConv }

func (b brokenWeights) AdjointWeights(gw, gb, x, y gpu.Buffer, s mconv.Shape) error {
	if err := b.DeviceConv.AdjointWeights(gw, gb, x, y, s); err != nil {
		return err
	}
	v := gw.(*gpu.HostBuffer).Values()
	clear(v[len(v)-s.Cin*s.K*s.K:])
	return nil
}

func TestCheckConvCatchesAWrongAdjoint(t *testing.T) {
	conv, err := mconv.NewDeviceConv(gpu.CPU())
	if err != nil {
		t.Fatal(err)
	}
	err = optest.CheckConv(gpu.CPU(), brokenWeights{conv}, mconv.Shape{N: 1, Cin: 2, Cout: 3, H: 5, W: 5, K: 3}, 1e-12)
	if err == nil || !strings.Contains(err.Error(), "weight adjoint") {
		t.Fatalf("CheckConv with a wrong weight adjoint returned %v, want a weight adjoint failure", err)
	}
}

// wrapped is a device that embeds the CPU device (as a counting or
// checking wrapper does): the problems' operators run on it as on the CPU.
type wrapped struct{ *gpu.HostDevice }

func (wrapped) Name() string { return "wrapped-cpu" }

func TestOperatorsOnAWrappedHostDevice(t *testing.T) {
	d := wrapped{gpu.CPU()}
	conv, err := mconv.NewDeviceConv(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := optest.CheckConv(d, conv, mconv.Shape{N: 1, Cin: 2, Cout: 3, H: 5, W: 6, K: 3}, 1e-12); err != nil {
		t.Error(err)
	}
	if err := optest.CheckRay(d, tomo.Geometry{N: 9, Angles: 7, Det: 11}, 1e-12); err != nil {
		t.Error(err)
	}
	if err := optest.CheckRidge(d, 2, 3, 20, 1e-12); err != nil {
		t.Error(err)
	}
}

// A device that neither keeps host buffers nor runs kernels gets an error
// naming it from every constructor, not a panic.
type bare struct{ gpu.Device }

func (bare) Name() string { return "bare-test" }

func TestOperatorsRefuseADeviceWithoutThem(t *testing.T) {
	d := bare{gpu.CPU()}
	_, e1 := mconv.NewDeviceConv(d)
	_, e2 := tomo.NewDeviceRay(d, tomo.Geometry{N: 9, Angles: 7, Det: 11})
	_, e3 := wcrr.NewDevicePotentials(d, []float64{0.1}, []float64{0.3}, 1)
	for i, err := range []error{e1, e2, e3} {
		if err == nil || !strings.Contains(err.Error(), "bare-test") {
			t.Errorf("constructor %d on a device without the operators: %v, want an error naming it", i+1, err)
		}
	}
}

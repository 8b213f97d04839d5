package execution

import (
	"errors"
	"fmt"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/problem"
)

// Target is where a run computes and in what precision. The zero value is
// the CPU in float64.
type Target struct {
	// Device, if set, runs the computation with its array operations (the
	// CUDA device of package gpu/cuda, in float32 with float64 sums); nil:
	// the CPU.
	Device gpu.Ops
	// Precision is the CPU's arithmetic: Float64 ("" means it) or Float32.
	// A Device computes in its own precision: Precision must then be
	// float64 (Check).
	Precision problem.Precision
}

// ErrPrecisionOnDevice marks a Target with a Device and a precision other
// than float64 (test with errors.Is).
var ErrPrecisionOnDevice = errors.New("the device computes in its own precision (cuda: float32 with float64 sums)")

// CPU returns the CPU target in precision prec ("" is float64).
func CPU(prec problem.Precision) Target { return Target{Precision: prec} }

// OnDevice returns the target of a device's array operations.
func OnDevice(d gpu.Ops) Target { return Target{Device: d} }

// Check returns nil for a known precision, on the CPU or, in float64, with
// a device; otherwise an error (ErrPrecisionOnDevice for a device with
// float32).
func (t Target) Check() error {
	prec, err := problem.ParsePrecision(string(t.Precision))
	if err != nil {
		return err
	}
	if t.Device != nil && prec != problem.Float64 {
		return fmt.Errorf("%s with device %s: %w", prec, gpu.KindOf(t.Device), ErrPrecisionOnDevice)
	}
	return nil
}

// Prec is the CPU's precision, Float64 for "" (and for a malformed one:
// Check reports it).
func (t Target) Prec() problem.Precision {
	if t.Precision == problem.Float32 {
		return problem.Float32
	}
	return problem.Float64
}

// OnCPU reports whether the target is the CPU.
func (t Target) OnCPU() bool { return t.Device == nil }

// Kind is the device's kind as manifests record it ("cuda"), "" on the CPU.
func (t Target) Kind() string {
	if t.Device == nil {
		return ""
	}
	return gpu.KindOf(t.Device)
}

// String names the target as --device does: cpu, cpu32, or the device's
// kind.
func (t Target) String() string { return Label(t.Kind(), t.Precision) }

// Label names a recorded execution (a manifest's device kind and
// precision) as --device does: "cpu" or "cpu32" on the CPU, the device's
// kind otherwise (a device computes in its own precision).
func Label(kind string, prec problem.Precision) string {
	switch {
	case kind != "":
		return kind
	case prec == problem.Float32:
		return "cpu32"
	}
	return "cpu"
}

// ArraysLabel is Label for the record of a run on array operations
// (unrolled and Banert training): a record of the CPU's float32 arrays by
// their former device name, host32, is cpu32, the same path; a record of
// "host" stays host (the float64 array operations on the CPU no longer
// run, so such a run resumes on none).
func ArraysLabel(kind string, prec problem.Precision) string {
	if kind == gpu.Host32Name {
		return "cpu32"
	}
	return Label(kind, prec)
}

// The --device names of the CPU: cpu and host in the precision of
// --precision (float64 by default), cpu32 and host32 in float32.
var cpuNames = map[string]problem.Precision{"cpu": "", gpu.Host: "", "cpu32": problem.Float32, gpu.Host32Name: problem.Float32}

// Names are the --device values Resolve accepts: the CPU's names and every
// device gpu.Open knows.
func Names() []string {
	names := []string{"cpu", "cpu32"}
	for _, n := range gpu.Devices() {
		if n != "cpu" {
			names = append(names, n)
		}
	}
	return names
}

// Resolve returns the target of a command line's --device and --precision
// (precision "" when not given). The CPU's names: cpu and host compute in
// precision (float64 by default), cpu32 and host32 in float32; any other
// device is opened (gpu.Open) and must have array operations. A
// contradiction (cpu32 with --precision float64, a device with --precision
// float32) is refused; every error starts with the flag at fault.
func Resolve(device, precision string) (Target, error) {
	prec, err := problem.ParsePrecision(precision)
	if err != nil {
		return Target{}, fmt.Errorf("--precision %s: %w", precision, err)
	}
	if forced, ok := cpuNames[device]; ok || device == "" {
		if forced == problem.Float32 && precision != "" && prec != problem.Float32 {
			return Target{}, fmt.Errorf("--precision %s: --device %s computes in float32: drop --precision, or use --device cpu", precision, device)
		}
		if forced == problem.Float32 {
			prec = problem.Float32
		}
		if prec == problem.Float64 {
			prec = ""
		}
		return CPU(prec), nil
	}
	if precision != "" && prec != problem.Float64 {
		return Target{}, fmt.Errorf("--precision %s with --device %s: %w; drop --precision", precision, device, ErrPrecisionOnDevice)
	}
	d, err := gpu.Open(device)
	if err != nil {
		return Target{}, fmt.Errorf("--device %s: %w", device, err)
	}
	ops, ok := d.(gpu.Ops)
	if !ok {
		return Target{}, fmt.Errorf("--device %s: %s has no array operations to compute on; use --device cpu", device, d.Name())
	}
	return OnDevice(ops), nil
}

// Arrays returns the array operations that code written over them alone
// (the unrolled loss's reverse pass, Banert's network) runs on for this
// target: the Device, or, on the CPU in float32, the float32 host arrays
// (gpu.Host32), which are that code's float32 path on the CPU; nil on the
// CPU in float64, where that code has its own path.
func (t Target) Arrays() gpu.Ops {
	switch {
	case t.Device != nil:
		return t.Device
	case t.Prec() == problem.Float32:
		return gpu.Host32()
	}
	return nil
}

// Objective returns the functions an iterator running on this target
// evaluates: o in float32 for the CPU in float32 (unless o computes in
// float32 already), o itself otherwise (a device evaluates o in its own
// precision, and the CPU in float64 takes o as it is).
func (t Target) Objective(o *problem.Objective) (*problem.Objective, error) {
	if t.Device != nil || t.Prec() != problem.Float32 || o.Precision() == problem.Float32 {
		return o, nil
	}
	return o.InPrecision(problem.Float32)
}

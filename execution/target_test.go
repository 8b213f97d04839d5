package execution

import (
	"errors"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/problem"
)

// TestResolve: the CPU's four names resolve to two targets, --precision
// applies to cpu and host only where it agrees with them, and a
// contradiction names the flag at fault.
func TestResolve(t *testing.T) {
	for _, c := range []struct {
		device, precision string
		want              Target
		name              string
	}{
		{"cpu", "", Target{}, "cpu"},
		{"host", "", Target{}, "cpu"},
		{"", "float64", Target{}, "cpu"},
		{"cpu", "float32", CPU(problem.Float32), "cpu32"},
		{"host", "float32", CPU(problem.Float32), "cpu32"},
		{"cpu32", "", CPU(problem.Float32), "cpu32"},
		{"host32", "float32", CPU(problem.Float32), "cpu32"},
	} {
		got, err := Resolve(c.device, c.precision)
		if err != nil || got != c.want || got.String() != c.name {
			t.Errorf("Resolve(%q, %q) = %+v (%s), %v; want %+v (%s)", c.device, c.precision, got, got, err, c.want, c.name)
		}
		if got.Arrays() != nil && got.Prec() != problem.Float32 {
			t.Errorf("%s: array operations on the CPU in float64", got)
		}
	}
	for _, c := range []struct{ device, precision, flag string }{
		{"cpu32", "float64", "--precision float64"},
		{"host32", "float64", "--precision float64"},
		{"cpu", "float16", "--precision float16"},
		{"cuda", "float32", "--precision float32"},
		{"tpu", "", "--device tpu"},
	} {
		_, err := Resolve(c.device, c.precision)
		if err == nil || !strings.HasPrefix(err.Error(), c.flag) {
			t.Errorf("Resolve(%q, %q): %v, want an error starting with %q", c.device, c.precision, err, c.flag)
		}
	}
	if _, err := Resolve("cuda", "float32"); !errors.Is(err, ErrPrecisionOnDevice) {
		t.Errorf("a device with float32: %v, want ErrPrecisionOnDevice", err)
	}
}

// TestCheckAndArrays: a device with float32 is refused; the CPU's float32
// arrays serve the CPU in float32, a device its own.
func TestCheckAndArrays(t *testing.T) {
	if err := (Target{Device: gpu.Host32(), Precision: problem.Float32}).Check(); !errors.Is(err, ErrPrecisionOnDevice) {
		t.Errorf("device with float32: %v", err)
	}
	if err := CPU("float16").Check(); err == nil {
		t.Error("an unknown precision passed Check")
	}
	if a := CPU(problem.Float32).Arrays(); a != gpu.Ops(gpu.Host32()) {
		t.Errorf("the CPU in float32 runs array code on %v, want the float32 host arrays", a)
	}
	if a := (Target{}).Arrays(); a != nil {
		t.Errorf("the CPU in float64 runs array code on %v, want its own path", a)
	}
	if d := OnDevice(gpu.CPU()); d.Arrays() != gpu.Ops(gpu.CPU()) || d.Kind() != "host" || d.String() != "host" {
		t.Errorf("a device target: arrays %v, kind %q, name %q", d.Arrays(), d.Kind(), d)
	}
	if l := Label("", problem.Float32); l != "cpu32" {
		t.Errorf("Label of a float32 CPU record: %q", l)
	}
}

// TestObjective: an iterator on the CPU in float32 evaluates the functions
// in float32 (their values then differ from float64's), elsewhere as given.
func TestObjective(t *testing.T) {
	prob, err := problem.Deblur(problem.Options{H: 8})
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, pix, _ := data.Stack(data.Synthetic(2, 8, 8, 3))
	o, err := prob.Instantiate(pix, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, on := range []Target{{}, OnDevice(gpu.CPU())} {
		if got, err := on.Objective(o); err != nil || got != o {
			t.Errorf("%s: the objective changed (%v)", on, err)
		}
	}
	o32, err := CPU(problem.Float32).Objective(o)
	if err != nil || o32.Precision() != problem.Float32 {
		t.Fatalf("cpu32: %v, precision %v", err, o32.Precision())
	}
	f64, _ := o.Mean(o.X0)
	f32, _ := o32.Mean(o.X0)
	if f64 == f32 {
		t.Errorf("cpu32 evaluates f(x⁰) = %g as float64 does", f32)
	}
	if again, _ := CPU(problem.Float32).Objective(o32); again != o32 {
		t.Error("a float32 objective was converted again")
	}
}

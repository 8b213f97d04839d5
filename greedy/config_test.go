package greedy

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// TestConfigErrorsNameTheField: Train refuses each invalid setting with a
// FieldError naming the part and field, before it builds anything.
func TestConfigErrorsNameTheField(t *testing.T) {
	o := deblurSet(t, 2, 8, 1)
	v := deblurSet(t, 1, 8, 2)
	small := deblurSet(t, 1, 6, 3)
	ok := func() Config { return Config{Method: Method{Param: method(t, "m-pc")}, Run: Run{MaxSteps: 1}} }
	for _, c := range []struct {
		field  string
		modify func(*Config)
	}{
		{"Run.MaxSteps", func(c *Config) { c.Run.MaxSteps = 0 }},
		{"Run.TolAbs, Run.TolRel", func(c *Config) { c.Run.TolRel = math.NaN() }},
		{"Run.StopOnValidation", func(c *Config) { c.Run.StopOnValidation = true }},
		{"Run.ValPatience", func(c *Config) { c.Run.ValPatience = -1 }},
		{"Method.Param", func(c *Config) { c.Method.Param = models.Method{} }},
		{"Method.Precision", func(c *Config) { c.Method.Precision = "float16" }},
		{"Method.Precision", func(c *Config) { c.Method.Precision, c.Method.Device = steploss.Float32, gpu.CPU() }},
		{"Solver.WeightScales", func(c *Config) { c.Solver.WeightScales = []float64{math.Inf(1)} }},
		{"Solver.WeightScales", func(c *Config) { c.Solver.WeightScales = []float64{1, 2} }},
		{"Solver.ValLookahead", func(c *Config) { c.Problem.Validation, c.Solver.ValLookahead = v, -1 }},
		{"Solver.WarmStart", func(c *Config) { c.Method.Param, c.Solver.WarmStart = method(t, "pf"), true }},
		{"Problem.Validation", func(c *Config) { c.Problem.Validation = small }},
	} {
		cfg := ok()
		c.modify(&cfg)
		_, err := Train(o, cfg)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: got %v, want a FieldError naming it", c.field, err)
		}
	}
	if _, err := Train(o, ok()); err != nil {
		t.Fatalf("the valid configuration: %v", err)
	}
}

// TestMethodCheck: Method.Check refuses what the step loss cannot do, and a
// precision with a device as ErrPrecisionOnDevice.
func TestMethodCheck(t *testing.T) {
	o := deblurSet(t, 2, 8, 1)
	noFloat32 := *o // an objective without a float32 evaluation
	noFloat32.A = problem.Identity{}
	for _, c := range []struct {
		m     Method
		o     *problem.Objective
		field string
	}{
		{Method{Param: method(t, "m-pc")}, o, ""},
		{Method{Param: method(t, "m-pc"), Precision: steploss.Float32}, o, ""},
		{Method{Param: method(t, "m-pc"), Device: gpu.Host32()}, o, ""},
		{Method{Param: method(t, "m-pp"), Precision: steploss.Float32}, o, ""}, // PP's float64 bound term
		{Method{Param: method(t, "m-pc"), Precision: steploss.Float32}, &noFloat32, "Method.Precision"},
		{Method{Param: method(t, "m-pc"), Precision: steploss.Float32, Device: gpu.Host32()}, o, "Method.Precision"},
	} {
		err := c.m.Check(c.o)
		var fe *FieldError
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s %q on %v: %v", c.m.Param.Name(), c.m.Precision, c.m.Device, err)
		case c.field != "" && (!errors.As(err, &fe) || fe.Field != c.field):
			t.Errorf("%s %q on %v: got %v, want a FieldError naming %s", c.m.Param.Name(), c.m.Precision, c.m.Device, err, c.field)
		}
		if c.m.Device != nil && c.m.Precision != "" && !errors.Is(err, ErrPrecisionOnDevice) {
			t.Errorf("a precision with a device: got %v, want ErrPrecisionOnDevice", err)
		}
	}
}

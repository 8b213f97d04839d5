package greedy

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/execution"
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
	ok := func() Config { return Config{Method: Method{Param: method(t, "m-pc")}, Stop: Stop{MaxSteps: 1}} }
	for _, c := range []struct {
		field  string
		modify func(*Config)
	}{
		{"Stop.MaxSteps", func(c *Config) { c.Stop.MaxSteps = 0 }},
		{"Stop.TolAbs, Stop.TolRel", func(c *Config) { c.Stop.TolRel = math.NaN() }},
		{"Stop.OnValidation", func(c *Config) { c.Stop.OnValidation = true }},
		{"Stop.ValPatience", func(c *Config) { c.Stop.ValPatience = -1 }},
		{"Method.Param", func(c *Config) { c.Method.Param = models.Method{} }},
		{"Target.Precision", func(c *Config) { c.Target.Precision = "float16" }},
		{"Target.Precision", func(c *Config) { c.Target = execution.Target{Device: gpu.CPU(), Precision: steploss.Float32} }},
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

// TestMethodCheck: Method.Check refuses what the step loss cannot do on a
// target, and a precision with a device as execution.ErrPrecisionOnDevice.
func TestMethodCheck(t *testing.T) {
	o := deblurSet(t, 2, 8, 1)
	noFloat32 := *o // an objective without a float32 evaluation
	noFloat32.A = problem.Identity{}
	f32 := execution.CPU(steploss.Float32)
	for _, c := range []struct {
		m     Method
		on    execution.Target
		o     *problem.Objective
		field string
	}{
		{Method{Param: method(t, "m-pc")}, execution.Target{}, o, ""},
		{Method{Param: method(t, "m-pc")}, f32, o, ""},
		{Method{Param: method(t, "m-pc")}, execution.OnDevice(gpu.Host32()), o, ""},
		{Method{Param: method(t, "m-pp")}, f32, o, ""}, // PP's float64 bound term
		{Method{Param: method(t, "m-pc")}, f32, &noFloat32, "Target.Precision"},
		{Method{Param: method(t, "m-pc")}, execution.Target{Device: gpu.Host32(), Precision: steploss.Float32}, o, "Target.Precision"},
	} {
		err := c.m.Check(c.o, c.on)
		var fe *FieldError
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s on %s: %v", c.m.Param.Name(), c.on, err)
		case c.field != "" && (!errors.As(err, &fe) || fe.Field != c.field):
			t.Errorf("%s on %s: got %v, want a FieldError naming %s", c.m.Param.Name(), c.on, err, c.field)
		}
		if c.on.Device != nil && c.on.Precision != "" && !errors.Is(err, execution.ErrPrecisionOnDevice) {
			t.Errorf("a precision with a device: got %v, want ErrPrecisionOnDevice", err)
		}
	}
}

package ondevice

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
)

// CheckMethod returns nil if every term of m binds on a device
// (models.DeviceBinder: PS, PP, PC-k, PC, PF), or an error naming the first
// that does not (a user parametrization: NewDeviceTerm runs its graph).
func CheckMethod(m models.Method) error {
	for _, p := range []models.Parametrization{m.G, m.H} {
		if p == nil {
			continue
		}
		if _, ok := p.(models.DeviceBinder); !ok {
			return fmt.Errorf("ondevice: %s has no device kind (ps, pp, pc-k, pc and pf terms do); use --device cpu, or ondevice.NewDeviceTerm for its graph (method %s)", p.Name(), m.Name())
		}
	}
	return nil
}

// Check returns nil if the learned update of m on o can run on a device:
// every term has a device path and o has a device form (problem.DeviceForm).
// Otherwise the error names what has no device path and says to use
// --device cpu.
func Check(m models.Method, o *problem.Objective) error {
	if err := CheckMethod(m); err != nil {
		return err
	}
	return CheckObjective(o)
}

// CheckObjective reports whether o has a device form (problem.DeviceForm):
// what a computation whose terms may be graph terms (NewDeviceTerm) needs.
func CheckObjective(o *problem.Objective) error {
	if _, ok := o.DeviceForm(); !ok {
		return noDevicePath(o)
	}
	return nil
}

//go:build l2ocuda

package cuda

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQueuedWorkWaitsOnlyToReadBack checks, on the CPU emulation's call log
// (L2O_EMU_CALL_LOG), what a Dot asks of the driver: its one kernel (a
// reduction whose last block adds the partial sums) and one copy back, no
// allocation (the partial sums are the device's scratch) and, with syncEach
// (L2O_CUDA_SYNC=1), a wait after the kernel; and that both modes return
// Σ x_i y_i.
func TestQueuedWorkWaitsOnlyToReadBack(t *testing.T) {
	d := device(t)
	if !emulated(d) {
		t.Skip("driver calls are recorded by the CPU emulation (scripts/cuda-emu) only")
	}
	const n = 1000
	x, y := make([]float64, n), make([]float64, n)
	want := 0.0
	for i := range x {
		x[i], y[i] = math.Sin(float64(i)), math.Cos(float64(3*i))
		want += float64(float32(x[i])) * float64(float32(y[i]))
	}
	xb, err := d.Upload(x)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free(xb)
	yb, err := d.Upload(y)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free(yb)
	if _, err := d.Dot(xb, yb); err != nil { // the scratch buffers, once
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "calls.txt")
	t.Setenv("L2O_EMU_CALL_LOG", logPath)
	defer func(s bool) { d.syncEach = s }(d.syncEach)
	for _, tc := range []struct {
		syncEach bool
		want     string
	}{
		{false, "launch dtoh"},
		{true, "launch sync dtoh"},
	} {
		if err := os.WriteFile(logPath, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		d.syncEach = tc.syncEach
		got, err := d.Dot(xb, yb)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-9*math.Abs(want)+1e-12 {
			t.Errorf("syncEach %v: Dot = %.15g, want %.15g", tc.syncEach, got, want)
		}
		raw, err := os.ReadFile(logPath)
		if err != nil {
			t.Fatal(err)
		}
		var calls []string
		for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			if f := strings.Fields(line); len(f) > 0 {
				calls = append(calls, f[0])
			}
		}
		if s := strings.Join(calls, " "); s != tc.want {
			t.Errorf("syncEach %v: a Dot asked the driver for %q, want %q", tc.syncEach, s, tc.want)
		}
	}
}

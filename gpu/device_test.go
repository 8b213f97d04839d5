package gpu

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

var _ Device = CPU()

func TestCPUCountsBytes(t *testing.T) {
	d := CPU()
	before := d.Stats()
	d.ResetPeak()
	a, err := d.Alloc(1000)
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.Alloc(24)
	if err != nil {
		t.Fatal(err)
	}
	s := d.Stats()
	if got, want := s.InUse-before.InUse, int64(1024*8); got != want {
		t.Errorf("in use grew by %d bytes, want %d", got, want)
	}
	if got, want := s.Allocs-before.Allocs, int64(2); got != want {
		t.Errorf("allocs grew by %d, want %d", got, want)
	}
	d.Free(a)
	d.Free(a) // a second free must not count again
	s2 := d.Stats()
	if got, want := s2.InUse-before.InUse, int64(24*8); got != want {
		t.Errorf("after free, in use is %d bytes above start, want %d", got, want)
	}
	if s2.Peak != s.InUse {
		t.Errorf("peak %d, want the high-water mark %d", s2.Peak, s.InUse)
	}
	if got, want := s2.TotalAllocated-before.TotalAllocated, int64(1024*8); got != want {
		t.Errorf("total allocated grew by %d, want %d", got, want)
	}
	d.ResetPeak()
	if p := d.Stats().Peak; p != s2.InUse {
		t.Errorf("peak after reset %d, want in use %d", p, s2.InUse)
	}
	d.Free(b)
	if got := d.Stats().InUse; got != before.InUse {
		t.Errorf("in use %d after freeing everything, want %d", got, before.InUse)
	}
}

func TestTrackUntrack(t *testing.T) {
	d := CPU()
	start := d.Stats()
	d.ResetPeak()
	TrackFloat64s(100)
	Track(50)
	mid := d.Stats()
	Untrack(50)
	UntrackFloat64s(100)
	end := d.Stats()
	if got := mid.InUse - start.InUse; got != 850 {
		t.Errorf("tracking 100 float64 and 50 bytes added %d bytes, want 850", got)
	}
	if end.InUse != start.InUse || end.Peak != mid.InUse {
		t.Errorf("after untrack: in use %d (want %d), peak %d (want %d)", end.InUse, start.InUse, end.Peak, mid.InUse)
	}
}

func TestConcurrentPeak(t *testing.T) {
	d := CPU()
	start := d.Stats().InUse
	d.ResetPeak()
	const workers, n = 8, 100
	var wg sync.WaitGroup
	bufs := make([]Buffer, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := d.Alloc(n)
			if err != nil {
				t.Error(err)
			}
			bufs[w] = b
		}()
	}
	wg.Wait()
	if got, want := d.Stats().Peak-start, int64(workers*n*8); got != want {
		t.Errorf("peak above start %d, want %d", got, want)
	}
	for _, b := range bufs {
		d.Free(b)
	}
	if got := d.Stats().InUse; got != start {
		t.Errorf("in use %d after freeing, want %d", got, start)
	}
}

func TestCopyRoundTrip(t *testing.T) {
	d := CPU()
	b, err := d.Alloc(5)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free(b)
	in := []float64{1, -2, 3.5, 4e-300, 5}
	if err := d.CopyIn(b, in); err != nil {
		t.Fatal(err)
	}
	out := make([]float64, 5)
	if err := d.CopyOut(out, b); err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if out[i] != in[i] {
			t.Errorf("value %d: got %g, want %g", i, out[i], in[i])
		}
	}
	if err := d.CopyIn(b, make([]float64, 6)); err == nil {
		t.Error("copying 6 values into a buffer of 5: no error")
	}
	if err := d.CopyOut(make([]float64, 6), b); err == nil {
		t.Error("copying 6 values out of a buffer of 5: no error")
	}
	if _, err := d.Alloc(-1); err == nil {
		t.Error("Alloc(-1): no error")
	}
	if err := d.CopyIn(foreign{}, in); err == nil {
		t.Error("copy into a foreign buffer: no error")
	}
}

type foreign struct{}

func (foreign) Len() int { return 1 }

func TestOpen(t *testing.T) {
	d, err := Open("cpu")
	if err != nil || d != Device(CPU()) {
		t.Fatalf("Open(cpu) = %v, %v; want the CPU device", d, err)
	}
	if _, err := Open("cuda"); !errors.Is(err, ErrNoCUDA) || !strings.Contains(err.Error(), "-tags l2ocuda") {
		t.Errorf("Open(cuda) without the CUDA device: error %v, want ErrNoCUDA naming the build tag", err)
	}
	if _, err := Open("tpu"); err == nil || !strings.Contains(err.Error(), "cpu") {
		t.Errorf("Open(tpu): error %v, want one listing the known devices", err)
	}
}

func TestRegister(t *testing.T) {
	fail := errors.New("no such hardware")
	if err := Register("test-broken", func() (Device, error) { return nil, fail }); err != nil {
		t.Fatal(err)
	}
	if err := Register("test-broken", func() (Device, error) { return CPU(), nil }); err == nil {
		t.Error("registering a name twice: no error")
	}
	if err := Register("cpu", func() (Device, error) { return CPU(), nil }); err == nil {
		t.Error("registering cpu: no error")
	}
	if _, err := Open("test-broken"); !errors.Is(err, fail) {
		t.Errorf("Open of a device that cannot start: error %v, want it to wrap %v", err, fail)
	}
	found := false
	for _, n := range Devices() {
		found = found || n == "test-broken"
	}
	if !found {
		t.Errorf("Devices() = %v, missing test-broken", Devices())
	}
}

func Example() {
	dev, err := Open("cpu")
	if err != nil {
		fmt.Println(err)
		return
	}
	before := dev.Stats().InUse
	buf, err := dev.Alloc(1 << 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := dev.CopyIn(buf, []float64{1, 2, 3}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(dev.Name(), "bytes in use:", dev.Stats().InUse-before)
	dev.Free(buf)
	fmt.Println("after free:", dev.Stats().InUse-before)
	// Output:
	// cpu bytes in use: 8192
	// after free: 0
}

//go:build l2ocuda

package cuda

import (
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/kernels"
)

// graphCase is a sequence of queued operations in the manner of a step
// loss (a blur and its adjoint, finite differences, a spectral product
// between two transforms, a Huber derivative, a copy and a zeroing on the
// device) on fixed inputs, every intermediate written before it is read.
type graphCase struct {
	d                                    *Device
	s                                    gpu.Batch
	x, k, tspec                          *Buffer
	y, g, z, field, w, spec, spec2, outs *Buffer
	hd                                   *Buffer
}

func newGraphCase(t *testing.T, d *Device) *graphCase {
	r := rand.New(rand.NewSource(48))
	const n, h, w, K = 3, 12, 10, 5
	s := gpu.Batch{N: n, H: h, W: w}
	hw, sl := h*w, s.SpectrumLen()
	return &graphCase{d: d, s: s,
		x: upload(t, d, randVec(r, n*hw)), k: upload(t, d, randVec(r, K*K)), tspec: upload(t, d, randVec(r, sl)),
		y: zeros(t, d, n*hw), g: zeros(t, d, n*hw), z: zeros(t, d, n*hw), field: zeros(t, d, 2*n*hw),
		w: zeros(t, d, n*hw), spec: zeros(t, d, n*sl), spec2: zeros(t, d, n*sl), outs: zeros(t, d, n*hw),
		hd: zeros(t, d, 2*n*hw)}
}

func (c *graphCase) run() error {
	d, s := c.d, c.s
	const K = 5
	bnd := kernels.Boundary(1)
	for _, step := range []func() error{
		func() error { return d.Conv2D(c.y, c.x, c.k, s, K, bnd) },
		func() error { return d.Conv2DAdjointImage(c.g, c.y, c.k, s, K, bnd) },
		func() error { return d.Axpby(c.g, 0.75, c.x, -0.5) },
		func() error { return d.Zero(c.z) },
		func() error { return d.Copy(c.z, c.g) },
		func() error { return d.Grad(c.field, c.z, s) },
		func() error { return d.HuberDerivative(c.hd, c.field, s, 0.05) },
		func() error { return d.GradAdjoint(c.w, c.hd, s) },
		func() error { return d.RFFT2(c.spec, c.w, s) },
		func() error { return d.Zero(c.spec2) },
		func() error { return d.SpectralMulAdd(c.spec2, c.tspec, c.spec, s) },
		func() error { return d.IRFFT2(c.outs, c.spec2, s) },
	} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// results are the values of every buffer the sequence writes (spec2 is
// left out: the inverse transform overwrites its input).
func (c *graphCase) results(t *testing.T) [][]float64 {
	var out [][]float64
	for _, b := range []*Buffer{c.y, c.g, c.z, c.field, c.hd, c.w, c.spec, c.outs} {
		out = append(out, download(t, c.d, b))
	}
	return out
}

// scramble fills every buffer the sequence writes with other values, so
// that a result can only come from running it.
func (c *graphCase) scramble(t *testing.T, seed int64) {
	r := rand.New(rand.NewSource(seed))
	for _, b := range []*Buffer{c.y, c.g, c.z, c.field, c.hd, c.w, c.spec, c.spec2, c.outs} {
		if err := c.d.CopyIn(b, randVec(r, b.Len())); err != nil {
			t.Fatal(err)
		}
	}
}

func sameBits(t *testing.T, what string, got, want [][]float64) {
	t.Helper()
	for i := range want {
		for j := range want[i] {
			if math.Float64bits(got[i][j]) != math.Float64bits(want[i][j]) {
				t.Fatalf("%s: buffer %d value %d is %v, the uncaptured run's %v", what, i, j, got[i][j], want[i][j])
			}
		}
	}
}

// readLog returns the lines of the emulation's log at path and empties it.
func readLog(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestGraphReplaysTheCapturedSequence captures a sequence of operations
// and checks that a Launch of the graph gives bitwise the results of the
// sequence run directly, on the inputs' values at launch time, and on the
// CPU emulation that it runs the same work (kernels with the same grids
// and argument bytes, transforms, copies, memsets) in the same order while
// the capture itself ran nothing, and that a Launch is one driver call.
func TestGraphReplaysTheCapturedSequence(t *testing.T) {
	d := device(t)
	c := newGraphCase(t, d)
	work := filepath.Join(t.TempDir(), "work.txt")
	calls := filepath.Join(t.TempDir(), "calls.txt")
	if emulated(d) {
		t.Setenv("L2O_EMU_WORK_LOG", work)
		t.Setenv("L2O_EMU_CALL_LOG", calls)
	}
	if err := c.run(); err != nil {
		t.Fatal(err)
	}
	want := c.results(t)
	direct := readLog(t, work)
	readLog(t, calls)

	c.scramble(t, 1)
	before := c.results(t)
	g, err := d.Capture(c.run)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Destroy()
	sameBits(t, "after the capture (nothing may have run)", c.results(t), before)
	if emulated(d) {
		if l := readLog(t, work); len(l) != 0 {
			t.Fatalf("the capture ran %d pieces of work, want none: %v", len(l), l)
		}
		readLog(t, calls)
	}
	if err := g.Launch(); err != nil {
		t.Fatal(err)
	}
	if emulated(d) {
		// The launch, before the copies back that read its results (and
		// the wait after it under L2O_CUDA_SYNC=1).
		want := []string{"graph - " + strconv.Itoa(g.Ops())}
		if d.syncEach {
			want = append(want, "sync - 0")
		}
		if got := readLog(t, calls); strings.Join(got, ";") != strings.Join(want, ";") {
			t.Errorf("a graph launch asked the driver for %q, want %q", got, want)
		}
	}
	sameBits(t, "the graph's results", c.results(t), want)
	if emulated(d) {
		replay := readLog(t, work)
		if len(direct) == 0 || strings.Join(replay, "\n") != strings.Join(direct, "\n") {
			t.Fatalf("the graph ran\n\t%s\nthe direct sequence\n\t%s", strings.Join(replay, "\n\t"), strings.Join(direct, "\n\t"))
		}
		if len(direct) != g.Ops() {
			t.Errorf("the graph counts %d operations, the emulation ran %d", g.Ops(), len(direct))
		}
	}

	// New input values: the graph reads them at launch.
	if err := d.CopyIn(c.x, randVec(rand.New(rand.NewSource(7)), c.x.Len())); err != nil {
		t.Fatal(err)
	}
	if err := c.run(); err != nil {
		t.Fatal(err)
	}
	want2 := c.results(t)
	c.scramble(t, 2)
	if err := g.Launch(); err != nil {
		t.Fatal(err)
	}
	sameBits(t, "the graph on new inputs", c.results(t), want2)
}

// TestCaptureRefusesWaits checks that an operation that waits for the
// device (a reduction read back, an allocation) fails inside a capture, that
// Capture then returns an error and no graph, and that the device works
// afterwards, captures included.
func TestCaptureRefusesWaits(t *testing.T) {
	d := device(t)
	c := newGraphCase(t, d)
	for name, op := range map[string]func() error{
		"dot": func() error { _, err := d.Dot(c.x, c.x); return err },
		"alloc": func() error {
			b, err := d.Alloc(10)
			if err == nil {
				d.Free(b)
			}
			return err
		},
	} {
		g, err := d.Capture(func() error {
			if err := d.Axpby(c.g, 1, c.x, 0); err != nil {
				return err
			}
			return op()
		})
		if err == nil || g != nil || !strings.Contains(err.Error(), "during a capture") {
			t.Fatalf("%s in a capture: graph %v, error %v; want an error naming the capture", name, g, err)
		}
	}
	if err := c.run(); err != nil {
		t.Fatalf("after the refused captures: %v", err)
	}
	want := c.results(t)
	g, err := d.Capture(c.run)
	if err != nil {
		t.Fatalf("a capture after the refused ones: %v", err)
	}
	defer g.Destroy()
	c.scramble(t, 3)
	if err := g.Launch(); err != nil {
		t.Fatal(err)
	}
	sameBits(t, "after the refused captures", c.results(t), want)
}

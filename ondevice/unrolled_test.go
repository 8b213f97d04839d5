package ondevice

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
)

// hostDevice is what the host devices implement.
type hostDevice interface {
	gpu.Ops
	gpu.SliceOps
	gpu.MatOps
}

// countingOps is a host device that counts the calls that bring values
// back to the host.
type countingOps struct {
	hostDevice
	copies int
}

func (c *countingOps) CopyOut(dst []float64, src gpu.Buffer) error {
	c.copies++
	return c.hostDevice.CopyOut(dst, src)
}

func (c *countingOps) ReadOut(vals, sums []float64, r gpu.Buffer) error {
	c.copies++
	return c.hostDevice.ReadOut(vals, sums, r)
}

func (c *countingOps) Dot(x, y gpu.Buffer) (float64, error) {
	c.copies++
	return c.hostDevice.Dot(x, y)
}

func (c *countingOps) HuberValue(vals []float64, d gpu.Buffer, s gpu.Batch, eps float64) error {
	c.copies++
	return c.hostDevice.HuberValue(vals, d, s, eps)
}

// unrolledEval is the loss, the values F(x^t) and the gradient blocks of
// one evaluation of d.
type unrolledEval struct {
	loss         float64
	values       []float64
	gradT, gradP [][]float64
}

func evalUnrolled(t *testing.T, d *Unrolled, theta, phi [][]float64, c []float64) unrolledEval {
	t.Helper()
	e := unrolledEval{gradT: make([][]float64, len(theta)), gradP: make([][]float64, len(phi))}
	for i := range theta {
		e.gradT[i] = make([]float64, len(theta[i]))
	}
	for i := range phi {
		e.gradP[i] = make([]float64, len(phi[i]))
	}
	var err error
	if e.loss, err = d.Eval(theta, phi, c, e.gradT, e.gradP); err != nil {
		t.Fatal(err)
	}
	e.values = append([]float64(nil), d.Values()...)
	return e
}

// sameBits reports the first value of got that differs in its bits from
// want's, or "".
func sameBits(got, want []float64) (int, bool) {
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			return i, false
		}
	}
	return 0, true
}

// TestUnrolledGradientsStayOnTheDevice evaluates the unrolled loss with the
// parameter gradients gathered on the device and read back with the values
// in one copy, against the same evaluation with each step's gradients
// brought to the host one by one: the same bits on both host devices, for
// every kind of term (a user's graph term, which has no device gradient,
// still goes through the host).
func TestUnrolledGradientsStayOnTheDevice(t *testing.T) {
	o := testproblems.DeblurSet(t, 3, 12, 2)
	const T = 3
	c := []float64{0.5, 0.25, 1}
	for _, dev := range []hostDevice{gpu.CPU(), gpu.Host32()} {
		for _, name := range []string{"ps", "m-ps", "pc", "m-pc", "m-pp", "pc3:pc", "m-pf", "pc5:pp"} {
			t.Run(dev.Name()+"/"+name, func(t *testing.T) {
				m := testproblems.Method(t, name)
				graphTerm := name == "pc5:pp"
				if graphTerm {
					m.H = testproblems.GraphOnly{P: m.H}
				}
				ops := &countingOps{hostDevice: dev}
				d, err := NewUnrolled(ops, m, o, T, o.N)
				if err != nil {
					t.Fatal(err)
				}
				defer d.Close()
				if err := d.SetBatch(o.X0, o.Y); err != nil {
					t.Fatal(err)
				}
				r := rand.New(rand.NewPCG(4, 8))
				params := func(n int) [][]float64 {
					out := make([][]float64, T)
					for t := range out {
						out[t] = make([]float64, n)
						for j := range out[t] {
							out[t][j] = 0.05 * r.NormFloat64()
						}
					}
					return out
				}
				theta, phi := params(d.up.Term(0).ParamLen()), [][]float64(nil)
				if d.hasH() {
					phi = params(d.up.Term(1).ParamLen())
				}
				ops.copies = 0
				got := evalUnrolled(t, d, theta, phi, c)
				if !graphTerm && ops.copies != 1 {
					t.Errorf("%d copies to the host an evaluation, want 1 (the gradients with the values)", ops.copies)
				}
				onDevice := d.slots
				for i := range d.slots {
					d.slots[i].onDevice = false
				}
				ops.copies = 0
				want := evalUnrolled(t, d, theta, phi, c)
				if perStep := T * d.up.Terms(); ops.copies < perStep {
					t.Errorf("%d copies with the gradients on the host, want at least %d: the reference is not the host's", ops.copies, perStep)
				}
				d.slots = onDevice
				if math.Float64bits(got.loss) != math.Float64bits(want.loss) {
					t.Errorf("loss %v, want %v", got.loss, want.loss)
				}
				if i, ok := sameBits(got.values, want.values); !ok {
					t.Errorf("F(x^%d) = %v, want %v", i+1, got.values[i], want.values[i])
				}
				for block, g := range map[string][2][][]float64{"θ": {got.gradT, want.gradT}, "φ": {got.gradP, want.gradP}} {
					for s := range g[1] {
						if i, ok := sameBits(g[0][s], g[1][s]); !ok {
							t.Errorf("∂ℓ/∂%s%d[%d] = %v, want %v", block, s, i, g[0][s][i], g[1][s][i])
						}
					}
				}
				var norm float64
				for _, g := range got.gradT {
					norm += dot(g, g)
				}
				if !(norm > 0) {
					t.Errorf("∂ℓ/∂θ is %v: nothing compared", norm)
				}
			})
		}
	}
}

package ondevice

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/internal/testsupport"
	"github.com/greedyl2o/greedyl2o/models"
)

// download returns a CPU device buffer's values.
func download(t *testing.T, b gpu.Buffer, n int) []float64 {
	t.Helper()
	out := make([]float64, n)
	if err := gpu.CPU().CopyOut(out, b); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestUpdate checks the device update x⁺ = x − G_θ g + H_φ p on the
// float64 CPU device: Forward and Advance (held operands) against the
// arrays' update (models.Updater) and, for each term, its vector–Jacobian
// product by the adjoint identities of a map linear in θ and in v:
// ⟨∇θ⟨b, ±G_θ v⟩, θ⟩ = ⟨b, ±G_θ v⟩ = ⟨(±G_θ)ᵀ b, v⟩. Every family with a
// device kind, PF's matrix and a graph term (a user family).
func TestUpdate(t *testing.T) {
	o := testproblems.DeblurSet(t, 3, 12, 2)
	x, g, p := testproblems.StepData(t, o, 5)
	s := gpu.Batch{N: o.N, H: o.H, W: o.W}
	for _, name := range []string{"ps", "pc", "m-pc", "m-pp", "pc3:pc", "m-pf", "pc5:pp"} {
		t.Run(name, func(t *testing.T) {
			m := testproblems.Method(t, name)
			if name == "pc5:pp" {
				m.H = testproblems.GraphOnly{P: m.H} // a graph term
			}
			mem := gpu.NewArena(gpu.CPU())
			defer mem.Close()
			u, err := NewUpdate(mem, m, s)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(9, 1))
			params := make([][]float64, u.Terms())
			for i := range params {
				params[i] = make([]float64, u.Term(i).ParamLen())
				for j := range params[i] {
					params[i][j] = 0.1 * r.NormFloat64()
				}
			}
			want := hostUpdate(t, m, o.N, o.H, o.W, params, x, g, p)
			xb, gb, pb, dst := upload(t, x), upload(t, g), upload(t, p), upload(t, x)
			if err := u.SetParams(params...); err != nil {
				t.Fatal(err)
			}
			if err := u.Forward(dst, xb, gb, pb); err != nil {
				t.Fatal(err)
			}
			if d := testsupport.RelDiff(download(t, dst, len(x)), want); !(d <= 1e-12) {
				t.Errorf("Forward differs from the arrays' update by %.2g", d)
			}
			if err := u.Hold(gb, pb); err != nil {
				t.Fatal(err)
			}
			if err := u.Advance(dst, xb); err != nil {
				t.Fatal(err)
			}
			if d := testsupport.RelDiff(download(t, dst, len(x)), want); !(d <= 1e-12) {
				t.Errorf("Advance differs from the arrays' update by %.2g", d)
			}
			// The same parameters again, then θ alone changed: the term left
			// as it is and the one set again give the arrays' update.
			params[0] = append([]float64(nil), params[0]...)
			if err := u.SetParams(params...); err != nil {
				t.Fatal(err)
			}
			params[0][0] += 0.5
			if err := u.SetParams(params...); err != nil {
				t.Fatal(err)
			}
			if err := u.Forward(dst, xb, gb, pb); err != nil {
				t.Fatal(err)
			}
			moved := hostUpdate(t, m, o.N, o.H, o.W, params, x, g, p)
			if d := testsupport.RelDiff(download(t, dst, len(x)), moved); !(d <= 1e-12) {
				t.Errorf("Forward after θ changed differs from the arrays' update by %.2g", d)
			}
			checkVJP(t, u, params, x, [][]float64{g, p}, r)
		})
	}
}

// hostUpdate is the update on arrays (models.Updater).
func hostUpdate(t *testing.T, m models.Method, n, h, w int, params [][]float64, x, g, p []float64) []float64 {
	t.Helper()
	up, err := models.NewUpdater(m, n, h, w)
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	var phi []float64
	if len(params) > 1 {
		phi = params[1]
	}
	if err := up.SetParams(params[0], phi); err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(x))
	if err := up.Step(out, x, g, p); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkVJP checks each term's parameter gradient and transpose by the
// adjoint identities, at a random cotangent b.
func checkVJP(t *testing.T, u *Update, params [][]float64, x []float64, vs [][]float64, r *rand.Rand) {
	t.Helper()
	b := make([]float64, len(x))
	for i := range b {
		b[i] = r.NormFloat64()
	}
	bb, zero := upload(t, b), upload(t, make([]float64, len(x)))
	for i := range u.Terms() {
		v := upload(t, vs[i])
		// ⟨b, sign·G_θ v⟩ from Forward with only this term.
		only := make([]gpu.Buffer, i+1)
		only[i] = v
		out := upload(t, x)
		if err := u.Forward(out, zero, only...); err != nil {
			t.Fatal(err)
		}
		want := dot(b, download(t, out, len(x)))
		grad := make([]float64, len(params[i]))
		if err := u.AddParamGrad(i, grad, v, bb, 1); err != nil {
			t.Fatal(err)
		}
		if got := dot(grad, params[i]); math.Abs(got-want) > 1e-10*math.Abs(want) {
			t.Errorf("term %d: ⟨∇θ, θ⟩ = %v, ⟨b, ±G_θ v⟩ = %v", i, got, want)
		}
		tr := upload(t, x)
		if err := u.Transpose(i, tr, bb); err != nil {
			t.Fatal(err)
		}
		if got := dot(download(t, tr, len(x)), vs[i]); math.Abs(got-want) > 1e-10*math.Abs(want) {
			t.Errorf("term %d: ⟨(±G_θ)ᵀ b, v⟩ = %v, ⟨b, ±G_θ v⟩ = %v", i, got, want)
		}
		checkHeld(t, u, i, bb, v, download(t, tr, len(x)), grad)
	}
}

// checkHeld checks term i's products at the adjoint b held by HoldAdjoint
// (its spectra transformed once for the PC terms), and its parameter
// gradient added into a readout on the device, against the per-call
// Transpose (tr) and AddParamGrad (grad): the same bits.
func checkHeld(t *testing.T, u *Update, i int, bb, v gpu.Buffer, tr, grad []float64) {
	t.Helper()
	if err := u.HoldAdjoint(bb); err != nil {
		t.Fatal(err)
	}
	held := upload(t, make([]float64, len(tr)))
	if err := u.TransposeHeld(i, held); err != nil {
		t.Fatal(err)
	}
	if k, ok := sameBits(download(t, held, len(tr)), tr); !ok {
		t.Errorf("term %d: TransposeHeld differs from Transpose at value %d", i, k)
	}
	onDevice, inSum := u.GradOn(i)
	if !onDevice {
		return
	}
	r, err := u.mem.AllocReadout(len(grad)+3, 2)
	if err != nil {
		t.Fatal(err)
	}
	off := 3
	if inSum {
		off = 1
	}
	if err := u.AddParamGradOn(i, r, off, v, 1); err != nil {
		t.Fatal(err)
	}
	vals, sums := make([]float64, len(grad)+3), make([]float64, 2)
	if err := u.ops.ReadOut(vals, sums, r); err != nil {
		t.Fatal(err)
	}
	got := vals[off:]
	if inSum {
		got = sums[off:]
	}
	if k, ok := sameBits(got, grad); !ok {
		t.Errorf("term %d: AddParamGradOn differs from AddParamGrad at value %d: %v, want %v", i, k, got[k], grad[k])
	}
}

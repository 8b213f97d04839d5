package ondevice

import (
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/param"
)

// A GraphTerm (the parametrization's gorgonia expression on the host) agrees
// with the device Term of the same parametrization in every product, and a
// PF term (no device kind) satisfies the adjoint identities.
func TestGraphTermMatchesTerm(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	s := gpu.Batch{N: 2, H: 6, W: 7}
	for _, name := range []string{"ps", "pp", "pc3", "pc5-reflect", "pc", "pf"} {
		m, err := param.ParseMethod(name)
		if err != nil {
			t.Fatal(err)
		}
		gt, err := NewGraphTerm(gpu.CPU(), m.G, s)
		if err != nil {
			t.Fatal(err)
		}
		defer gt.Close()
		dt, err := NewDeviceTerm(gpu.CPU(), m.G, s)
		if err != nil {
			t.Fatal(err)
		}
		defer dt.Close()
		if _, isGraph := dt.(*GraphTerm); isGraph != (name == "pf") {
			t.Errorf("%s: NewDeviceTerm gave a %T", name, dt)
		}
		theta := randn(r, gt.ParamLen(), 0.3)
		v, b := randn(r, s.Len(), 1), randn(r, s.Len(), 1)
		vb, bb := upload(t, v), upload(t, b)
		var applied, transposed [2][]float64
		var grads [2][]float64
		for i, term := range []DeviceTerm{gt, dt} {
			if err := term.SetParams(theta); err != nil {
				t.Fatal(err)
			}
			dst, tb := upload(t, make([]float64, s.Len())), upload(t, make([]float64, s.Len()))
			if err := term.Apply(dst, vb, 0.7); err != nil {
				t.Fatal(err)
			}
			if err := term.Transpose(tb, bb); err != nil {
				t.Fatal(err)
			}
			grads[i] = make([]float64, term.ParamLen())
			if err := term.AddParamGrad(grads[i], vb, bb, 0.5); err != nil {
				t.Fatal(err)
			}
			applied[i], transposed[i] = read(dst), read(tb)
		}
		if d := relDiff(applied[0], applied[1]); d > 1e-12 {
			t.Errorf("%s: Apply differs by %.2g", name, d)
		}
		if d := relDiff(transposed[0], transposed[1]); d > 1e-12 {
			t.Errorf("%s: Transpose differs by %.2g", name, d)
		}
		if d := relDiff(grads[0], grads[1]); d > 1e-12 {
			t.Errorf("%s: parameter gradient differs by %.2g", name, d)
		}
		// ⟨b, G v⟩ = ⟨Gᵀ b, v⟩ and ∇_θ⟨b, G_θ v⟩·θ = ⟨b, G_θ v⟩ (linear in θ).
		gv := dot(b, applied[0]) / 0.7
		if e := dot(transposed[0], v) - gv; e*e > 1e-24*gv*gv {
			t.Errorf("%s: ⟨Gᵀb, v⟩ − ⟨b, Gv⟩ = %.3g", name, e)
		}
		if e := dot(grads[0], theta)/0.5 - gv; e*e > 1e-20*gv*gv {
			t.Errorf("%s: ⟨∇_θ, θ⟩ − ⟨b, G_θ v⟩ = %.3g", name, e)
		}
	}
}

package ondevice

import (
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/models"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// A GraphTerm (the parametrization's gorgonia expression on the host) agrees
// with the family's own device term (models.DeviceBinder) of the same parametrization in every product (PF's
// included: gpu.MatOps), and both satisfy the adjoint identities.
func TestGraphTermMatchesTerm(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	s := gpu.Batch{N: 2, H: 6, W: 7}
	for _, name := range []string{"ps", "pp", "pc3", "pc5-reflect", "pc", "pf"} {
		m, err := models.ParseMethod(name)
		if err != nil {
			t.Fatal(err)
		}
		gt, err := NewGraphTerm(arena(t, gpu.CPU()), m.G, s)
		if err != nil {
			t.Fatal(err)
		}
		dt, err := NewDeviceTerm(arena(t, gpu.CPU()), m.G, s)
		if err != nil {
			t.Fatal(err)
		}
		if _, isGraph := dt.(*GraphTerm); isGraph {
			t.Errorf("%s: NewDeviceTerm gave a %T, want the family's own (models.DeviceBinder)", name, dt)
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

// doubled is a user parametrization without a device kind: G_θ v = 2θ v.
type doubled struct{}

func (doubled) Name() string                     { return "doubled" }
func (doubled) ParamShape(h, w int) tensor.Shape { return tensor.Shape{1} }
func (doubled) Apply(theta, v *G.Node) (*G.Node, error) {
	two, err := G.Mul(v, G.NewConstant(2.0))
	if err != nil {
		return nil, err
	}
	return graph.Bilinear(graph.Scale{}, theta, two)
}
func (doubled) Reference(tau float64, h, w int) []float64 { return []float64{tau / 2} }

// NewDeviceTerm gives a user parametrization a GraphTerm, whose products are
// those of PS at 2θ.
func TestDeviceTermOfAUserParametrization(t *testing.T) {
	s := gpu.Batch{N: 2, H: 5, W: 6}
	dt, err := NewDeviceTerm(arena(t, gpu.CPU()), doubled{}, s)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := dt.(*GraphTerm); !ok {
		t.Fatalf("NewDeviceTerm of a user parametrization gave a %T", dt)
	}
	ps, err := NewDeviceTerm(arena(t, gpu.CPU()), models.Scalar{}, s)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 3))
	v, b := randn(r, s.Len(), 1), randn(r, s.Len(), 1)
	vb, bb := upload(t, v), upload(t, b)
	if err := dt.SetParams([]float64{0.3}); err != nil {
		t.Fatal(err)
	}
	if err := ps.SetParams([]float64{0.6}); err != nil {
		t.Fatal(err)
	}
	got, want := upload(t, make([]float64, s.Len())), upload(t, make([]float64, s.Len()))
	if err := dt.Apply(got, vb, 1); err != nil {
		t.Fatal(err)
	}
	if err := ps.Apply(want, vb, 1); err != nil {
		t.Fatal(err)
	}
	if d := relDiff(read(got), read(want)); d > 1e-14 {
		t.Errorf("user term's Apply differs from PS at 2θ by %.2g", d)
	}
	gd, gp := make([]float64, 1), make([]float64, 1)
	if err := dt.AddParamGrad(gd, vb, bb, 1); err != nil {
		t.Fatal(err)
	}
	if err := ps.AddParamGrad(gp, vb, bb, 1); err != nil {
		t.Fatal(err)
	}
	if d := gd[0] - 2*gp[0]; d*d > 1e-24*gp[0]*gp[0] {
		t.Errorf("user term's parameter gradient %.15g, want 2×%.15g", gd[0], gp[0])
	}
}

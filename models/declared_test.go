package models

import (
	"errors"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/graph"
	G "gorgonia.org/gorgonia"
)

// squaring is G_θ v = θ·v², not linear in v.
type squaring struct{ Scalar }

func (squaring) Name() string { return "sq" }
func (squaring) Apply(theta, v *G.Node) (*G.Node, error) {
	v2, err := G.HadamardProd(v, v)
	if err != nil {
		return nil, err
	}
	return graph.Bilinear(graph.Scale{}, theta, v2)
}

// shortRef is PP with one reference parameter too few.
type shortRef struct{ Pointwise }

func (shortRef) Name() string { return "shortref" }
func (shortRef) Reference(tau float64, h, w int) []float64 {
	return Pointwise{}.Reference(tau, h, w)[1:]
}

// TestUndeclaredParametrizationsRefused: a parametrization not linear in v,
// one whose Reference does not fill ParamShape and one whose Name does not
// give back the name it was parsed from are refused when parsed (by name,
// ErrUndeclared, saying what is wrong); every built-in passes (checked here
// once, not when parsed).
func TestUndeclaredParametrizationsRefused(t *testing.T) {
	for _, c := range []struct {
		p    Parametrization
		want string
	}{{squaring{}, "not linear in v"}, {shortRef{}, "Reference gives 63 parameters on 8×8 images, ParamShape (8, 8) holds 64"}} {
		p := c.p
		MustRegister(Registration{Name: p.Name(), Version: 1, New: func(string) (Parametrization, error) { return p, nil }})
		if _, err := ParseParametrization(p.Name()); !errors.Is(err, ErrUndeclared) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p.Name()) {
			t.Errorf("%s: %v, want ErrUndeclared saying %q", p.Name(), err, c.want)
		}
		if _, err := ParseMethod("m-" + p.Name()); !errors.Is(err, ErrUndeclared) {
			t.Errorf("m-%s: %v, want ErrUndeclared", p.Name(), err)
		}
	}
	MustRegister(Registration{Name: "alias", Version: 1, New: func(string) (Parametrization, error) { return Scalar{}, nil }})
	if _, err := ParseParametrization("alias"); !errors.Is(err, ErrUndeclared) || !strings.Contains(err.Error(), `named "ps"`) {
		t.Errorf("alias: %v, want ErrUndeclared naming ps", err)
	}
	for name := range builtin {
		if _, _, ok := family(name); !ok {
			t.Errorf("built-in %s is not registered", name)
		}
	}
	for _, name := range []string{"ps", "pp", "pc", "pc3", "pc5-reflect", "pf", "npoly3"} {
		p, err := ParseParametrization(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if strings.HasPrefix(name, "npoly") {
			continue // bound to the problem's operator first
		}
		if err := CheckDeclared(p, 6, 6); err != nil {
			t.Errorf("%s on 6×6: %v", name, err)
		}
	}
}

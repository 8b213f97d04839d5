package models

import (
	"errors"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/graph"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// halfScalar is a test family with arguments: "hsN" is G = (θ/N)·I.
type halfScalar struct{ n int }

func (h halfScalar) Name() string                            { return "hs" + strings.Repeat("x", h.n) }
func (halfScalar) ParamShape(h, w int) tensor.Shape          { return tensor.Shape{1} }
func (halfScalar) Reference(tau float64, h, w int) []float64 { return []float64{tau} }
func (halfScalar) Apply(theta, v *G.Node) (*G.Node, error) {
	return graph.Bilinear(graph.Scale{}, theta, v)
}

// renamed is a parametrization under another name.
type renamed struct {
	Parametrization
	name string
}

func (r renamed) Name() string { return r.name }

func TestRegisterValidatesAndResolves(t *testing.T) {
	ok := Registration{Name: "hs", Version: 2, Args: true, New: func(a string) (Parametrization, error) {
		if strings.Trim(a, "x") != "" {
			return nil, errors.New("arguments are x's")
		}
		return halfScalar{len(a)}, nil
	}}
	if err := Register(ok); err != nil {
		t.Fatal(err)
	}
	if err := Register(ok); !errors.Is(err, ErrNameTaken) {
		t.Errorf("second registration of hs: %v, want ErrNameTaken", err)
	}
	for _, bad := range []Registration{
		{Name: "", Version: 1, New: ok.New},
		{Name: "m-hs2", Version: 1, New: ok.New},
		{Name: "a:b", Version: 1, New: ok.New},
		{Name: "Upper", Version: 1, New: ok.New},
		{Name: "hs3", Version: 0, New: ok.New},
		{Name: "hs4", Version: 1},
	} {
		if err := Register(bad); err == nil {
			t.Errorf("Register(%+v) accepted", bad)
		}
	}
	// A longer registered name wins over a family prefix: "hsy" is its own family.
	if err := Register(Registration{Name: "hsy", Version: 1, New: func(string) (Parametrization, error) { return renamed{Scalar{}, "hsy"}, nil }}); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{"hs": "hs", "hsxx": "hsxx", "hsy": "hsy", "HSX": "hsx"} {
		p, err := ParseParametrization(in)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if p.Name() != want {
			t.Errorf("ParseParametrization(%q).Name() = %q, want %q", in, p.Name(), want)
		}
	}
	if _, err := ParseParametrization("hsz"); err == nil || !strings.Contains(err.Error(), "arguments are x's") {
		t.Errorf("hsz: %v, want the family's own error", err)
	}
	m, err := ParseMethod("m-hsx")
	if err != nil || m.Name() != "m-hsx" {
		t.Fatalf("ParseMethod(m-hsx) = %v, %v", m.Name(), err)
	}
	v, err := Versions(Method{G: halfScalar{1}, H: Scalar{}})
	if err != nil || v["hs"] != 2 || v["ps"] != 1 || len(v) != 2 {
		t.Errorf("Versions = %v, %v; want hs:2 ps:1", v, err)
	}
	if err := CheckVersions(m, map[string]int{"hs": 2}); err != nil {
		t.Errorf("matching versions refused: %v", err)
	}
	for _, rec := range []map[string]int{{"hs": 1}, nil} { // nil stands for version 1
		if err := CheckVersions(m, rec); err == nil || !strings.Contains(err.Error(), "version 1") {
			t.Errorf("CheckVersions(%v) = %v, want a version 1 ≠ 2 refusal", rec, err)
		}
	}
	if _, err := Versions(Method{G: unregistered{}}); err == nil {
		t.Error("Versions of an unregistered type succeeded")
	}
	found := false
	for _, r := range Registered() {
		found = found || r.Name == "hs"
	}
	if !found {
		t.Error("Registered does not list hs")
	}
}

type unregistered struct{ halfScalar }

func (unregistered) Name() string { return "nowhere" }

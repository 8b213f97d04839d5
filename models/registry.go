package models

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Registration describes a family of parametrizations for the registry:
// every built-in (ps, pp, pc/pcK, pf) and any user type registers here, and
// from then on it is parsed by name on the command line and in checkpoints
// (ParseParametrization, ParseMethod), so that training, greedy.Load,
// apply, eval and certify work for it alike.
//
// The parametrization itself carries the rest: its parameter shape, the
// reference τI (Reference) and the forward graph expression (Apply).
// Optional capabilities are interfaces it may implement: Binder (a bound
// operator for fixed operands), Reducer (a small exact subspace), Normer
// (‖G_θ‖ in closed form) and Preconditioner.
type Registration struct {
	// Name is the family's name: lower case letters, digits, '_' or '.';
	// not "m" (the momentum prefix is "m-") and without ':'.
	Name string
	// Version numbers the meaning of θ (its layout and the map θ ↦ G_θ).
	// Checkpoints record it; bump it when either changes, so that older
	// checkpoints are refused instead of misread. At least 1.
	Version int
	// Summary is one line for help texts.
	Summary string
	// Args says the family takes arguments written after its name (pc5,
	// pc5-reflect for the family pc): New receives them ("5",
	// "5-reflect"), or "" for the bare name.
	Args bool
	// New returns the parametrization for the arguments (always "" for a
	// family without Args). Its Name must give back the full name it was
	// parsed from.
	New func(args string) (Parametrization, error)
}

// ErrVersion marks a checkpoint whose parametrization versions differ from
// the registered ones (CheckVersions). Test with errors.Is.
var ErrVersion = errors.New("parametrization version mismatch")

// ErrNameTaken is returned by Register for a name already registered.
var ErrNameTaken = errors.New("the name is taken")

var registry = struct {
	sync.RWMutex
	byName map[string]Registration
}{byName: map[string]Registration{}}

// Register adds a family to the registry. It fails for an invalid or
// already registered name, a version below 1 or a missing constructor.
func Register(r Registration) error {
	if err := validName(r.Name); err != nil {
		return fmt.Errorf("registering parametrization %q: %w", r.Name, err)
	}
	if r.Version < 1 {
		return fmt.Errorf("registering parametrization %q: version %d, want at least 1", r.Name, r.Version)
	}
	if r.New == nil {
		return fmt.Errorf("registering parametrization %q: no constructor (Registration.New)", r.Name)
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.byName[r.Name]; dup {
		return fmt.Errorf("registering parametrization %q: %w", r.Name, ErrNameTaken)
	}
	registry.byName[r.Name] = r
	return nil
}

// MustRegister is Register that panics on error, for package initialisation.
func MustRegister(r Registration) {
	if err := Register(r); err != nil {
		panic(err)
	}
}

func validName(s string) error {
	if s == "" {
		return fmt.Errorf("empty name")
	}
	if s == "m" || strings.HasPrefix(s, "m-") {
		return fmt.Errorf("the prefix m- is reserved for methods with momentum")
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.') {
			return fmt.Errorf("character %q: use lower case letters, digits, '_' or '.'", c)
		}
	}
	return nil
}

// Registered returns the registered families, sorted by name.
func Registered() []Registration {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]Registration, 0, len(registry.byName))
	for _, r := range registry.byName {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// family returns the registration a full name belongs to and the name's
// arguments: the family of that exact name, or else the family with
// arguments whose name is the longest prefix of it.
func family(name string) (Registration, string, bool) {
	registry.RLock()
	defer registry.RUnlock()
	if r, ok := registry.byName[name]; ok {
		return r, "", true
	}
	var best Registration
	found := false
	for n, r := range registry.byName {
		if r.Args && strings.HasPrefix(name, n) && (!found || len(n) > len(best.Name)) {
			best, found = r, true
		}
	}
	if !found {
		return Registration{}, "", false
	}
	return best, name[len(best.Name):], true
}

// ParseParametrization returns the parametrization of a registered name:
// the built-ins ps, pp, pc (image-sized, FFT), pcK or pcK-BOUNDARY (K×K
// kernel, circular by default; e.g. pc5, pc5-reflect, pc3-zero), pf, and
// every family added with Register.
func ParseParametrization(name string) (Parametrization, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	if rest, ok := strings.CutPrefix(name, "m-"); ok {
		return nil, fmt.Errorf("parametrization %q: the momentum prefix m- is written once, before the method (m-%s learns G and H of type %s), not before a parametrization", name, rest, rest)
	}
	r, args, ok := family(name)
	if !ok {
		return nil, fmt.Errorf("unknown parametrization %q: use %s", name, registeredList())
	}
	p, err := r.New(args)
	if err != nil {
		return nil, fmt.Errorf("parametrization %q: %w", name, err)
	}
	if p == nil {
		return nil, fmt.Errorf("parametrization %q: the constructor of %s returned none", name, r.Name)
	}
	if p.Name() != name {
		return nil, fmt.Errorf("%w: parametrization %q: the constructor of %s returns one named %q; its Name must give back the name it was parsed from (checkpoints record it)", ErrUndeclared, name, r.Name, p.Name())
	}
	if !builtin[r.Name] {
		if err := checkDeclaredOnce(p); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// builtin names the families this package registers: their declarations
// are checked by its tests (CheckDeclared), not again in every process.
var builtin = map[string]bool{"ps": true, "pp": true, "pc": true, "pf": true, "npoly": true}

func registeredList() string {
	var names []string
	for _, r := range Registered() {
		n := r.Name
		if r.Args {
			n += "…"
		}
		names = append(names, n)
	}
	return strings.Join(names, ", ") + " (families with … take arguments, e.g. pc5 or pc5-reflect)"
}

// VersionOf returns the registered version of the family a parametrization
// belongs to (by its Name), or an error for an unregistered one.
func VersionOf(p Parametrization) (int, error) {
	r, _, ok := family(p.Name())
	if !ok {
		return 0, fmt.Errorf("parametrization %q is not registered: register it with models.Register before training or loading", p.Name())
	}
	return r.Version, nil
}

// Versions returns the registered versions of the families of a method's
// parametrizations, keyed by family name, for checkpoints to record.
func Versions(m Method) (map[string]int, error) {
	out := map[string]int{}
	for _, p := range []Parametrization{m.G, m.H} {
		if p == nil {
			continue
		}
		r, _, ok := family(p.Name())
		if !ok {
			return nil, fmt.Errorf("parametrization %q is not registered: register it with models.Register before training or loading", p.Name())
		}
		out[r.Name] = r.Version
	}
	return out, nil
}

// CheckVersions compares the versions a checkpoint recorded for a method's
// families with the registered ones; recorded nil (checkpoints written
// before versions were recorded) stands for version 1 of every family.
func CheckVersions(m Method, recorded map[string]int) error {
	now, err := Versions(m)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(now))
	for n := range now {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		was, ok := recorded[n]
		if !ok {
			was = 1
		}
		if was != now[n] {
			return fmt.Errorf("%w: parametrization %s was saved at version %d, this build registers version %d: its parameters would be misread; load it with a build of that version or retrain", ErrVersion, n, was, now[n])
		}
	}
	return nil
}

func init() {
	MustRegister(Registration{Name: "ps", Version: 1, Summary: "scalar: G = θ·I",
		New: func(string) (Parametrization, error) { return Scalar{}, nil }})
	MustRegister(Registration{Name: "pp", Version: 1, Summary: "pointwise: an image-sized θ multiplies each pixel",
		New: func(string) (Parametrization, error) { return Pointwise{}, nil }})
	MustRegister(Registration{Name: "pc", Version: 1, Args: true,
		Summary: "convolution: pc image-sized (circular, by FFT); pcK a K×K kernel (odd K), pcK-zero|reflect|circular its boundary",
		New:     newConv})
	MustRegister(Registration{Name: "pf", Version: 1, Summary: "full (H·W)×(H·W) matrix, for small images",
		New: func(string) (Parametrization, error) { return Full{}, nil }})
	MustRegister(Registration{Name: "npoly", Version: 1, Args: true,
		Summary: "npolyD: G = Σ_{j<D} θ_j (AᵀA)^j, a polynomial in the problem's normal operator (D parameters, any linear A)",
		New:     newNormalPoly})
}

package problem

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// Conventions name the choices a problem makes that the paper leaves
// unstated, such as how the blur extends an image beyond its border. They
// are recorded in every checkpoint and curve file, and parameters trained
// under one set of conventions are refused under another: a learned
// optimizer's behaviour on unseen functions depends on them (see
// docs/reproduction.md).
type Conventions map[string]string

// ConventionBlurBoundary is the key of the blur's boundary condition
// ("zero", "circular" or "reflect") in the deblurring problems.
const ConventionBlurBoundary = "blur_boundary"

// DefaultBlurBoundary is the blur boundary of the deblurring problems when
// Options.BlurBoundary is empty: zero padding, a 'same' convolution as
// PyTorch's conv2d(padding=2) computes it. Chosen by measurement
// (docs/reproduction.md): under the paper's protocol greedy M-PC generalises
// with zero or circular boundaries and diverges on held-out functions with a
// reflecting one.
const DefaultBlurBoundary = kernels.Zero

// String lists the conventions as sorted key=value pairs separated by commas
// ("" when there are none).
func (c Conventions) String() string {
	keys := slices.Sorted(maps.Keys(c))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + c[k]
	}
	return strings.Join(parts, ",")
}

// Mismatch describes the first convention on which c and other differ, as
// "blur_boundary: zero here, reflect there", or returns "" when they agree.
// A key missing on one side counts as a difference.
func (c Conventions) Mismatch(other Conventions) string {
	k, a, b, differ := c.firstDifference(other)
	if !differ {
		return ""
	}
	return fmt.Sprintf("%s: %s here, %s there", k, a, b)
}

// firstDifference returns the first key (in sorted order) on which c and
// other differ, with both values ("(unset)" for a missing key).
func (c Conventions) firstDifference(other Conventions) (key, here, there string, differ bool) {
	keys := slices.Sorted(maps.Keys(c))
	for k := range other {
		if _, ok := c[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		a, okA := c[k]
		b, okB := other[k]
		if a != b || okA != okB {
			return k, orUnset(a, okA), orUnset(b, okB), true
		}
	}
	return "", "", "", false
}

func orUnset(v string, ok bool) string {
	if !ok {
		return "(unset)"
	}
	return v
}

// blurBoundary parses Options.BlurBoundary for a deblurring problem.
func blurBoundary(opt Options) (kernels.Boundary, error) {
	if opt.BlurBoundary == "" {
		return DefaultBlurBoundary, nil
	}
	b, err := kernels.ParseBoundary(opt.BlurBoundary)
	if err != nil {
		return 0, fmt.Errorf("blur boundary: %w", err)
	}
	return b, nil
}

// noBlur refuses a blur boundary for problems without a blur.
func noBlur(name string, opt Options) error {
	if opt.BlurBoundary != "" {
		return fmt.Errorf("problem %s has no blur: the blur boundary (%q) applies to deblur and deblur-wcrr only", name, opt.BlurBoundary)
	}
	return nil
}

// CheckTrainedFor reports whether parameters trained on problem under
// conventions conv may run on the functions o: the problem's name (when both
// are known) and every convention must agree. The error names both sides and
// what to pass instead.
func CheckTrainedFor(problem string, conv Conventions, o *Objective) error {
	if problem != "" && o.Problem != "" && problem != o.Problem {
		return fmt.Errorf("the parameters were trained on problem %s, these functions come from problem %s: pass --problem %s or parameters trained on %s",
			problem, o.Problem, problem, o.Problem)
	}
	if o.Problem == "" && o.Conventions == nil {
		return nil // an objective built by hand: nothing recorded to compare
	}
	if k, here, there, differ := o.Conventions.firstDifference(conv); differ {
		hint := ""
		if k == ConventionBlurBoundary && there != "(unset)" {
			hint = fmt.Sprintf(": pass --blur-boundary %s to run them under the convention they were trained with", there)
		}
		return fmt.Errorf("the parameters were trained with %s=%s, these functions have %s=%s%s", k, there, k, here, hint)
	}
	return nil
}

// LegacyConventions infers the conventions of a checkpoint written before
// manifests recorded them from its operator's description: the deblurring
// problems then always used a reflecting blur, which the description names
// ("…conv(gauss5-1.5,5,reflect)"). It returns nil for other operators.
func LegacyConventions(operator string) Conventions {
	for _, b := range []kernels.Boundary{kernels.Zero, kernels.Reflect, kernels.Circular} {
		if strings.Contains(operator, fmt.Sprintf("conv(gauss5-1.5,5,%v)", b)) {
			return Conventions{ConventionBlurBoundary: b.String()}
		}
	}
	return nil
}

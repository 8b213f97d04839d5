package report

import (
	"fmt"
	"hash/fnv"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"
)

// Style is how a method is drawn: the same in every figure of every report,
// whatever other methods a report holds or in which order (MethodStyle).
type Style struct {
	Color  color.RGBA
	Dashes []vg.Length // nil: solid
	Width  vg.Length
}

// Hex returns the style's colour as "#rrggbb", for HTML.
func (s Style) Hex() string { return fmt.Sprintf("#%02x%02x%02x", s.Color.R, s.Color.G, s.Color.B) }

// DashCSS returns the style's line as a CSS border style.
func (s Style) DashCSS() string {
	switch {
	case s.Dashes == nil:
		return "solid"
	case s.Dashes[0] < vg.Points(3):
		return "dotted"
	}
	return "dashed"
}

// methodColors fixes the colours of the methods the tool knows (Tableau 10).
var methodColors = map[string]color.RGBA{
	"greedy m-ps":   {0x1f, 0x77, 0xb4, 0xff}, // blue
	"greedy m-pc":   {0xd6, 0x27, 0x28, 0xff}, // red
	"lbfgs":         {0x2c, 0xa0, 0x2c, 0xff}, // green
	"unrolled m-pc": {0xff, 0x7f, 0x0e, 0xff}, // orange
	"nag":           {0x94, 0x67, 0xbd, 0xff}, // purple
	"heavy-ball":    {0x8c, 0x56, 0x4b, 0xff}, // brown
	"greedy m-pp":   {0xe3, 0x77, 0xc2, 0xff}, // pink
	"gd":            {0x7f, 0x7f, 0x7f, 0xff}, // grey
	"pgd":           {0xbc, 0xbd, 0x22, 0xff}, // olive
	"banert":        {0x17, 0xbe, 0xcf, 0xff}, // cyan
}

// variantColors fixes the colours of the stronger classical baselines that
// vary a method above (package baselines): a shade of the colour of the
// method they vary, drawn with long dashes (variantDashes). BB varies no
// method above and has a colour of its own (dark goldenrod).
var variantColors = map[string]color.RGBA{
	"silver":      shade(methodColors["gd"], -0.5),  // dark grey: GD with the silver step sizes
	"nag-restart": shade(methodColors["nag"], -0.4), // dark purple: NAG with adaptive restart
	"bb":          {0xb8, 0x86, 0x0b, 0xff},         // dark goldenrod
}

// Line patterns of the baselines: baselineDashes for the methods of
// methodColors and BB, variantDashes (long dashes) for a variant of one of
// them (silver, nag-restart, lbfgs(m=M), bb(m=M), pgd(δ=…) keeps
// baselineDashes), altVariantDashes (long–short) for a second variant of the
// same method (nag-restart(function)).
var (
	baselineDashes   = []vg.Length{vg.Points(5), vg.Points(2.5)}
	variantDashes    = []vg.Length{vg.Points(9), vg.Points(2.5)}
	altVariantDashes = []vg.Length{vg.Points(9), vg.Points(2.5), vg.Points(3), vg.Points(2.5)}
)

// shade mixes c with white (f > 0) or black (f < 0) in proportion |f| ≤ 1.
func shade(c color.RGBA, f float64) color.RGBA {
	mix := func(v uint8) uint8 {
		if f >= 0 {
			return uint8(math.Round(float64(v) + f*(255-float64(v))))
		}
		return uint8(math.Round(float64(v) * (1 + f)))
	}
	return color.RGBA{mix(c.R), mix(c.G), mix(c.B), c.A}
}

// memoryShade is the shade of a method with memory m whose default memory is
// def (L-BFGS: 10, BB: 10): lighter for a smaller memory, darker for a
// larger one, by a quarter per factor 2, at most 0.6 (m = 3: +0.43, 5: +0.25,
// 20: −0.25, 40: −0.5).
func memoryShade(m, def int) float64 {
	f := -0.25 * math.Log2(float64(m)/float64(def))
	return math.Max(-0.6, math.Min(0.6, f))
}

// memoryOf reads M from "lbfgs(m=M)" or "lbfgs:m=M" (prefix "lbfgs"); false
// when the name has no memory.
func memoryOf(key, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(key, prefix)
	if !ok {
		return 0, false
	}
	rest = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(rest, ":"), "("), ")")
	m, err := strconv.Atoi(strings.TrimPrefix(rest, "m="))
	if err != nil || m < 1 {
		return 0, false
	}
	return m, true
}

// safeguardSuffix ends the name of a learned optimizer safeguarded by the
// default rule (a step that raises f is replaced by a gradient step), and
// bgdSuffix that of one safeguarded by the BGD rule (a step that does worse
// than the gradient step is replaced by it; l2o eval --safeguard bgd).
const (
	safeguardSuffix = " (safeguarded)"
	bgdSuffix       = " (safeguarded bgd)"
)

// cutSafeguard returns name without its safeguard suffix, and which suffix
// it had ("" for none).
func cutSafeguard(name string) (base, suffix string) {
	for _, s := range []string{safeguardSuffix, bgdSuffix} {
		if b, ok := strings.CutSuffix(name, s); ok {
			return b, s
		}
	}
	return name, ""
}

// MethodStyle returns the style of the method named name: a fixed colour for
// the methods the tool knows (greedy M-PS blue, M-PC red, L-BFGS green, …)
// and one chosen by a hash of the name for others; learned optimizers solid
// and thick, baselines dashed, a safeguarded optimizer dotted in the colour
// of the optimizer it guards (dash-dotted under the BGD rule). The stronger
// classical baselines are drawn with long dashes in a shade of the method
// they vary: silver dark grey (GD), nag-restart dark purple (NAG; its
// function scheme long–short), lbfgs(m=M) (also "lbfgs:m=M") L-BFGS's green,
// lighter for M < 10 and darker for M > 10; bb is dark goldenrod with the
// baselines' dashes and bb(m=M) a shade of it with long dashes.
func MethodStyle(name string) Style {
	base, suffix := cutSafeguard(name)
	key := strings.ToLower(base)
	dashes := baselineDashes
	col, ok := methodColors[key]
	if !ok {
		if c, v := variantColors[key]; v {
			col, ok = c, true
			if key != "bb" {
				dashes = variantDashes
			}
		}
	}
	if !ok {
		switch {
		case key == "nag-restart(function)" || key == "nag-restart:function":
			col, ok, dashes = variantColors["nag-restart"], true, altVariantDashes
		case key == "nag-restart(gradient)" || key == "nag-restart:gradient":
			col, ok, dashes = variantColors["nag-restart"], true, variantDashes
		case strings.HasPrefix(key, "lbfgs"):
			if m, has := memoryOf(key, "lbfgs"); has {
				col, ok, dashes = shade(methodColors["lbfgs"], memoryShade(m, 10)), true, variantDashes
			}
		case strings.HasPrefix(key, "bb"):
			if m, has := memoryOf(key, "bb"); has {
				col, ok, dashes = shade(variantColors["bb"], memoryShade(m, 10)), true, variantDashes
			}
		case strings.HasPrefix(key, "pgd"):
			col, ok = methodColors["pgd"], true
		case strings.HasPrefix(key, "banert"):
			col, ok = methodColors["banert"], true
		}
	}
	if !ok {
		h := fnv.New32a()
		h.Write([]byte(key))
		col = palette[h.Sum32()%uint32(len(palette))]
	}
	s := Style{Color: col, Width: vg.Points(1.5), Dashes: slices.Clone(dashes)}
	if learned(base) {
		s.Width, s.Dashes = vg.Points(2.5), nil
	}
	switch suffix {
	case safeguardSuffix:
		s.Width, s.Dashes = vg.Points(2.5), []vg.Length{vg.Points(1.5), vg.Points(2)}
	case bgdSuffix:
		s.Width, s.Dashes = vg.Points(2.5), []vg.Length{vg.Points(1.5), vg.Points(2), vg.Points(6), vg.Points(2)}
	}
	return s
}

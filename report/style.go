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

// Line widths: learned optimizers thick, baselines thin.
var (
	learnedWidth  = vg.Points(2.5)
	baselineWidth = vg.Points(1.5)
)

// dashes builds a dash pattern from lengths in points (on, off, on, off, …).
func dashes(pts ...float64) []vg.Length {
	out := make([]vg.Length, len(pts))
	for i, p := range pts {
		out[i] = vg.Points(p)
	}
	return out
}

// The line patterns. Each method the tool knows has a pattern of its own:
// the sequence of its strokes (dot ·, short –, medium —, long ——) differs
// between any two of them, so that two methods differ in line as well as
// in colour and a figure reads in grey print. Learned optimizers have long
// strokes (or none: greedy M-PC is solid), baselines shorter ones.
var (
	// Learned optimizers (thick).
	patLong         = dashes(12, 3)                 // —— greedy M-PS
	patLongShort    = dashes(12, 3, 3, 3)           // —— – unrolled M-PC
	patLongDotDot   = dashes(12, 3, 1.5, 3, 1.5, 3) // —— · · Banert
	patLongShortTwo = dashes(12, 3, 3, 3, 3, 3)     // —— – – greedy M-PP
	patSafeguard    = dashes(1.5, 2)                // · · · a safeguarded learned optimizer
	patSafeguardBGD = dashes(1.5, 2, 6, 2)          // · — under the BGD rule
	// Baselines (thin).
	patMedium        = dashes(6, 3)                         // — GD
	patMediumDotDot  = dashes(6, 3, 1.5, 3, 1.5, 3)         // — · · silver
	patLongMedium    = dashes(12, 3, 6, 3)                  // —— — heavy ball
	patShort         = dashes(3.5, 2.5)                     // – NAG
	patShortDot      = dashes(3.5, 2.5, 1.5, 2.5)           // – · NAG with restart
	patShortDotDot   = dashes(3.5, 2.5, 1.5, 2.5, 1.5, 2.5) // – · · its function scheme
	patLongDot       = dashes(12, 3, 1.5, 3)                // —— · L-BFGS
	patLongLongDot   = dashes(12, 3, 12, 3, 1.5, 3)         // —— —— · L-BFGS with another memory
	patMediumShort   = dashes(6, 3, 3, 3)                   // — – PGD
	patMediumShort2  = dashes(6, 3, 3, 3, 3, 3)             // — – – PGD with another δ
	patLongShortDot  = dashes(12, 3, 3, 3, 1.5, 3)          // —— – · BB
	patLongShortDot2 = dashes(12, 3, 3, 3, 1.5, 3, 1.5, 3)  // —— – · · BB with another memory
)

// fallbackDashes are the patterns of baselines MethodStyle does not know,
// chosen by a hash of the name: none of them is a known method's.
var fallbackDashes = [][]vg.Length{
	dashes(6, 3, 6, 3, 1.5, 3),           // — — ·
	dashes(6, 3, 3.5, 3, 1.5, 3),         // — – ·
	dashes(3.5, 2.5, 3.5, 2.5, 1.5, 2.5), // – – ·
	dashes(12, 3, 12, 3, 3, 3),           // —— —— –
}

// hexColor parses "rrggbb".
func hexColor(s string) color.RGBA {
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil || len(s) != 6 {
		panic("report: bad colour " + s)
	}
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 0xff}
}

// knownStyle is the colour and pattern of a method MethodStyle knows.
type knownStyle struct {
	color  color.RGBA
	dashes []vg.Length
}

// knownStyles fixes the colours and lines of the methods the tool knows.
// The colours are Tableau 10's where they stay apart and others where two
// of them looked alike: any two differ by a CIEDE2000 colour difference of
// at least 20 (TestMethodStylesDiffer), and any two lines by their pattern.
var knownStyles = map[string]knownStyle{
	"greedy m-ps":   {hexColor("1f77b4"), patLong},         // blue
	"greedy m-pc":   {hexColor("d62728"), nil},             // red, solid
	"unrolled m-pc": {hexColor("ff7f0e"), patLongShort},    // orange
	"banert":        {hexColor("17becf"), patLongDotDot},   // cyan
	"greedy m-pp":   {hexColor("f781bf"), patLongShortTwo}, // pink
	"gd":            {hexColor("7f7f7f"), patMedium},       // grey
	"silver":        {hexColor("1a1a1a"), patMediumDotDot}, // near-black: GD with the silver step sizes
	"heavy-ball":    {hexColor("8c6d31"), patLongMedium},   // bronze
	"nag":           {hexColor("9467bd"), patShort},        // purple
	"nag-restart":   {hexColor("1a237e"), patShortDot},     // navy: NAG with adaptive restart
	"lbfgs":         {hexColor("2ca02c"), patLongDot},      // green
	"pgd":           {hexColor("bcbd22"), patMediumShort},  // olive
	"bb":            {hexColor("00766c"), patLongShortDot}, // teal
}

// aliases are other spellings of known methods.
var aliases = map[string]string{
	"nag-restart(gradient)": "nag-restart",
	"nag-restart:gradient":  "nag-restart",
	"lbfgs(m=10)":           "lbfgs",
	"lbfgs:m=10":            "lbfgs",
	"bb(m=10)":              "bb",
	"bb:m=10":               "bb",
}

// fallbackColors are the colours of methods MethodStyle does not know,
// chosen by a hash of the name: none of them is a known method's.
var fallbackColors = []color.RGBA{
	hexColor("e7298a"), // magenta
	hexColor("e6ab02"), // gold
	hexColor("7a0177"), // plum
	hexColor("8b0000"), // dark red
	hexColor("0047ab"), // cobalt
	hexColor("66a61e"), // lime green
	hexColor("a0522d"), // sienna
	hexColor("6a5acd"), // slate blue
}

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

// cutTag splits "greedy m-pc [cuda:0]" into "greedy m-pc" and "cuda:0": the
// tag l2o apply gives a method run on a device and l2o eval a checkpoint
// whose method another checkpoint shares; ok is false without a tag.
func cutTag(name string) (base, tag string, ok bool) {
	if !strings.HasSuffix(name, "]") {
		return name, "", false
	}
	i := strings.LastIndex(name, " [")
	if i <= 0 {
		return name, "", false
	}
	return name[:i], name[i+2 : len(name)-1], true
}

// tagShades and tagDashes are the shades and patterns of a tagged method
// (cutTag), chosen by a hash of the tag: the method's colour, lighter or
// darker, with a pattern no known method has.
var (
	tagShades = []float64{-0.45, 0.35, -0.25, -0.65}
	tagDashes = [][]vg.Length{
		dashes(8, 2, 1.5, 2, 1.5, 2, 1.5, 2),  // — · · ·
		dashes(12, 2, 3, 2, 3, 2, 3, 2),       // —— – – –
		dashes(1.5, 2, 1.5, 2, 1.5, 2, 12, 2), // · · · ——
	}
)

func hash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// baseStyle returns the colour and pattern of a method without safeguard
// suffix, and whether MethodStyle knows it (else both come from a hash).
func baseStyle(key string) (color.RGBA, []vg.Length, bool) {
	if a, ok := aliases[key]; ok {
		key = a
	}
	if k, ok := knownStyles[key]; ok {
		return k.color, k.dashes, true
	}
	if base, tag, ok := cutTag(key); ok {
		col, _, _ := baseStyle(base)
		h := hash(tag)
		return shade(col, tagShades[h%uint32(len(tagShades))]), tagDashes[(h/uint32(len(tagShades)))%uint32(len(tagDashes))], true
	}
	switch {
	case key == "nag-restart(function)" || key == "nag-restart:function":
		return knownStyles["nag-restart"].color, patShortDotDot, true
	case strings.HasPrefix(key, "lbfgs"):
		if m, has := memoryOf(key, "lbfgs"); has {
			return shade(knownStyles["lbfgs"].color, memoryShade(m, 10)), patLongLongDot, true
		}
	case strings.HasPrefix(key, "bb"):
		if m, has := memoryOf(key, "bb"); has {
			return shade(knownStyles["bb"].color, memoryShade(m, 10)), patLongShortDot2, true
		}
	case strings.HasPrefix(key, "pgd"):
		return knownStyles["pgd"].color, patMediumShort2, true
	case strings.HasPrefix(key, "banert"):
		return knownStyles["banert"].color, patLongDotDot, true
	}
	h := hash(key)
	col := fallbackColors[h%uint32(len(fallbackColors))]
	var pat []vg.Length
	if !learned(key) {
		pat = fallbackDashes[(h/uint32(len(fallbackColors)))%uint32(len(fallbackDashes))]
	}
	return col, pat, false
}

// MethodStyle returns the style of the method named name, which depends on
// the name only. Every method the tool knows has a colour and a line
// pattern of its own, and no two of them share either: greedy M-PC red and
// solid, M-PS blue, unrolled M-PC orange, Banert cyan, M-PP pink (learned
// optimizers, thick lines with long strokes); GD grey, silver near-black,
// heavy ball bronze, NAG purple, nag-restart navy (its function scheme with
// another pattern), L-BFGS green, PGD olive, BB teal (baselines, thin
// lines). lbfgs(m=M) (also "lbfgs:m=M") and bb(m=M) are shades of L-BFGS's
// and BB's colours, lighter for M < 10 and darker for M > 10, with a
// pattern of their own; pgd(δ=…) has PGD's colour and banert-… Banert's
// style. A safeguarded optimizer is dotted in the colour of the optimizer it
// guards (dot–dash under the BGD rule); a tagged one ("greedy m-pc
// [cuda:0]", as l2o apply names a method run on a device) is a lighter or
// darker shade of it with a pattern of its own. Other names get a colour and
// a pattern (solid for learned optimizers) chosen by a hash of the name
// among ones no known method has.
func MethodStyle(name string) Style {
	base, suffix := cutSafeguard(name)
	col, pat, _ := baseStyle(strings.ToLower(base))
	s := Style{Color: col, Width: baselineWidth, Dashes: slices.Clone(pat)}
	if learned(base) {
		s.Width = learnedWidth
	}
	switch suffix {
	case safeguardSuffix:
		s.Width, s.Dashes = learnedWidth, slices.Clone(patSafeguard)
	case bgdSuffix:
		s.Width, s.Dashes = learnedWidth, slices.Clone(patSafeguardBGD)
	}
	return s
}

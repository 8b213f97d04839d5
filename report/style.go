package report

import (
	"fmt"
	"hash/fnv"
	"image/color"
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
// of the optimizer it guards (dash-dotted under the BGD rule).
func MethodStyle(name string) Style {
	base, suffix := cutSafeguard(name)
	key := strings.ToLower(base)
	col, ok := methodColors[key]
	if !ok {
		switch {
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
	s := Style{Color: col, Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(5), vg.Points(2.5)}}
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

package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"html"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/eval"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// cieLab converts an sRGB colour to CIE L*a*b* (D65).
func cieLab(c color.RGBA) [3]float64 {
	lin := func(v uint8) float64 {
		x := float64(v) / 255
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	r, g, b := lin(c.R), lin(c.G), lin(c.B)
	X := (0.4124*r + 0.3576*g + 0.1805*b) / 0.95047
	Y := 0.2126*r + 0.7152*g + 0.0722*b
	Z := (0.0193*r + 0.1192*g + 0.9505*b) / 1.08883
	f := func(t float64) float64 {
		if t > 216.0/24389 {
			return math.Cbrt(t)
		}
		return (24389.0/27*t + 16) / 116
	}
	return [3]float64{116*f(Y) - 16, 500 * (f(X) - f(Y)), 200 * (f(Y) - f(Z))}
}

// deltaE00 is the CIEDE2000 colour difference of two L*a*b* colours
// (Sharma, Wu and Dalal 2005): about 2 is just noticeable, 20 clearly
// different colours.
func deltaE00(l1, l2 [3]float64) float64 {
	const rad = math.Pi / 180
	L1, a1, b1 := l1[0], l1[1], l1[2]
	L2, a2, b2 := l2[0], l2[1], l2[2]
	cb := (math.Hypot(a1, b1) + math.Hypot(a2, b2)) / 2
	g := 0.5 * (1 - math.Sqrt(math.Pow(cb, 7)/(math.Pow(cb, 7)+math.Pow(25, 7))))
	a1p, a2p := (1+g)*a1, (1+g)*a2
	c1p, c2p := math.Hypot(a1p, b1), math.Hypot(a2p, b2)
	hue := func(a, b float64) float64 {
		if a == 0 && b == 0 {
			return 0
		}
		h := math.Atan2(b, a) / rad
		if h < 0 {
			h += 360
		}
		return h
	}
	h1p, h2p := hue(a1p, b1), hue(a2p, b2)
	dL, dC := L2-L1, c2p-c1p
	var dh float64
	if c1p*c2p != 0 {
		dh = h2p - h1p
		if dh > 180 {
			dh -= 360
		} else if dh < -180 {
			dh += 360
		}
	}
	dH := 2 * math.Sqrt(c1p*c2p) * math.Sin(dh/2*rad)
	lb, cbp := (L1+L2)/2, (c1p+c2p)/2
	hb := h1p + h2p
	if c1p*c2p != 0 {
		if math.Abs(h1p-h2p) > 180 {
			if hb < 360 {
				hb += 360
			} else {
				hb -= 360
			}
		}
		hb /= 2
	}
	T := 1 - 0.17*math.Cos((hb-30)*rad) + 0.24*math.Cos(2*hb*rad) + 0.32*math.Cos((3*hb+6)*rad) - 0.2*math.Cos((4*hb-63)*rad)
	dTheta := 30 * math.Exp(-((hb-275)/25)*((hb-275)/25))
	rc := 2 * math.Sqrt(math.Pow(cbp, 7)/(math.Pow(cbp, 7)+math.Pow(25, 7)))
	sl := 1 + 0.015*(lb-50)*(lb-50)/math.Sqrt(20+(lb-50)*(lb-50))
	sc, sh := 1+0.045*cbp, 1+0.015*cbp*T
	rt := -math.Sin(2*dTheta*rad) * rc
	return math.Sqrt((dL/sl)*(dL/sl) + (dC/sc)*(dC/sc) + (dH/sh)*(dH/sh) + rt*(dC/sc)*(dH/sh))
}

func colourDiff(a, b color.RGBA) float64 { return deltaE00(cieLab(a), cieLab(b)) }

func TestDeltaE00(t *testing.T) {
	// Sharma, Wu and Dalal's test data, pairs 1 and 18.
	for _, c := range []struct {
		a, b [3]float64
		want float64
	}{{[3]float64{50, 2.6772, -79.7751}, [3]float64{50, 0, -82.7485}, 2.0425}, {[3]float64{50, 2.5, 0}, [3]float64{73, 25, -18}, 27.1492}} {
		if got := deltaE00(c.a, c.b); math.Abs(got-c.want) > 1e-4 {
			t.Errorf("ΔE00(%v, %v) = %.4f, want %.4f", c.a, c.b, got, c.want)
		}
	}
}

// dashClass describes a dash pattern by its strokes, rotation-invariant:
// "·" for a dot (< 2.5 pt), "s" short (< 5 pt), "m" medium (< 9 pt), "l"
// long; "solid" for none. Two patterns with the same class look alike.
func dashClass(d []vg.Length) string {
	if len(d) == 0 {
		return "solid"
	}
	var s []byte
	for i := 0; i < len(d); i += 2 {
		switch p := d[i].Points(); {
		case p < 2.5:
			s = append(s, '.')
		case p < 5:
			s = append(s, 's')
		case p < 9:
			s = append(s, 'm')
		default:
			s = append(s, 'l')
		}
	}
	// The least rotation names the cycle.
	best := string(s)
	for i := 1; i < len(s); i++ {
		if r := string(s[i:]) + string(s[:i]); r < best {
			best = r
		}
	}
	// A pattern repeated (m m) is the pattern once (m).
	for n := 1; n < len(best); n++ {
		if len(best)%n == 0 && strings.Repeat(best[:n], len(best)/n) == best {
			return best[:n]
		}
	}
	return best
}

func TestDashClass(t *testing.T) {
	for _, c := range []struct {
		d    []vg.Length
		want string
	}{{nil, "solid"}, {dashes(6, 3), "m"}, {dashes(1.5, 2, 12, 3), ".l"}, {dashes(12, 3, 1.5, 3), ".l"}, {dashes(6, 3, 6, 3), "m"}, {dashes(5, 2.5), "m"}, {dashes(9, 2.5), "l"}} {
		if got := dashClass(c.d); got != c.want {
			t.Errorf("dashClass(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

// commonMethods are the methods a report commonly shows together.
var commonMethods = append(append([]string(nil), galleryMethods...), "greedy m-pp", "greedy m-pc (safeguarded bgd)")

// TestMethodStylesDiffer: any two methods a report commonly shows differ in
// colour (CIEDE2000 ≥ 20) and in the strokes of their line, except that a
// safeguarded optimizer keeps the colour of the one it guards; variants
// (another memory, a device, the function restart scheme) keep their
// method's hue family but differ from it in line and, for memories and
// devices, in shade.
func TestMethodStylesDiffer(t *testing.T) {
	related := func(a, b string) bool {
		ba, _ := cutSafeguard(a)
		bb, _ := cutSafeguard(b)
		return ba == bb
	}
	for i, a := range commonMethods {
		sa := MethodStyle(a)
		for _, b := range commonMethods[i+1:] {
			sb := MethodStyle(b)
			if ca, cb := dashClass(sa.Dashes), dashClass(sb.Dashes); ca == cb {
				t.Errorf("%s and %s have lines alike (%v, %v: %q)", a, b, sa.Dashes, sb.Dashes, ca)
			}
			d := colourDiff(sa.Color, sb.Color)
			switch {
			case related(a, b) && sa.Color != sb.Color:
				t.Errorf("%s (%s) and %s (%s): a safeguarded optimizer keeps its colour", a, sa.Hex(), b, sb.Hex())
			case !related(a, b) && d < 20:
				t.Errorf("%s (%s) and %s (%s) have colours alike: ΔE00 = %.1f < 20", a, sa.Hex(), b, sb.Hex(), d)
			}
		}
	}
	for _, v := range [][2]string{
		{"lbfgs", "lbfgs(m=40)"}, {"lbfgs", "lbfgs(m=3)"}, {"bb", "bb(m=5)"}, {"bb", "bb(m=40)"},
		{"greedy m-pc", "greedy m-pc [cuda:0]"}, {"greedy m-ps", "greedy m-ps [cpu]"}, {"banert", "banert [cuda:0]"},
		{"unrolled m-pc", "unrolled m-pc [run-2]"},
	} {
		base, variant := MethodStyle(v[0]), MethodStyle(v[1])
		if dashClass(base.Dashes) == dashClass(variant.Dashes) {
			t.Errorf("%s has the line of %s (%v)", v[1], v[0], base.Dashes)
		}
		if d := colourDiff(base.Color, variant.Color); d < 5 || d > 35 {
			t.Errorf("%s (%s) is not a visible shade of %s (%s): ΔE00 = %.1f", v[1], variant.Hex(), v[0], base.Hex(), d)
		}
		if base.Width != variant.Width {
			t.Errorf("%s is %v wide, %s %v", v[1], variant.Width, v[0], base.Width)
		}
		for _, other := range commonMethods {
			if other == v[0] || other == v[1] || related(other, v[0]) {
				continue
			}
			o := MethodStyle(other)
			if dashClass(o.Dashes) == dashClass(variant.Dashes) && colourDiff(o.Color, variant.Color) < 20 {
				t.Errorf("%s looks like %s", v[1], other)
			}
		}
	}
	if a, b := MethodStyle("nag-restart"), MethodStyle("nag-restart(function)"); a.Color != b.Color || dashClass(a.Dashes) == dashClass(b.Dashes) {
		t.Errorf("nag-restart's function scheme should have its colour and another line: %s %v, %s %v", a.Hex(), a.Dashes, b.Hex(), b.Dashes)
	}
	// The tag of a safeguarded variant of a tagged optimizer is read too.
	if a, b := MethodStyle("greedy m-pc [run-2]"), MethodStyle("greedy m-pc [run-2] (safeguarded)"); a.Color != b.Color {
		t.Errorf("safeguarded tagged M-PC %s, unguarded %s", b.Hex(), a.Hex())
	}
}

// TestUnknownMethodStyles: a name MethodStyle does not know gets a colour
// and line of its own, the same on every call, unlike every known method's.
func TestUnknownMethodStyles(t *testing.T) {
	unknown := []string{"my method", "adam", "fista", "greedy pc", "learned thing", "cg", "x"}
	for _, n := range unknown {
		s := MethodStyle(n)
		if again := MethodStyle(n); again.Color != s.Color || dashClass(again.Dashes) != dashClass(s.Dashes) {
			t.Errorf("%s: style changes between calls", n)
		}
		for _, k := range commonMethods {
			ks := MethodStyle(k)
			if d := colourDiff(s.Color, ks.Color); d < 10 {
				t.Errorf("%s (%s) has nearly the colour of %s (%s): ΔE00 = %.1f", n, s.Hex(), k, ks.Hex(), d)
			}
		}
		if learned(n) {
			if s.Dashes != nil {
				t.Errorf("unknown learned %s should be solid", n)
			}
			continue
		}
		for _, k := range commonMethods {
			if dashClass(MethodStyle(k).Dashes) == dashClass(s.Dashes) {
				t.Errorf("%s has the line of %s (%q)", n, k, dashClass(s.Dashes))
			}
		}
	}
}

// TestVariantPatternsAreNew: the patterns of tagged methods and of unknown
// names are none of a known method's.
func TestVariantPatternsAreNew(t *testing.T) {
	known := map[string]string{}
	for _, n := range append(commonMethods, "nag-restart(function)", "lbfgs(m=3)", "bb(m=5)", "pgd(δ=0.3)", "banert-T10-3") {
		known[dashClass(MethodStyle(n).Dashes)] = n
	}
	for _, set := range [][][]vg.Length{tagDashes, fallbackDashes} {
		seen := map[string]bool{}
		for _, d := range set {
			c := dashClass(d)
			if n, ok := known[c]; ok {
				t.Errorf("pattern %v is %s's (%q)", d, n, c)
			}
			if seen[c] {
				t.Errorf("pattern %v twice (%q)", d, c)
			}
			seen[c] = true
		}
	}
}

// svgTexts returns the texts of an SVG written by savePlot with their
// positions (x, y as in the file, y pointing down), whether they are
// rotated, their font size, and the canvas size in points.
type svgTextElem struct {
	x, y, size float64
	rotated    bool
	text       string
}

func svgTexts(t *testing.T, b []byte) (texts []svgTextElem, w, h float64) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	var rot []bool
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range e.Attr {
				attr[a.Name.Local] = a.Value
			}
			switch e.Name.Local {
			case "svg":
				w, _ = strconv.ParseFloat(strings.TrimSuffix(attr["width"], "pt"), 64)
				h, _ = strconv.ParseFloat(strings.TrimSuffix(attr["height"], "pt"), 64)
			case "g":
				rot = append(rot, strings.Contains(attr["transform"], "rotate"))
			case "text":
				var s svgTextElem
				s.x, _ = strconv.ParseFloat(attr["x"], 64)
				s.y, _ = strconv.ParseFloat(attr["y"], 64)
				s.y = -s.y // the text is flipped back by scale(1, -1)
				s.size, _ = svgFontSize(attr["style"])
				for _, r := range rot {
					s.rotated = s.rotated || r
				}
				var inner struct {
					Text string `xml:",chardata"`
				}
				if err := dec.DecodeElement(&inner, &e); err != nil {
					t.Fatal(err)
				}
				s.text = html.UnescapeString(inner.Text)
				texts = append(texts, s)
			}
		case xml.EndElement:
			if e.Name.Local == "g" && len(rot) > 0 {
				rot = rot[:len(rot)-1]
			}
		}
	}
	return texts, w, h
}

// checkTextsInside fails when a text of an SVG of savePlot's runs past the
// canvas (in the plot's font).
func checkTextsInside(t *testing.T, name string, b []byte) {
	t.Helper()
	texts, w, h := svgTexts(t, b)
	if len(texts) == 0 || w <= 0 || h <= 0 {
		t.Fatalf("%s: %d texts on a %g×%g canvas", name, len(texts), w, h)
	}
	for _, s := range texts {
		if s.rotated {
			continue
		}
		sty := textStyle(vg.Points(s.size))
		tw := sty.Width(s.text).Points()
		ext := sty.FontExtents()
		// y is measured from the canvas's bottom edge (the SVG's root
		// group flips it): the baseline, with ascent above it.
		if s.x < -0.01 || s.x+tw > w+0.01 || s.y+ext.Ascent.Points() > h+0.01 || s.y-ext.Descent.Points() < -0.01 {
			t.Errorf("%s: text %q at (%.1f, %.1f), %.1f wide, leaves the %.1f×%.1f canvas", name, s.text, s.x, s.y, tw, w, h)
		}
	}
}

// longCurves are the common methods and two with long names.
func longCurves(T int) []*eval.Curve {
	names := append(append([]string(nil), galleryMethods...),
		"greedy m-pc [cuda:0 (NVIDIA H100 80GB HBM3)]", "a method with a long descriptive name, as a user might write one")
	cs := galleryCurves(names, T)
	cs[10].Mean[T/2], cs[10].Min[T/2] = -1e-12, -1e-12 // the † note under the title
	return cs
}

// TestFigureTextsStayOnCanvas: no title, legend or tick label of the
// figures runs past the canvas, whatever the lengths of the names and the
// title; a long title is wrapped, keeping every word.
func TestFigureTextsStayOnCanvas(t *testing.T) {
	dir := t.TempDir()
	r := testReport()
	r.Curves = longCurves(60)
	r.Scalars.Method = "greedy m-ps trained on 25 STL-10 images with noise 0.01, checkpoint runs/2024-06-01/m-ps-seed-3-with-a-long-name"
	if _, err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"optimality_iter.svg", "optimality_seconds.svg", "scalars.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		checkTextsInside(t, name, b)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "scalars.svg"))
	texts, _, _ := svgTexts(t, b)
	want := "Learned scalars of " + r.Scalars.Method
	var title []string // the texts drawn first, in the title's size
	for _, s := range texts {
		if s.size != titleSize.Points() || len(strings.Join(title, " ")) >= len(want) {
			break
		}
		title = append(title, s.text)
	}
	if strings.Join(title, " ") != want || len(title) < 2 {
		t.Errorf("title drawn as %q, want %q wrapped", title, want)
	}
	// A word wider than the canvas is broken, not clipped.
	word := strings.Repeat("x", 300)
	lines := wrap(textStyle(titleSize), "a "+word+" b", 10*vg.Centimeter)
	if strings.ReplaceAll(strings.Join(lines, ""), " ", "") != "a"+word+"b" {
		t.Errorf("wrap lost characters: %q", lines)
	}
	for _, l := range lines {
		if textWidth(textStyle(titleSize), l) > 10*vg.Centimeter {
			t.Errorf("line %q is wider than 10 cm", l)
		}
	}
}

// TestLegendAvoidsCurves: curves that fill the top right corner of the plot
// (the methods stall near 1, where a legend inside the axes would go) do not
// meet the legend, be it to the right (few short names) or below (many and
// long names), and the legend is on the canvas.
func TestLegendAvoidsCurves(t *testing.T) {
	for _, names := range [][]string{
		{"gd", "nag", "lbfgs"},
		append(append([]string(nil), galleryMethods...), "greedy m-pc [cuda:0 (NVIDIA H100 80GB HBM3)]"),
	} {
		cs := galleryCurves(names, 40)
		for _, c := range cs {
			for i := range c.Mean {
				c.Mean[i], c.Min[i], c.Max[i] = 0.9, 0.5, 1.5 // all along the top
			}
		}
		f, err := optimalityPlot(cs, false, "iteration t")
		if err != nil {
			t.Fatal(err)
		}
		l := f.layout(16*vg.Centimeter, 10*vg.Centimeter)
		if len(l.columns) == 0 {
			t.Fatal("no legend")
		}
		canvas := vg.Rectangle{Max: vg.Point{X: l.width, Y: l.height}}
		if l.legend.Min.X < canvas.Min.X || l.legend.Min.Y < canvas.Min.Y || l.legend.Max.X > canvas.Max.X || l.legend.Max.Y > canvas.Max.Y {
			t.Errorf("%d methods: legend %v leaves the canvas %v", len(names), l.legend, canvas)
		}
		da, ok := f.dataRect(l.plot)
		if !ok {
			t.Fatal("no data area")
		}
		if l.legend.Min.X < da.Max.X && da.Min.X < l.legend.Max.X && l.legend.Min.Y < da.Max.Y && da.Min.Y < l.legend.Max.Y {
			t.Errorf("%d methods: legend %v overlaps the data area %v", len(names), l.legend, da)
		}
		dc := draw.Canvas{Rectangle: da}
		tx, ty := f.p.Transforms(&dc)
		for _, c := range cs {
			for i := range c.Mean {
				for _, v := range []float64{c.Mean[i], c.Min[i], c.Max[i]} {
					pt := vg.Point{X: tx(float64(c.Iter[i])), Y: ty(v)}
					if pt.X >= l.legend.Min.X && pt.X <= l.legend.Max.X && pt.Y >= l.legend.Min.Y && pt.Y <= l.legend.Max.Y {
						t.Fatalf("%d methods: %s at t = %d (%v) is under the legend %v", len(names), c.Method, c.Iter[i], pt, l.legend)
					}
				}
			}
		}
		// The legend holds every method once, in order.
		var got []string
		for _, col := range l.columns {
			for _, e := range col {
				got = append(got, e.label)
			}
		}
		if strings.Join(got, "|") != strings.Join(names, "|") {
			t.Errorf("legend entries %q, want %q", got, names)
		}
	}
}

// oldPixels are the sizes of the PNGs of earlier versions for testReport
// (120 dpi plots, 110 dpi grids).
var oldPixels = map[string][2]int{
	"optimality_iter.png":    {756, 472},
	"optimality_seconds.png": {756, 472},
	"scalars.png":            {661, 378},
	"kernels.png":            {418, 248},
	"reconstructions.png":    {209, 248},
}

// TestPNGResolution: every PNG has at least twice the pixels of earlier
// versions in both directions, and an SVG beside it.
func TestPNGResolution(t *testing.T) {
	dir := t.TempDir()
	if _, err := testReport().Write(dir); err != nil {
		t.Fatal(err)
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	if len(pngs) != len(oldPixels) {
		t.Errorf("%d PNGs, want %d", len(pngs), len(oldPixels))
	}
	for _, p := range pngs {
		name := filepath.Base(p)
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		old := oldPixels[name]
		if cfg.Width < 2*old[0] || cfg.Height < 2*old[1] {
			t.Errorf("%s is %d×%d, want at least twice %d×%d", name, cfg.Width, cfg.Height, old[0], old[1])
		}
		if _, err := os.Stat(strings.TrimSuffix(p, ".png") + ".svg"); err != nil {
			t.Errorf("no SVG beside %s: %v", name, err)
		}
	}
}

// TestDecadeTicksEveryDecade: a log axis has a labelled tick at every power
// of ten; a short one has minor ticks, labelled when it spans few decades;
// and a figure is tall enough that its labels do not overlap.
func TestDecadeTicksEveryDecade(t *testing.T) {
	labelled := func(ticks []plot.Tick) []string {
		var out []string
		for _, tk := range ticks {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	got := labelled(decadeTicks{}.Ticks(1e-10, 1))
	want := []string{"1e-10", "1e-9", "1e-8", "1e-7", "1e-6", "1e-5", "1e-4", "1e-3", "1e-2", "1e-1", "1"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("labels on [1e-10, 1]: %q, want %q", got, want)
	}
	if got := labelled(decadeTicks{}.Ticks(3e-17, 100)); len(got) != 19 || got[0] != "1e-16" || got[18] != "1e2" {
		t.Errorf("labels on [3e-17, 100]: %q", got)
	}
	if got := labelled(decadeTicks{}.Ticks(0.25, 1.5)); strings.Join(got, " ") != "0.5 1" {
		t.Errorf("labels on [0.25, 1.5]: %q", got)
	}
	if ticks := (decadeTicks{}).Ticks(1e-3, 1); len(ticks) != 4+3*8 {
		t.Errorf("[1e-3, 1]: %d ticks, want the 4 decades and 8 minor ticks in each of 3", len(ticks))
	}
	// Sixteen decades on a 10 cm figure: it grows until the labels clear
	// each other.
	cs := galleryCurves([]string{"gd", "greedy m-pc"}, 100)
	for i := range cs[1].Min {
		cs[1].Min[i] = math.Pow(10, -16*float64(i)/100)
	}
	f, err := optimalityPlot(cs, false, "iteration t")
	if err != nil {
		t.Fatal(err)
	}
	l := f.layout(16*vg.Centimeter, 10*vg.Centimeter)
	da, _ := f.dataRect(l.plot)
	ticks := f.p.Y.Tick.Marker.Ticks(f.p.Y.Min, f.p.Y.Max)
	if n := len(labelled(ticks)); n < 16 {
		t.Fatalf("%d labelled ticks on [%g, %g]", n, f.p.Y.Min, f.p.Y.Max)
	}
	gap := float64(da.Size().Y) * (f.p.Y.Norm(10) - f.p.Y.Norm(1))
	if lh := float64(lineHeight(f.p.Y.Tick.Label)); gap < lh {
		t.Errorf("decades %.1f pt apart on a %.1f pt high figure, labels %.1f pt high", gap, float64(l.height), lh)
	}
}

// TestPinSVGText: the SVGs give each text its width in the plot's font, so
// that a viewer with another font keeps it in place, and name the data of
// their images as PNG.
func TestPinSVGText(t *testing.T) {
	dir := t.TempDir()
	if _, err := testReport().Write(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "optimality_iter.svg"))
	if err != nil {
		t.Fatal(err)
	}
	want := textStyle(titleSize).Width("Function optimality over the test set").Points()
	pinned := fmt.Sprintf(`textLength="%.4g" lengthAdjust="spacingAndGlyphs">Function optimality over the test set</text>`, want)
	if !bytes.Contains(b, []byte(pinned)) || !bytes.Contains(b, []byte("'Times New Roman'")) {
		t.Errorf("the title has no textLength of %.4g pt or the font no fallback", want)
	}
	if c := bytes.Count(b, []byte("<text")); c != bytes.Count(b, []byte("textLength=")) {
		t.Errorf("%d texts, %d with a textLength", c, bytes.Count(b, []byte("textLength=")))
	}
	k, err := os.ReadFile(filepath.Join(dir, "kernels.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(k, []byte("data:image/png;base64,")) || bytes.Contains(k, []byte("data:image/jpg")) {
		t.Error("kernels.svg does not declare its images as PNG")
	}
}

// TestGridKeepsAspect: a grid draws each image with its aspect ratio (a
// 16×20 reconstruction 1.25 times as wide as high) and wraps long labels.
func TestGridKeepsAspect(t *testing.T) {
	dir := t.TempDir()
	r := testReport()
	r.Reconstructions[1].Label = "greedy m-pc (safeguarded bgd) [cuda:0 (NVIDIA H100 80GB HBM3)], t = 15"
	if _, err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "reconstructions.svg"))
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(b))
	images := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if e, ok := tok.(xml.StartElement); ok && e.Name.Local == "image" {
			var w, h float64
			for _, a := range e.Attr {
				switch a.Name.Local {
				case "width":
					w, _ = strconv.ParseFloat(a.Value, 64)
				case "height":
					h, _ = strconv.ParseFloat(a.Value, 64)
				}
			}
			images++
			if math.Abs(w/h-1.25) > 0.01 {
				t.Errorf("image drawn %g×%g, want the aspect ratio 1.25", w, h)
			}
		}
	}
	if images != 2 {
		t.Errorf("%d images in reconstructions.svg, want 2", images)
	}
	texts, w, _ := svgTexts(t, b)
	for _, s := range texts {
		tw := textStyle(vg.Points(s.size)).Width(s.text).Points()
		if s.x < 0 || s.x+tw > w {
			t.Errorf("label %q leaves the canvas", s.text)
		}
		tile := (vg.Length(gridTile) * vg.Inch).Points()
		if s.size == gridLabelSize.Points() && tw > tile {
			t.Errorf("label %q is %.1f pt wide, wider than its %.1f pt tile", s.text, tw, tile)
		}
	}
}

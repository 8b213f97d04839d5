package report

import (
	"bytes"
	"fmt"
	"html"
	"image/color"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// Text sizes and spacing of the figures drawn with savePlot.
var (
	titleSize    = vg.Points(12) // the first line of a title
	subtitleSize = vg.Points(10) // its other lines
	legendSize   = vg.Points(10)
	// margin surrounds the canvas's content.
	margin = vg.Centimeter / 4
	// thumbWidth is the length of a legend's line sample: at least one
	// period of every dash pattern of MethodStyle.
	thumbWidth = vg.Points(44)
	// legendGap separates a legend's line sample from its text, and two
	// columns of a legend.
	legendGap = vg.Points(6)
	// maxRightLegend is the largest share of the canvas's width that a
	// legend to the right of the plot may take; a wider one goes below.
	maxRightLegend = 0.36
)

// textSlack widens every measured text width, so that a text measured to
// fit still fits when drawn with slightly different metrics.
const textSlack = 1.06

// textStyle is the figures' text style (the plot's font) at size.
func textStyle(size vg.Length) draw.TextStyle {
	return draw.TextStyle{Color: color.Black, Font: font.From(plot.DefaultFont, size), Handler: plot.DefaultTextHandler}
}

// textWidth is the width of one line of text in sty, widened by textSlack.
func textWidth(sty draw.TextStyle, s string) vg.Length {
	return vg.Length(float64(sty.Width(s)) * textSlack)
}

// lineHeight is the height of one line of text in sty.
func lineHeight(sty draw.TextStyle) vg.Length { return sty.Height("Ag") }

// wrap breaks one line of text at spaces into lines whose textWidth is at
// most width; a word wider than width alone is broken between characters.
// It never drops a character other than the spaces at the breaks.
func wrap(sty draw.TextStyle, s string, width vg.Length) []string {
	var lines []string
	cur := ""
	for _, w := range strings.Fields(s) {
		try := w
		if cur != "" {
			try = cur + " " + w
		}
		if textWidth(sty, try) <= width {
			cur = try
			continue
		}
		if cur != "" {
			lines = append(lines, cur)
		}
		cur = ""
		for _, r := range w {
			if cur != "" && textWidth(sty, cur+string(r)) > width {
				lines = append(lines, cur)
				cur = ""
			}
			cur += string(r)
		}
	}
	if cur != "" || len(lines) == 0 {
		lines = append(lines, cur)
	}
	return lines
}

// textLine is one line of a title, centred on the canvas.
type textLine struct {
	text string
	sty  draw.TextStyle
}

// titleLines wraps a title into lines of at most width: its first line in
// titleSize, the others (explanations) in subtitleSize.
func titleLines(title string, width vg.Length) []textLine {
	var out []textLine
	if strings.TrimSpace(title) == "" {
		return nil
	}
	for i, para := range strings.Split(title, "\n") {
		sty := textStyle(subtitleSize)
		if i == 0 {
			sty = textStyle(titleSize)
		}
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		for _, l := range wrap(sty, para, width) {
			out = append(out, textLine{l, sty})
		}
	}
	return out
}

// linesHeight is the height of title lines, with a margin below.
func linesHeight(lines []textLine) vg.Length {
	if len(lines) == 0 {
		return 0
	}
	var h vg.Length
	for _, l := range lines {
		h += lineHeight(l.sty)
	}
	return h + margin
}

// legendEntry is one entry of a figure's legend: a label and what draws
// its line sample.
type legendEntry struct {
	label  string
	thumbs []plot.Thumbnailer
}

// figure is a plot with a title and a legend, laid out by layout and drawn
// by draw so that the title is never clipped and the legend is outside the
// plot: to its right, or below it in columns when it is wide.
type figure struct {
	p       *plot.Plot
	title   string
	entries []legendEntry
	// yLabel is the y axis's label, drawn by draw (centred on the data
	// area) instead of the plot: gonum/plot reserves room for it at the
	// arithmetic middle of the axis's range, far too high on a log axis.
	yLabel string
}

// takeYLabel moves the plot's y-axis label to f.yLabel.
func (f *figure) takeYLabel() {
	if f.p.Y.Label.Text != "" {
		f.yLabel, f.p.Y.Label.Text = f.p.Y.Label.Text, ""
	}
}

// yLabelWidth is the width of the strip left of the plot that holds the
// rotated y-axis label.
func (f *figure) yLabelWidth() vg.Length {
	if f.yLabel == "" {
		return 0
	}
	sty := f.p.Y.Label.TextStyle
	return margin/2 + sty.Height(f.yLabel) + sty.FontExtents().Descent + f.p.Y.Label.Padding
}

// axesRect is the part of r that the plot (axes and data) is drawn in: r
// less the y-axis label's strip.
func (f *figure) axesRect(r vg.Rectangle) vg.Rectangle {
	r.Min.X += f.yLabelWidth()
	return r
}

func (f *figure) add(label string, thumbs ...plot.Thumbnailer) {
	f.entries = append(f.entries, legendEntry{label, thumbs})
}

// figureLayout is where a figure's parts go on a canvas of width×height
// (vg's coordinates: y grows upwards).
type figureLayout struct {
	width, height vg.Length
	title         []textLine
	// plot is the rectangle the plot (axes and data) is drawn in.
	plot vg.Rectangle
	// legend bounds the legend; columns are its columns, each a list of
	// entries drawn from the column's top left corner down.
	legend  vg.Rectangle
	columns [][]legendEntry
	colX    []vg.Length // left edge of each column
	rowH    vg.Length
}

// layout places a figure on a canvas of at least w×h: the title wrapped to
// the canvas's width on top, the legend to the right of the plot if it
// takes at most maxRightLegend of the width and fits in its height, else
// below the plot in as many columns as fit (the canvas grows by the
// legend's height, or widens to the longest label). The canvas also grows
// until the labelled ticks of the y axis are a label's height apart.
func (f *figure) layout(w, h vg.Length) figureLayout {
	f.takeYLabel()
	l := figureLayout{width: w}
	lsty := textStyle(legendSize)
	l.rowH = lineHeight(lsty) * 1.25
	entryW := make([]vg.Length, len(f.entries))
	var widest vg.Length
	for i, e := range f.entries {
		entryW[i] = thumbWidth + legendGap + textWidth(lsty, e.label)
		widest = max(widest, entryW[i])
	}
	if widest+2*margin > l.width {
		l.width = widest + 2*margin
	}
	l.title = titleLines(f.title, l.width-2*margin)
	titleH := linesHeight(l.title)
	plotH := max(h-titleH, 4*vg.Centimeter)
	n := len(f.entries)
	rightW := widest + 2*legendGap
	var legendH vg.Length
	below := false
	switch {
	case n == 0:
	case rightW <= vg.Length(maxRightLegend*float64(l.width)) && vg.Length(n)*l.rowH <= plotH-margin:
		l.columns = [][]legendEntry{f.entries}
	default:
		below = true
		// The most columns (filled column by column) that fit the width.
		for cols := n; cols >= 1; cols-- {
			rows := (n + cols - 1) / cols
			var total vg.Length
			var xs []vg.Length
			var columns [][]legendEntry
			for c := 0; c*rows < n; c++ {
				hi := min((c+1)*rows, n)
				var cw vg.Length
				for i := c * rows; i < hi; i++ {
					cw = max(cw, entryW[i])
				}
				xs = append(xs, total)
				columns = append(columns, f.entries[c*rows:hi])
				total += cw + 2*legendGap
			}
			if total-2*legendGap <= l.width-2*margin || cols == 1 {
				off := (l.width - (total - 2*legendGap)) / 2
				for i := range xs {
					xs[i] += off
				}
				l.columns, l.colX = columns, xs
				legendH = vg.Length(rows)*l.rowH + margin
				break
			}
		}
	}
	// Grow the plot until the y axis's labels do not overlap.
	plotW := l.width - margin/2
	if !below && n > 0 {
		plotW = l.width - rightW
	}
	if need := f.yLabelRoom(plotW, plotH); need > 0 {
		plotH += need
	}
	l.height = titleH + plotH + legendH
	l.plot = vg.Rectangle{Min: vg.Point{X: 0, Y: legendH}, Max: vg.Point{X: plotW, Y: legendH + plotH}}
	switch {
	case n == 0:
	case below:
		l.legend = vg.Rectangle{Min: vg.Point{X: l.colX[0], Y: 0}, Max: vg.Point{X: l.width - l.colX[0], Y: legendH - margin/2}}
	default:
		top := l.plot.Max.Y - margin
		if da, ok := f.dataRect(l.plot); ok {
			top = da.Max.Y
		}
		l.colX = []vg.Length{plotW + legendGap}
		l.legend = vg.Rectangle{Min: vg.Point{X: plotW + legendGap, Y: top - vg.Length(n)*l.rowH}, Max: vg.Point{X: l.width - legendGap, Y: top}}
	}
	return l
}

// dataRect is the rectangle of the plot's data area when the plot is drawn
// in r.
func (f *figure) dataRect(r vg.Rectangle) (vg.Rectangle, bool) {
	r = f.axesRect(r)
	if r.Size().X <= 0 || r.Size().Y <= 0 {
		return vg.Rectangle{}, false
	}
	c := draw.Canvas{Canvas: new(recorder.Canvas), Rectangle: r}
	return f.p.DataCanvas(c).Rectangle, true
}

// yLabelRoom returns how much taller a plot of w×h must be for the labelled
// ticks of its y axis to be at least 1.2 label heights apart (0 when they
// are).
func (f *figure) yLabelRoom(w, h vg.Length) vg.Length {
	da, ok := f.dataRect(vg.Rectangle{Max: vg.Point{X: w, Y: h}})
	if !ok || f.p.Y.Tick.Marker == nil {
		return 0
	}
	var pos []float64
	for _, t := range f.p.Y.Tick.Marker.Ticks(f.p.Y.Min, f.p.Y.Max) {
		if t.Label != "" {
			pos = append(pos, f.p.Y.Norm(t.Value))
		}
	}
	if len(pos) < 2 {
		return 0
	}
	gap := math.Inf(1)
	for i := 1; i < len(pos); i++ {
		gap = math.Min(gap, math.Abs(pos[i]-pos[i-1]))
	}
	dataH := float64(da.Size().Y)
	need := 1.2 * float64(lineHeight(f.p.Y.Tick.Label))
	if math.IsNaN(gap) || gap <= 0 || gap*dataH >= need {
		return 0
	}
	// At most three times the height (19 decades on a 10 cm figure need
	// less than twice).
	return vg.Length(math.Min(need/gap-dataH, 2*float64(h)))
}

// draw draws the figure on dc (of the layout's size).
func (f *figure) draw(dc draw.Canvas, l figureLayout) {
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	y := dc.Max.Y - margin/2
	for _, t := range l.title {
		dc.FillText(t.sty, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: y}, t.text)
		y -= lineHeight(t.sty)
	}
	axes := draw.Canvas{Canvas: dc.Canvas, Rectangle: f.axesRect(l.plot)}
	f.p.Draw(axes)
	if f.yLabel != "" {
		// As gonum/plot draws it, centred on the data area.
		sty := f.p.Y.Label.TextStyle
		x := l.plot.Min.X + margin/2 + sty.Height(f.yLabel) - sty.FontExtents().Descent
		sty.Rotation += math.Pi / 2
		da := f.p.DataCanvas(axes)
		dc.FillText(sty, vg.Point{X: x, Y: (da.Min.Y + da.Max.Y) / 2}, f.yLabel)
	}
	lsty := textStyle(legendSize)
	lsty.YAlign = draw.YCenter
	top := l.legend.Max.Y
	for c, col := range l.columns {
		for i, e := range col {
			yc := top - (vg.Length(i)+0.5)*l.rowH
			icon := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: l.colX[c], Y: yc - l.rowH*0.4},
				Max: vg.Point{X: l.colX[c] + thumbWidth, Y: yc + l.rowH*0.4}}}
			for _, t := range e.thumbs {
				t.Thumbnail(&icon)
			}
			dc.FillText(lsty, vg.Point{X: l.colX[c] + thumbWidth + legendGap, Y: yc}, e.label)
		}
	}
}

// svgText matches a text element as vgsvg writes it: its style and its
// (escaped) text.
var svgText = regexp.MustCompile(`(<text [^>]*style="([^"]*)")>([^<]*)</text>`)

// pinSVGText gives every text element of an SVG drawn by vgsvg in the
// plot's font the width its text has in that font (textLength), so that a
// viewer that draws it in another font (one without Liberation Serif, say,
// whose substitutes are up to a quarter wider) keeps it where the layout
// put it instead of running past the canvas's edge.
func pinSVGText(svg []byte) []byte {
	family := svgFamily()
	return svgText.ReplaceAllFunc(svg, func(m []byte) []byte {
		sub := svgText.FindSubmatch(m)
		style := string(sub[2])
		if !strings.Contains(style, "font-family:"+family+";") || !strings.Contains(style, "font-weight:normal") || !strings.Contains(style, "font-style:normal") {
			return m
		}
		size, ok := svgFontSize(style)
		if !ok {
			return m
		}
		txt := html.UnescapeString(string(sub[3]))
		if txt == "" {
			return m
		}
		w := textStyle(vg.Points(size)).Width(txt).Points()
		return []byte(fmt.Sprintf(`%s textLength="%.4g" lengthAdjust="spacingAndGlyphs">%s</text>`, sub[1], w, sub[3]))
	})
}

// svgFamily is the font family name vgsvg writes for the plot's font.
func svgFamily() string {
	face := font.DefaultCache.Lookup(plot.DefaultFont, 10)
	const nameIDFamily = 1 // sfnt.NameIDFamily
	name, err := face.Face.Name(nil, nameIDFamily)
	if err != nil {
		return "Liberation Serif"
	}
	return name
}

// svgFontSize reads font-size:Npx from a style.
func svgFontSize(style string) (float64, bool) {
	for _, d := range strings.Split(style, ";") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(d), "font-size:"); ok {
			f, err := strconv.ParseFloat(strings.TrimSuffix(v, "px"), 64)
			return f, err == nil && f > 0
		}
	}
	return 0, false
}

// writeSVG writes an SVG canvas with its texts pinned (pinSVGText), a
// fallback for the font (Times New Roman has Liberation Serif's metrics)
// and its images' data declared as the PNG it is (vgsvg calls it JPEG,
// which some viewers refuse to draw).
func writeSVG(w io.Writer, c io.WriterTo) error {
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return err
	}
	svg := pinSVGText(b.Bytes())
	family := svgFamily()
	svg = bytes.ReplaceAll(svg, []byte("font-family:"+family+";"), []byte("font-family:'"+family+"','Times New Roman',Times,serif;"))
	svg = bytes.ReplaceAll(svg, []byte(`"data:image/jpg;base64,iVBOR`), []byte(`"data:image/png;base64,iVBOR`))
	_, err := w.Write(svg)
	return err
}

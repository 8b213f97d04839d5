package report

import (
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/greedyl2o/greedyl2o/eval"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// palette holds distinguishable line colours (Tableau 10), for the lines of
// the learned scalars.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xd6, 0x27, 0x28, 0xff}, {0x2c, 0xa0, 0x2c, 0xff},
	{0xff, 0x7f, 0x0e, 0xff}, {0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff},
	{0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff}, {0xbc, 0xbd, 0x22, 0xff},
	{0x17, 0xbe, 0xcf, 0xff},
}

// minFloor is the smallest optimality drawn on the log axis.
const minFloor = 1e-16

// ceiling is the largest optimality drawn; larger (or infinite) values of a
// diverging run are clipped to it (they leave the axis, whose top is axisTop).
const ceiling = 1e6

// optimalityFloor returns the lower end of the log axis: half the smallest
// positive minimum over the curves, at least minFloor. Values at or below
// it (including negative values, where a method beats the estimate of f*)
// are drawn at the floor.
func optimalityFloor(curves []*eval.Curve) float64 {
	lo := math.Inf(1)
	for _, c := range curves {
		for _, v := range c.Min {
			if v > 0 && v < lo {
				lo = v
			}
		}
	}
	if math.IsInf(lo, 1) {
		return minFloor
	}
	return math.Max(lo/2, minFloor)
}

// belowFStar returns the first recorded index at which the mean or the
// minimum optimality of c is ≤ 0 (the method went below the estimate of
// f*, or a function started at it), or −1.
func belowFStar(c *eval.Curve) int {
	for j := range c.Min {
		if c.Min[j] <= 0 || c.Mean[j] <= 0 {
			return j
		}
	}
	return -1
}

// belowMark ends the legend label of a curve with optimality ≤ 0.
const belowMark = " †"

// legendLabel is a curve's label in the figures: its name, "†" when it
// has optimality ≤ 0 somewhere, and its divergence.
func legendLabel(c *eval.Curve) string {
	l := c.Method
	if belowFStar(c) >= 0 {
		l += belowMark
	}
	if c.Diverged() {
		l += fmt.Sprintf(" (diverged at %d)", c.DivergedAt)
	}
	return l
}

// optimalityTitle heads the optimality figures; belowNote explains the
// mark of a curve with optimality ≤ 0.
const (
	optimalityTitle = "Function optimality over the test set\nmean (line), min–max (band)"
	belowNote       = "† optimality ≤ 0 (below the estimate of f*), drawn at the bottom edge"
)

// optimalityPlot draws the mean optimality of every curve with its min–max
// band against iterations or seconds, each method in its MethodStyle; a
// method that diverged ends with a cross, and one with optimality ≤ 0
// (below the estimate of f*) is marked † and explained under the title.
func optimalityPlot(curves []*eval.Curve, seconds bool, xLabel string) (*figure, error) {
	p := plot.New()
	f := &figure{p: p, title: optimalityTitle}
	for _, c := range curves {
		if belowFStar(c) >= 0 {
			f.title += "\n" + belowNote
			break
		}
	}
	p.X.Label.Text = xLabel
	p.Y.Label.Text = "(f(x) − f*) / (f(x0) − f*)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = decadeTicks{}
	p.X.Tick.Marker = niceTicks{}
	p.Add(plotter.NewGrid())
	floor := optimalityFloor(curves)
	clip := func(v float64) float64 {
		if math.IsNaN(v) || v < floor {
			return floor
		}
		return math.Min(v, ceiling) // diverging runs are drawn at the top edge
	}
	yMax := 1.0
	xMax := 0.0
	var lines []plot.Plotter
	for _, c := range curves {
		n := len(c.Iter)
		mean, band, err := curveXYs(c, seconds, clip)
		if err != nil {
			return nil, err
		}
		for j := 0; j < n; j++ {
			xMax = math.Max(xMax, mean[j].X)
			if !math.IsInf(c.Max[j], 0) {
				yMax = math.Max(yMax, clip(c.Max[j]))
			}
		}
		st := MethodStyle(c.Method)
		poly, err := plotter.NewPolygon(band)
		if err != nil {
			return nil, fmt.Errorf("report: band of %q: %w", c.Method, err)
		}
		fill := st.Color
		fill.A = 0x30
		poly.Color = premultiplied(fill)
		poly.LineStyle.Width = 0
		line, err := plotter.NewLine(mean)
		if err != nil {
			return nil, fmt.Errorf("report: curve %q: %w", c.Method, err)
		}
		line.Color = st.Color
		line.Width = st.Width
		line.Dashes = st.Dashes
		// The bands first, then the lines over all bands.
		p.Add(poly)
		lines = append(lines, line)
		thumbs := []plot.Thumbnailer{line}
		if c.Diverged() && n > 0 {
			end, err := plotter.NewScatter(mean[n-1:])
			if err != nil {
				return nil, err
			}
			end.GlyphStyle = draw.GlyphStyle{Color: st.Color, Radius: vg.Points(5), Shape: draw.CrossGlyph{}}
			lines = append(lines, end)
			thumbs = append(thumbs, end)
		}
		f.add(legendLabel(c), thumbs...)
	}
	p.Add(lines...)
	// Diverging runs leave through the top of the axis instead of
	// squeezing the others.
	p.Y.Min, p.Y.Max = floor, math.Min(yMax*1.5, axisTop)
	p.X.Min, p.X.Max = 0, math.Max(xMax, 1e-9)
	return f, nil
}

// curveXYs returns the points of c's mean line and of its min–max band (a
// polygon: the minima forward, then the maxima backward) against its
// iterations or, with seconds, its wall-clock seconds, each value passed
// through clip.
func curveXYs(c *eval.Curve, seconds bool, clip func(float64) float64) (mean, band plotter.XYs, err error) {
	n := len(c.Iter)
	mean, band = make(plotter.XYs, n), make(plotter.XYs, 2*n)
	for j := 0; j < n; j++ {
		x := float64(c.Iter[j])
		if seconds {
			x = c.Seconds[j]
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, nil, fmt.Errorf("report: curve %q: x value %g at index %d is not finite", c.Method, x, j)
		}
		mean[j] = plotter.XY{X: x, Y: clip(c.Mean[j])}
		band[j] = plotter.XY{X: x, Y: clip(c.Min[j])}
		band[2*n-1-j] = plotter.XY{X: x, Y: clip(c.Max[j])}
	}
	return mean, band, nil
}

// axisTop is the highest optimality shown on the axis.
const axisTop = 100

// decadeTicks labels every power of ten of a log axis ("1e-6", "1",
// "1e2"). On an axis of at most four decades it adds unlabelled ticks at
// 2…9 times the powers of ten, and labels 2 and 5 times them when fewer
// than three powers of ten fall on it.
type decadeTicks struct{}

// Ticks implements plot.Ticker.
func (decadeTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) {
		return nil
	}
	lo, hi := int(math.Floor(math.Log10(min))), int(math.Ceil(math.Log10(max)))
	in := func(v float64) bool { return v >= min*(1-1e-9) && v <= max*(1+1e-9) }
	decades := 0
	for e := lo; e <= hi; e++ {
		if in(math.Pow(10, float64(e))) {
			decades++
		}
	}
	minor := hi-lo <= 4
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		p := math.Pow(10, float64(e))
		if in(p) {
			ticks = append(ticks, plot.Tick{Value: p, Label: decadeLabel(e)})
		}
		if !minor {
			continue
		}
		for m := 2; m <= 9; m++ {
			v := float64(m) * p
			if !in(v) {
				continue
			}
			t := plot.Tick{Value: v}
			if decades < 3 && (m == 2 || m == 5) {
				t.Label = mantissaLabel(m, e)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// decadeLabel writes 10^e as "1e-6", "1", "1e2".
func decadeLabel(e int) string {
	if e == 0 {
		return "1"
	}
	return "1e" + strconv.Itoa(e)
}

// mantissaLabel writes m·10^e as "0.2", "5", "20" near 1 and "2e-6" else.
func mantissaLabel(m, e int) string {
	if e >= -2 && e <= 2 {
		return strconv.FormatFloat(float64(m)*math.Pow(10, float64(e)), 'f', max(0, -e), 64)
	}
	return strconv.Itoa(m) + "e" + strconv.Itoa(e)
}

// niceTicks labels about five round values (steps of 1, 2 or 5 times a
// power of ten) of a linear axis.
type niceTicks struct{}

// Ticks implements plot.Ticker.
func (niceTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) {
		return []plot.Tick{{Value: min, Label: strconv.FormatFloat(min, 'g', 3, 64)}}
	}
	raw := (max - min) / 5
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	step := p
	for _, m := range []float64{2, 5, 10} {
		if step >= raw {
			break
		}
		step = m * p
	}
	var ticks []plot.Tick
	for k := math.Ceil(min / step); k*step <= max*(1+1e-12); k++ {
		v := k * step
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 4, 64)})
	}
	return ticks
}

// integerTicks keeps the labelled ticks at whole numbers.
type integerTicks struct{}

// Ticks implements plot.Ticker.
func (integerTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(min, max) {
		if t.Label != "" {
			if t.Value != math.Trunc(t.Value) {
				continue
			}
			t.Label = strconv.FormatFloat(t.Value, 'f', 0, 64)
		}
		out = append(out, t)
	}
	return out
}

// learned reports whether a method name looks like a learned optimizer (drawn
// with a solid, thicker line).
func learned(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "greedy") || strings.Contains(n, "learned") || strings.Contains(n, "unrolled") || strings.Contains(n, "banert")
}

// premultiplied turns a straight-alpha colour into image/color's
// premultiplied RGBA.
func premultiplied(c color.RGBA) color.RGBA {
	a := uint16(c.A)
	return color.RGBA{uint8(uint16(c.R) * a / 255), uint8(uint16(c.G) * a / 255), uint8(uint16(c.B) * a / 255), c.A}
}

// scalarPlot draws α_t and β_t against t with the heavy-ball references.
func scalarPlot(s *ScalarSeries) (*figure, error) {
	p := plot.New()
	f := &figure{p: p, title: "Learned scalars of " + s.Method}
	if s.AlphaStar > 0 && s.L > 0 {
		f.title += fmt.Sprintf("\ndashed: heavy ball for L = %.4g, μ = %.4g", s.L, s.Mu)
	}
	p.X.Tick.Marker = integerTicks{}
	p.X.Label.Text = "step t"
	p.Y.Label.Text = "value"
	p.Add(plotter.NewGrid())
	n := len(s.Alpha)
	series := []struct {
		name   string
		symbol string
		v      []float64
		ref    float64
		col    color.RGBA
	}{
		{"step size θ(t)", "θ", s.Alpha, s.AlphaStar, palette[0]},
		{"momentum φ(t)", "φ", s.Beta, s.BetaStar, palette[1]},
	}
	for _, ser := range series {
		if len(ser.v) > 0 {
			xy := make(plotter.XYs, len(ser.v))
			for t, v := range ser.v {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("report: %s of %s at t = %d is not finite", ser.name, s.Method, t)
				}
				xy[t] = plotter.XY{X: float64(t), Y: v}
			}
			l, sc, err := plotter.NewLinePoints(xy)
			if err != nil {
				return nil, fmt.Errorf("report: %s: %w", ser.name, err)
			}
			l.Color, sc.Color = ser.col, ser.col
			l.Width = vg.Points(2)
			sc.Radius = vg.Points(2)
			p.Add(l, sc)
			f.add(ser.name, l, sc)
		}
		if ser.ref > 0 && len(ser.v) > 0 {
			ref, err := plotter.NewLine(plotter.XYs{{X: 0, Y: ser.ref}, {X: float64(max(n-1, 1)), Y: ser.ref}})
			if err != nil {
				return nil, err
			}
			ref.Color = ser.col
			ref.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
			ref.Width = vg.Points(1.2)
			p.Add(ref)
			f.add(fmt.Sprintf("heavy ball %s* = %.4g", ser.symbol, ser.ref), ref)
		}
	}
	p.Y.Min = math.Min(p.Y.Min, 0)
	return f, nil
}

// pngDPI is the resolution of the figures' PNGs: twice the 120 dpi of
// earlier versions (a 16 cm wide figure is 1512 pixels wide).
const pngDPI = 240

// savePlot writes f as name.png and name.svg, on a canvas of at least w×h
// centimetres (figure.layout): the title on top, the plot, the legend to its
// right or below it.
func savePlot(f *figure, dir, name string, w, h float64) error {
	l := f.layout(vg.Length(w)*vg.Centimeter, vg.Length(h)*vg.Centimeter)
	png := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(l.width, l.height), vgimg.UseDPI(pngDPI), vgimg.UseBackgroundColor(color.White))}
	f.draw(draw.New(png), l)
	if err := writeFile(filepath.Join(dir, name+".png"), func(wr io.Writer) error { _, err := png.WriteTo(wr); return err }); err != nil {
		return err
	}
	svg := vgsvg.New(l.width, l.height)
	f.draw(draw.New(svg), l)
	return writeFile(filepath.Join(dir, name+".svg"), func(wr io.Writer) error { return writeSVG(wr, svg) })
}

// gridColumns is the largest number of panels in one row of a grid.
const gridColumns = 6

// rendered is a panel turned into an image by a grid's render function:
// the image, a caption suffix and, for a colour bar drawn in the image's
// rightmost barWidth pixels (of a total width in pixels), its labels from
// top to bottom.
type rendered struct {
	img       image.Image
	caption   string
	barLabels []string
	barWidth  int
	// framed is the width in pixels of the image's left part that is the
	// panel proper, drawn with a thin grey frame (0: all of it).
	framed int
}

// Grid figures: tiles of gridTile×(gridTile+gridCaption) inches, drawn at
// pngDPI (earlier versions: 110 dpi), labels of gridLabelSize and a title of
// gridTitleSize.
const (
	gridTile    = 1.9
	gridCaption = 0.35
)

var (
	gridLabelSize = vg.Points(9)
	gridTitleSize = vg.Points(11)
	gridPad       = 2 * vg.Millimeter
)

// gridPlot is one panel of a grid with the extent of its content in data
// units: the image (and its colour bar's labels) from (0, 0) to (w, h).
type gridPlot struct {
	p    *plot.Plot
	w, h float64
}

// saveGrid draws panels in a grid of cols columns (0: up to gridColumns),
// each turned into an image by render, under an optional title, and
// writes it as a PNG at path and as an SVG beside it. Titles and labels are
// wrapped to their width and images keep their aspect ratio.
func saveGrid(path, title string, panels []Panel, cols int, render func(Panel) rendered) error {
	if cols <= 0 {
		cols = gridColumns
	}
	cols = min(len(panels), cols)
	rows := (len(panels) + cols - 1) / cols
	width := vg.Length(gridTile*float64(cols)) * vg.Inch
	labelW := vg.Length(gridTile)*vg.Inch - gridPad
	plots := make([][]*gridPlot, rows)
	for r := range plots {
		plots[r] = make([]*gridPlot, cols)
	}
	for i, pn := range panels {
		rd := render(pn)
		p := plot.New()
		label := pn.Label
		if rd.caption != "" {
			label += "\n" + rd.caption
		}
		p.Title.TextStyle.Font.Size = gridLabelSize
		var lines []string
		for _, l := range strings.Split(label, "\n") {
			lines = append(lines, wrap(p.Title.TextStyle, l, labelW)...)
		}
		p.Title.Text = strings.Join(lines, "\n")
		p.HideAxes()
		p.X.Padding, p.Y.Padding = 0, 0
		b := rd.img.Bounds()
		scale := float64(pn.H) / float64(b.Dy()) // data units per pixel
		wd := float64(b.Dx()) * scale
		p.Add(plotter.NewImage(rd.img, 0, 0, wd, float64(pn.H)))
		// A frame shows where an image with white borders ends.
		fw := wd
		if rd.framed > 0 {
			fw = float64(rd.framed) * scale
		}
		frame, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: fw, Y: 0}, {X: fw, Y: float64(pn.H)}, {X: 0, Y: float64(pn.H)}, {X: 0, Y: 0}})
		if err != nil {
			return fmt.Errorf("report: frame of %q: %w", pn.Label, err)
		}
		frame.Color, frame.Width = color.Gray{Y: 0xa0}, vg.Points(0.5)
		p.Add(frame)
		gp := &gridPlot{p: p, w: wd, h: float64(pn.H)}
		if n := len(rd.barLabels); n > 0 {
			xy := make(plotter.XYs, n)
			for k := range xy {
				xy[k] = plotter.XY{X: wd, Y: float64(pn.H) * (1 - float64(k)/float64(max(n-1, 1)))}
			}
			lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: rd.barLabels})
			if err != nil {
				return fmt.Errorf("report: colour bar of %q: %w", pn.Label, err)
			}
			for k := range lb.TextStyle {
				lb.TextStyle[k].Font.Size = vg.Points(7)
				lb.TextStyle[k].YAlign = draw.YCenter
			}
			lb.Offset = vg.Point{X: vg.Points(2)}
			p.Add(lb)
			gp.w = wd * 1.3 // room for the labels
		}
		plots[i/cols][i%cols] = gp
	}
	var titles []textLine
	if title != "" {
		sty := textStyle(gridTitleSize)
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		for _, l := range wrap(sty, title, width-2*margin) {
			titles = append(titles, textLine{l, sty})
		}
	}
	top := linesHeight(titles)
	height := vg.Length((gridTile+gridCaption)*float64(rows))*vg.Inch + top
	drawGrid := func(dc draw.Canvas) {
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
		y := dc.Max.Y - margin/2
		for _, t := range titles {
			dc.FillText(t.sty, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: y}, t.text)
			y -= lineHeight(t.sty)
		}
		dc = draw.Crop(dc, 0, 0, 0, -top)
		all := make([][]*plot.Plot, rows)
		for r := range plots {
			all[r] = make([]*plot.Plot, cols)
			for k, gp := range plots[r] {
				if gp != nil {
					gp.p.X.Min, gp.p.X.Max, gp.p.Y.Min, gp.p.Y.Max = 0, gp.w, 0, gp.h
					all[r][k] = gp.p
				}
			}
		}
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: gridPad, PadY: gridPad,
			PadTop: gridPad, PadBottom: gridPad, PadLeft: gridPad, PadRight: gridPad}
		canvases := plot.Align(all, tiles, dc)
		for r := range plots {
			for k, gp := range plots[r] {
				if gp == nil {
					continue
				}
				// Equal scales in x and y: widen the range that the data
				// area has room to spare for, centring the image
				// horizontally and keeping it under its label.
				da := gp.p.DataCanvas(canvases[r][k])
				dw, dh := float64(da.Max.X-da.Min.X), float64(da.Max.Y-da.Min.Y)
				if dw > 0 && dh > 0 {
					if dw/dh > gp.w/gp.h {
						extra := gp.h*dw/dh - gp.w
						gp.p.X.Min, gp.p.X.Max = -extra/2, gp.w+extra/2
					} else {
						gp.p.Y.Min = gp.h - gp.w*dh/dw
					}
				}
				gp.p.Draw(canvases[r][k])
			}
		}
	}
	png := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(pngDPI), vgimg.UseBackgroundColor(color.White))}
	drawGrid(draw.New(png))
	if err := writeFile(path, func(w io.Writer) error { _, err := png.WriteTo(w); return err }); err != nil {
		return err
	}
	svg := vgsvg.New(width, height)
	drawGrid(draw.New(svg))
	return writeFile(strings.TrimSuffix(path, ".png")+".svg", func(w io.Writer) error { return writeSVG(w, svg) })
}

// upscale is the factor by which panels are enlarged (nearest neighbour)
// before drawing, so that the renderer's interpolation does not blur pixels.
func upscale(h, w int) int { return max(1, 420/max(h, w, 1)) }

// greyPanel renders values clipped to [0, 1] in grey.
func greyPanel(p Panel) rendered {
	img, caption := greyImage(p)
	return rendered{img: img, caption: caption}
}

// greyImage renders values clipped to [0, 1] in grey, or from p.Lo
// (black) to p.Hi (white) when p.Hi > p.Lo, said in the caption.
func greyImage(p Panel) (image.Image, string) {
	lo, span, caption := 0.0, 1.0, ""
	if p.Hi > p.Lo {
		lo, span, caption = p.Lo, p.Hi-p.Lo, fmt.Sprintf("grey: black %.3g, white %.3g", p.Lo, p.Hi)
	}
	s := upscale(p.H, p.W)
	img := image.NewGray(image.Rect(0, 0, p.W*s, p.H*s))
	for r := 0; r < p.H*s; r++ {
		for c := 0; c < p.W*s; c++ {
			v := (p.Pix[(r/s)*p.W+c/s] - lo) / span
			if math.IsNaN(v) {
				v = 0
			}
			img.SetGray(c, r, color.Gray{Y: uint8(math.Round(255 * math.Min(1, math.Max(0, v))))})
		}
	}
	return img, caption
}

// kernelPanel renders a kernel (kernelImage) with a colour bar on its
// right: the diverging map from +s (top) through 0 to −s (bottom).
func kernelPanel(p Panel) rendered {
	img, caption := kernelImage(p)
	k := img.Bounds()
	gap, bar := max(k.Dx()/16, 2), max(k.Dx()/10, 4)
	out := image.NewRGBA(image.Rect(0, 0, k.Dx()+gap+bar, k.Dy()))
	for y := 0; y < k.Dy(); y++ {
		for x := 0; x < k.Dx(); x++ {
			out.Set(x, y, img.At(x, y))
		}
		for x := k.Dx(); x < k.Dx()+gap; x++ {
			out.SetRGBA(x, y, color.RGBA{255, 255, 255, 255})
		}
		v := 1 - 2*(float64(y)+0.5)/float64(k.Dy())
		for x := k.Dx() + gap; x < k.Dx()+gap+bar; x++ {
			out.SetRGBA(x, y, diverging(v))
		}
	}
	s := kernelScale(p)
	return rendered{img: out, caption: caption, barWidth: bar, framed: k.Dx(),
		barLabels: []string{"+" + strconv.FormatFloat(s, 'g', 2, 64), "0", "−" + strconv.FormatFloat(s, 'g', 2, 64)}}
}

// kernelScale is the colour scale s of a kernel panel: the largest
// magnitude away from the centre pixel (or the centre's, at least 1, when
// all else is 0).
func kernelScale(p Panel) float64 {
	ci, cj := p.H/2, p.W/2
	centre := p.Pix[ci*p.W+cj]
	scale := 0.0
	for i, v := range p.Pix {
		if i != ci*p.W+cj && !math.IsNaN(v) {
			scale = math.Max(scale, math.Abs(v))
		}
	}
	if scale == 0 {
		scale = math.Max(math.Abs(centre), 1)
	}
	return scale
}

// kernelImage renders a kernel with a diverging colour map (blue negative,
// white zero, red positive) scaled to ±s, where s is the largest magnitude
// away from the centre pixel, so that the structure around a dominant
// centre stays visible; the centre saturates. The caption gives the centre
// value and s.
func kernelImage(p Panel) (image.Image, string) {
	centre := p.Pix[(p.H/2)*p.W+p.W/2]
	scale := kernelScale(p)
	s := upscale(p.H, p.W)
	img := image.NewRGBA(image.Rect(0, 0, p.W*s, p.H*s))
	for r := 0; r < p.H*s; r++ {
		for c := 0; c < p.W*s; c++ {
			img.SetRGBA(c, r, diverging(p.Pix[(r/s)*p.W+c/s]/scale))
		}
	}
	return img, fmt.Sprintf("centre %.3g, scale ±%.2g", centre, scale)
}

// diverging maps v in [−1, 1] to blue–white–red (clipped outside).
func diverging(v float64) color.RGBA {
	if math.IsNaN(v) {
		return color.RGBA{0, 0, 0, 255}
	}
	v = math.Max(-1, math.Min(1, v))
	lerp := func(a, b uint8, t float64) uint8 { return uint8(math.Round(float64(a) + (float64(b)-float64(a))*t)) }
	if v >= 0 {
		return color.RGBA{lerp(255, 178, v), lerp(255, 24, v), lerp(255, 43, v), 255}
	}
	return color.RGBA{lerp(255, 33, -v), lerp(255, 102, -v), lerp(255, 172, -v), 255}
}

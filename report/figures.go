package report

import (
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/greedyl2o/greedyl2o/eval"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// palette holds distinguishable line colours (Tableau 10): MethodStyle's
// colours for methods it does not know.
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

// optimalityPlot draws the mean optimality of every curve with its min–max
// band against iterations or seconds, each method in its MethodStyle; a
// method that diverged ends with a cross, and one with optimality ≤ 0
// (below the estimate of f*) is marked † and explained under the title.
func optimalityPlot(curves []*eval.Curve, seconds bool, xLabel string) (*figure, error) {
	p := plot.New()
	leg := plot.NewLegend()
	p.Title.Text = "Function optimality over the test set\nmean (line), min–max (band)"
	for _, c := range curves {
		if belowFStar(c) >= 0 {
			p.Title.Text += "\n† optimality ≤ 0 (below the estimate of f*), drawn at the bottom edge"
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
	for _, c := range curves {
		n := len(c.Iter)
		mean := make(plotter.XYs, n)
		band := make(plotter.XYs, 2*n)
		for j := 0; j < n; j++ {
			x := float64(c.Iter[j])
			if seconds {
				x = c.Seconds[j]
			}
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("report: curve %q: x value %g at index %d is not finite", c.Method, x, j)
			}
			xMax = math.Max(xMax, x)
			mean[j] = plotter.XY{X: x, Y: clip(c.Mean[j])}
			band[j] = plotter.XY{X: x, Y: clip(c.Min[j])}
			band[2*n-1-j] = plotter.XY{X: x, Y: clip(c.Max[j])}
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
		p.Add(poly, line)
		thumbs := []plot.Thumbnailer{line}
		if c.Diverged() && n > 0 {
			end, err := plotter.NewScatter(mean[n-1:])
			if err != nil {
				return nil, err
			}
			end.GlyphStyle = draw.GlyphStyle{Color: st.Color, Radius: vg.Points(5), Shape: draw.CrossGlyph{}}
			p.Add(end)
			thumbs = append(thumbs, end)
		}
		leg.Add(legendLabel(c), thumbs...)
	}
	// Diverging runs leave through the top of the axis instead of
	// squeezing the others.
	p.Y.Min, p.Y.Max = floor, math.Min(yMax*1.5, axisTop)
	p.X.Min, p.X.Max = 0, math.Max(xMax, 1e-9)
	p.Title.TextStyle.Font.Size = vg.Points(12)
	return &figure{p, leg}, nil
}

// axisTop is the highest optimality shown on the axis.
const axisTop = 100

// figure is a plot with its legend, drawn to the right of the plot.
type figure struct {
	p      *plot.Plot
	legend plot.Legend
}

// decadeTicks labels the powers of ten of a log axis ("1e-6"), every
// second or third one when the axis spans many decades, with unlabelled
// ticks at the other decades.
type decadeTicks struct{}

// Ticks implements plot.Ticker.
func (decadeTicks) Ticks(min, max float64) []plot.Tick {
	lo, hi := int(math.Floor(math.Log10(min))), int(math.Ceil(math.Log10(max)))
	step := 1 + (hi-lo)/10
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		v := math.Pow(10, float64(e))
		if v < min*(1-1e-9) || v > max*(1+1e-9) {
			continue
		}
		t := plot.Tick{Value: v}
		if e%step == 0 {
			t.Label = "1e" + strconv.Itoa(e)
			if e == 0 {
				t.Label = "1"
			}
		}
		ticks = append(ticks, t)
	}
	return ticks
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
	leg := plot.NewLegend()
	p.X.Tick.Marker = integerTicks{}
	p.Title.Text = "Learned scalars of " + s.Method
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
		{"step size α(t)", "α", s.Alpha, s.AlphaStar, palette[0]},
		{"momentum β(t)", "β", s.Beta, s.BetaStar, palette[1]},
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
			leg.Add(ser.name, l, sc)
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
			leg.Add(fmt.Sprintf("heavy ball %s* = %.4g", ser.symbol, ser.ref), ref)
		}
	}
	p.Y.Min = math.Min(p.Y.Min, 0)
	return &figure{p, leg}, nil
}

// savePlot writes f as name.png and name.svg (w×h centimetres), the plot
// on the left and the legend on the right.
func savePlot(f *figure, dir, name string, w, h float64) error {
	width, height := vg.Length(w)*vg.Centimeter, vg.Length(h)*vg.Centimeter
	for _, ext := range []string{".png", ".svg"} {
		path := filepath.Join(dir, name+ext)
		var c vg.CanvasWriterTo
		if ext == ".png" {
			c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(120), vgimg.UseBackgroundColor(color.White))}
		} else {
			c = vgsvg.New(width, height)
		}
		dc := draw.New(c)
		f.legend.TextStyle.Font.Size = vg.Points(10)
		f.legend.Top, f.legend.Left = true, true
		lw := f.legend.Rectangle(dc).Size().X + vg.Centimeter/2
		f.p.Draw(draw.Crop(dc, 0, -lw, 0, 0))
		top := f.p.Title.TextStyle.Height(f.p.Title.Text) + vg.Centimeter/2
		f.legend.Draw(draw.Crop(dc, width-lw+vg.Centimeter/4, 0, 0, -top))
		if err := writeFile(path, func(wr io.Writer) error { _, err := c.WriteTo(wr); return err }); err != nil {
			return err
		}
	}
	return nil
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
}

// saveGrid draws panels in a grid of cols columns (0: up to gridColumns),
// each turned into an image by render, under an optional title, and
// writes it as a PNG.
func saveGrid(path, title string, panels []Panel, cols int, render func(Panel) rendered) error {
	if cols <= 0 {
		cols = gridColumns
	}
	cols = min(len(panels), cols)
	rows := (len(panels) + cols - 1) / cols
	plots := make([][]*plot.Plot, rows)
	for r := range plots {
		plots[r] = make([]*plot.Plot, cols)
	}
	for i, pn := range panels {
		rd := render(pn)
		p := plot.New()
		p.Title.Text = pn.Label
		if rd.caption != "" {
			p.Title.Text += "\n" + rd.caption
		}
		p.Title.TextStyle.Font.Size = vg.Points(9)
		p.HideAxes()
		p.X.Padding, p.Y.Padding = 0, 0
		b := rd.img.Bounds()
		scale := float64(pn.H) / float64(b.Dy()) // data units per pixel
		wd := float64(b.Dx()) * scale
		p.Add(plotter.NewImage(rd.img, 0, 0, wd, float64(pn.H)))
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
			p.X.Max = wd * 1.3 // room for the labels
		}
		plots[i/cols][i%cols] = p
	}
	const side = 1.9 // inches per tile
	top := vg.Length(0)
	if title != "" {
		top = 0.4 * vg.Inch
	}
	c := vgimg.NewWith(vgimg.UseWH(vg.Length(side*float64(cols))*vg.Inch, vg.Length((side+0.35)*float64(rows))*vg.Inch+top),
		vgimg.UseDPI(110), vgimg.UseBackgroundColor(color.White))
	dc := draw.New(c)
	if title != "" {
		ts := draw.TextStyle{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(11)),
			XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
		dc.FillText(ts, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y - vg.Points(6)}, title)
		dc = draw.Crop(dc, 0, 0, 0, -top)
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 2, PadY: vg.Millimeter * 2,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(plots, tiles, dc)
	for r := range plots {
		for k, p := range plots[r] {
			if p != nil {
				p.Draw(canvases[r][k])
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("report: writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("report: writing %s: %w", path, err)
	}
	return nil
}

// upscale is the factor by which panels are enlarged (nearest neighbour)
// before drawing, so that the renderer's interpolation does not blur pixels.
func upscale(h, w int) int { return max(1, 160/max(h, w, 1)) }

// greyPanel renders values clipped to [0, 1] in grey.
func greyPanel(p Panel) rendered {
	img, caption := greyImage(p)
	return rendered{img: img, caption: caption}
}

// greyImage renders values clipped to [0, 1] in grey.
func greyImage(p Panel) (image.Image, string) {
	s := upscale(p.H, p.W)
	img := image.NewGray(image.Rect(0, 0, p.W*s, p.H*s))
	for r := 0; r < p.H*s; r++ {
		for c := 0; c < p.W*s; c++ {
			v := p.Pix[(r/s)*p.W+c/s]
			if math.IsNaN(v) {
				v = 0
			}
			img.SetGray(c, r, color.Gray{Y: uint8(math.Round(255 * math.Min(1, math.Max(0, v))))})
		}
	}
	return img, ""
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
	return rendered{img: out, caption: caption, barWidth: bar,
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

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
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// palette holds distinguishable line colours (Tableau 10).
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xd6, 0x27, 0x28, 0xff}, {0x2c, 0xa0, 0x2c, 0xff},
	{0xff, 0x7f, 0x0e, 0xff}, {0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff},
	{0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff}, {0xbc, 0xbd, 0x22, 0xff},
	{0x17, 0xbe, 0xcf, 0xff},
}

func lineColor(i int) color.RGBA { return palette[i%len(palette)] }

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

// optimalityPlot draws the mean optimality of every curve with its min–max
// band against iterations or seconds.
func optimalityPlot(curves []*eval.Curve, seconds bool, xLabel string) (*figure, error) {
	p := plot.New()
	leg := plot.NewLegend()
	p.Title.Text = "Function optimality over the test set\nmean (line), min–max (band)"
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
	for i, c := range curves {
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
		col := lineColor(i)
		poly, err := plotter.NewPolygon(band)
		if err != nil {
			return nil, fmt.Errorf("report: band of %q: %w", c.Method, err)
		}
		fill := col
		fill.A = 0x30
		poly.Color = premultiplied(fill)
		poly.LineStyle.Width = 0
		line, err := plotter.NewLine(mean)
		if err != nil {
			return nil, fmt.Errorf("report: curve %q: %w", c.Method, err)
		}
		line.Color = col
		line.Width = vg.Points(1.5)
		if !learned(c.Method) {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(2.5)}
		} else {
			line.Width = vg.Points(2.5)
		}
		p.Add(poly, line)
		leg.Add(c.Method, line)
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

// saveGrid draws panels in a grid of cols columns (0: up to gridColumns),
// each turned into an image by render (which also returns a caption
// suffix), and writes it as a PNG.
func saveGrid(path string, panels []Panel, cols int, render func(Panel) (image.Image, string)) error {
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
		img, caption := render(pn)
		p := plot.New()
		p.Title.Text = pn.Label
		if caption != "" {
			p.Title.Text += "\n" + caption
		}
		p.Title.TextStyle.Font.Size = vg.Points(9)
		p.HideAxes()
		p.X.Padding, p.Y.Padding = 0, 0
		p.Add(plotter.NewImage(img, 0, 0, float64(pn.W), float64(pn.H)))
		plots[i/cols][i%cols] = p
	}
	const side = 1.9 // inches per tile
	c := vgimg.NewWith(vgimg.UseWH(vg.Length(side*float64(cols))*vg.Inch, vg.Length((side+0.35)*float64(rows))*vg.Inch),
		vgimg.UseDPI(110), vgimg.UseBackgroundColor(color.White))
	dc := draw.New(c)
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

// kernelImage renders a kernel with a diverging colour map (blue negative,
// white zero, red positive) scaled to ±s, where s is the largest magnitude
// away from the centre pixel, so that the structure around a dominant
// centre stays visible; the centre saturates. The caption gives the centre
// value and s.
func kernelImage(p Panel) (image.Image, string) {
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

package bench

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"sort"

	"github.com/greedyl2o/greedyl2o/report"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Plot size: 19 × 12 cm, an SVG (package report draws its own figures 16 cm wide with PNGs at 240 dpi).
const plotWidth, plotHeight = 19 * vg.Centimeter, 12 * vg.Centimeter

// rssDashes is the dash pattern of the peak-RSS lines.
var rssDashes = []vg.Length{vg.Points(5), vg.Points(2.5)}

// trainerStyle returns a trainer's colour and line width: those package
// report gives the method of the benchmark's default parametrization (greedy
// M-PC red, unrolled M-PC orange, Banert cyan), report.MethodStyle's for
// other names.
func trainerStyle(trainer string) report.Style {
	switch trainer {
	case Greedy, Unrolled:
		return report.MethodStyle(trainer + " m-pc")
	}
	return report.MethodStyle(trainer)
}

// WritePlot draws memory against T on log–log axes as an SVG (with gonum
// plot, in package report's style): one colour per trainer, a solid line for
// the held bytes and a dashed one for the peak RSS, with the fitted MB per
// unrolled iteration in the legend. Values ≤ 0 (not measured) are left out.
func WritePlot(w io.Writer, rows []Row, title string) error {
	p, leg, err := memoryPlot(rows, title)
	if err != nil {
		return err
	}
	c := vgsvg.New(plotWidth, plotHeight)
	dc := draw.New(c)
	dc.FillPolygon(color.White, []vg.Point{{X: 0, Y: 0}, {X: plotWidth, Y: 0}, {X: plotWidth, Y: plotHeight}, {X: 0, Y: plotHeight}})
	// The plot on the left, the legend on the right (as report's figures).
	leg.TextStyle.Font.Size = vg.Points(10)
	leg.Top, leg.Left = true, true
	lw := leg.Rectangle(dc).Size().X + vg.Centimeter/2
	p.Draw(draw.Crop(dc, 0, -lw, 0, 0))
	top := p.Title.TextStyle.Height(p.Title.Text) + vg.Centimeter/2
	leg.Draw(draw.Crop(dc, plotWidth-lw+vg.Centimeter/4, 0, 0, -top))
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("bench: writing the plot: %w", err)
	}
	return nil
}

// memoryPlot builds the plot of WritePlot and its legend.
func memoryPlot(rows []Row, title string) (*plot.Plot, plot.Legend, error) {
	minT, maxT := math.Inf(1), math.Inf(-1)
	minMB, maxMB := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		for _, b := range []int64{r.HeldBytes, r.PeakRSS} {
			if b > 0 && r.T > 0 {
				minT, maxT = math.Min(minT, float64(r.T)), math.Max(maxT, float64(r.T))
				minMB, maxMB = math.Min(minMB, float64(b)/1e6), math.Max(maxMB, float64(b)/1e6)
			}
		}
	}
	if math.IsInf(minT, 1) {
		return nil, plot.Legend{}, fmt.Errorf("bench: nothing to plot (no row with a positive T and memory)")
	}
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(12)
	p.X.Label.Text = "unrolled iterations T"
	p.Y.Label.Text = "memory (MB)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	// Whole decades, at least one, on both axes.
	p.X.Min, p.X.Max = decades(minT, maxT)
	p.Y.Min, p.Y.Max = decades(minMB, maxMB)
	p.Add(plotter.NewGrid())
	leg := plot.NewLegend()

	fits := map[string]Summary{}
	for _, s := range Summarize(rows) {
		fits[s.Trainer] = s
	}
	var trainers []string
	by := map[string][]Row{}
	for _, r := range rows {
		if _, ok := by[r.Trainer]; !ok {
			trainers = append(trainers, r.Trainer)
		}
		by[r.Trainer] = append(by[r.Trainer], r)
	}
	for _, tr := range trainers {
		rs := append([]Row(nil), by[tr]...)
		sort.SliceStable(rs, func(a, b int) bool { return rs[a].T < rs[b].T })
		st := trainerStyle(tr)
		for _, m := range []struct {
			label  string
			get    func(Row) int64
			dashes []vg.Length
			slope  float64
		}{
			{"held", func(r Row) int64 { return r.HeldBytes }, nil, fits[tr].HeldMBPerT},
			{"peak RSS", func(r Row) int64 { return r.PeakRSS }, rssDashes, fits[tr].RSSMBPerT},
		} {
			var xy plotter.XYs
			for _, r := range rs {
				if b := m.get(r); b > 0 && r.T > 0 {
					xy = append(xy, plotter.XY{X: float64(r.T), Y: float64(b) / 1e6})
				}
			}
			if len(xy) == 0 {
				continue
			}
			line, points, err := plotter.NewLinePoints(xy)
			if err != nil {
				return nil, plot.Legend{}, fmt.Errorf("bench: %s %s: %w", tr, m.label, err)
			}
			line.Color, line.Width, line.Dashes = st.Color, st.Width, m.dashes
			points.Color, points.Radius = st.Color, vg.Points(2.5)
			if m.dashes != nil {
				points.Shape = draw.BoxGlyph{}
			}
			p.Add(line, points)
			leg.Add(fmt.Sprintf("%s %s: %.3g MB/iter", tr, m.label, m.slope), line, points)
		}
	}
	return p, leg, nil
}

// decades returns the powers of ten around [lo, hi] (lo, hi > 0), one decade
// apart at least.
func decades(lo, hi float64) (float64, float64) {
	a, b := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if b <= a {
		b = a + 1
	}
	return math.Pow(10, a), math.Pow(10, b)
}

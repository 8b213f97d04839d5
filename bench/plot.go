package bench

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// WritePlot draws memory against T on log–log axes as an SVG: one solid line
// per trainer for the held bytes and a dashed one for the peak RSS, with the
// fitted MB per unrolled iteration in the legend.
func WritePlot(w io.Writer, rows []Row, title string) error {
	if len(rows) == 0 {
		return fmt.Errorf("bench: nothing to plot")
	}
	const width, height, left, right, top, bottom = 720.0, 480.0, 70.0, 230.0, 40.0, 50.0
	minT, maxT := math.Inf(1), math.Inf(-1)
	minB, maxB := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		minT, maxT = math.Min(minT, float64(r.T)), math.Max(maxT, float64(r.T))
		for _, b := range []int64{r.HeldBytes, r.PeakRSS} {
			if b > 0 {
				minB, maxB = math.Min(minB, float64(b)), math.Max(maxB, float64(b))
			}
		}
	}
	if maxT == minT {
		maxT = minT * 10
	}
	lt0, lt1 := math.Floor(math.Log10(minT)), math.Ceil(math.Log10(maxT))
	lb0, lb1 := math.Floor(math.Log10(minB/1e6)), math.Ceil(math.Log10(maxB/1e6))
	if lt1 == lt0 {
		lt1++
	}
	if lb1 == lb0 {
		lb1++
	}
	px := func(T float64) float64 { return left + (math.Log10(T)-lt0)/(lt1-lt0)*(width-left-right) }
	py := func(mb float64) float64 { return height - bottom - (math.Log10(mb)-lb0)/(lb1-lb0)*(height-top-bottom) }
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" font-family="sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(&sb, `<rect width="100%%" height="100%%" fill="white"/><text x="%g" y="22" font-size="14">%s</text>`+"\n", left, escape(title))
	for e := lt0; e <= lt1; e++ {
		x := px(math.Pow(10, e))
		fmt.Fprintf(&sb, `<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="#ddd"/><text x="%.1f" y="%g" text-anchor="middle">%g</text>`+"\n", x, top, x, height-bottom, x, height-bottom+16, math.Pow(10, e))
	}
	for e := lb0; e <= lb1; e++ {
		y := py(math.Pow(10, e))
		fmt.Fprintf(&sb, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#ddd"/><text x="%g" y="%.1f" text-anchor="end">%g</text>`+"\n", left, y, width-right, y, left-6, y+4, math.Pow(10, e))
	}
	fmt.Fprintf(&sb, `<text x="%g" y="%g" text-anchor="middle">unrolled iterations T</text>`+"\n", (left+width-right)/2, height-12)
	fmt.Fprintf(&sb, `<text x="16" y="%g" transform="rotate(-90 16 %g)" text-anchor="middle">memory (MB)</text>`+"\n", (top+height-bottom)/2, (top+height-bottom)/2)
	colors := []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"}
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
	for i, tr := range trainers {
		rs := by[tr]
		sort.Slice(rs, func(a, b int) bool { return rs[a].T < rs[b].T })
		c := colors[i%len(colors)]
		for _, m := range []struct {
			get  func(Row) int64
			dash string
		}{{func(r Row) int64 { return r.HeldBytes }, ""}, {func(r Row) int64 { return r.PeakRSS }, ` stroke-dasharray="5,4"`}} {
			var pts []string
			for _, r := range rs {
				if b := m.get(r); b > 0 {
					pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(float64(r.T)), py(float64(b)/1e6)))
				}
			}
			fmt.Fprintf(&sb, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`+"\n", c, m.dash, strings.Join(pts, " "))
		}
		y := top + 20 + float64(i)*40
		fmt.Fprintf(&sb, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="2"/><text x="%g" y="%g">%s held: %.3g MB/iter</text>`+"\n",
			width-right+10, y, width-right+34, y, c, width-right+40, y+4, escape(tr), fits[tr].HeldMBPerT)
		fmt.Fprintf(&sb, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="2" stroke-dasharray="5,4"/><text x="%g" y="%g">%s peak RSS: %.3g MB/iter</text>`+"\n",
			width-right+10, y+16, width-right+34, y+16, c, width-right+40, y+20, escape(tr), fits[tr].RSSMBPerT)
	}
	sb.WriteString("</svg>\n")
	_, err := io.WriteString(w, sb.String())
	return err
}

func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

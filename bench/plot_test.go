package bench

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
)

// svgPath is a drawn path of the SVG: its points and style.
type svgPath struct {
	pts    [][2]float64
	stroke string
	dashed bool
}

// svgContent parses an SVG written by WritePlot into its paths and texts.
func svgContent(t *testing.T, svg []byte) (paths []svgPath, texts []string) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the plot is not well-formed XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			inText = el.Name.Local == "text"
			if el.Name.Local != "path" {
				continue
			}
			var p svgPath
			for _, a := range el.Attr {
				switch a.Name.Local {
				case "d":
					for _, seg := range strings.FieldsFunc(a.Value, func(r rune) bool { return r == 'M' || r == 'L' || r == 'Z' }) {
						xs, ys, ok := strings.Cut(seg, ",")
						x, err1 := strconv.ParseFloat(xs, 64)
						y, err2 := strconv.ParseFloat(ys, 64)
						if ok && err1 == nil && err2 == nil {
							p.pts = append(p.pts, [2]float64{x, y})
						}
					}
				case "style":
					for _, kv := range strings.Split(a.Value, ";") {
						k, v, _ := strings.Cut(kv, ":")
						switch k {
						case "stroke":
							p.stroke = v
						case "stroke-dasharray":
							p.dashed = true
						}
					}
				}
			}
			paths = append(paths, p)
		case xml.CharData:
			if inText {
				texts = append(texts, string(el))
			}
		case xml.EndElement:
			inText = false
		}
	}
	return paths, texts
}

// dataLine returns the path of stroke colour and dash that has n points.
func dataLine(paths []svgPath, stroke string, dashed bool, n int) (svgPath, bool) {
	for _, p := range paths {
		if strings.EqualFold(p.stroke, stroke) && p.dashed == dashed && len(p.pts) == n {
			return p, true
		}
	}
	return svgPath{}, false
}

// TestPlotLogLogLines checks WritePlot's SVG: a line straight on log–log
// axes (held bytes ∝ T at T = 1, 10, 100) is drawn with equally spaced
// points, which a linear axis would space 9:90; a constant is drawn flat;
// each trainer has its own colour (report's: greedy M-PC red, unrolled M-PC
// orange) for a solid held line and a dashed peak-RSS line; the legend gives
// the fitted MB per iteration; unmeasured (zero) values are left out.
func TestPlotLogLogLines(t *testing.T) {
	var rows []Row
	for _, T := range []int{1, 10, 100} {
		rows = append(rows,
			Row{Trainer: Greedy, T: T, HeldBytes: 3e5},                                       // no RSS measured
			Row{Trainer: Unrolled, T: T, HeldBytes: int64(T) * 1e6, PeakRSS: int64(T) * 2e6}, // 1 and 2 MB per iteration
		)
	}
	var buf bytes.Buffer
	if err := WritePlot(&buf, rows, "memory <a&b>"); err != nil {
		t.Fatal(err)
	}
	paths, texts := svgContent(t, buf.Bytes())
	all := strings.Join(texts, "\n")
	for _, want := range []string{"memory <a&b>", "unrolled iterations T", "memory (MB)",
		"unrolled held: 1 MB/iter", "unrolled peak RSS: 2 MB/iter", "greedy held: 0 MB/iter"} {
		if !strings.Contains(all, want) {
			t.Errorf("no text %q in the plot; texts:\n%s", want, all)
		}
	}
	if strings.Contains(all, "greedy peak RSS") {
		t.Error("a peak-RSS line for greedy, whose peak RSS was not measured")
	}
	red, orange := trainerStyle(Greedy).Hex(), trainerStyle(Unrolled).Hex()
	if red == orange {
		t.Fatalf("greedy and unrolled share the colour %s", red)
	}
	uh, ok1 := dataLine(paths, orange, false, 3)
	ur, ok2 := dataLine(paths, orange, true, 3)
	gh, ok3 := dataLine(paths, red, false, 3)
	if !ok1 || !ok2 || !ok3 {
		t.Fatalf("missing data lines: unrolled held %v, unrolled RSS %v, greedy held %v", ok1, ok2, ok3)
	}
	if _, ok := dataLine(paths, red, true, 3); ok {
		t.Error("a dashed greedy line for unmeasured peak RSS")
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 0.02*math.Max(math.Abs(a), math.Abs(b)) }
	for _, l := range []svgPath{uh, ur} {
		p := l.pts
		dx0, dx1 := p[1][0]-p[0][0], p[2][0]-p[1][0]
		dy0, dy1 := p[1][1]-p[0][1], p[2][1]-p[1][1]
		if !(dx0 > 0) || !near(dx0, dx1) || !(dy0 > 0) || !near(dy0, dy1) {
			t.Errorf("unrolled line %v (stroke %s, dashed %v): want equal steps per decade on log–log axes", p, l.stroke, l.dashed)
		}
	}
	// Same decades in x: the three lines share their x positions.
	for i := range 3 {
		if math.Abs(uh.pts[i][0]-gh.pts[i][0]) > 0.01 || math.Abs(uh.pts[i][0]-ur.pts[i][0]) > 0.01 {
			t.Errorf("point %d at x %g, %g, %g: want the same T drawn at the same x", i, gh.pts[i][0], uh.pts[i][0], ur.pts[i][0])
		}
	}
	// The RSS line is the held line moved up by log10(2) of a decade.
	decade := uh.pts[1][1] - uh.pts[0][1]
	if shift := ur.pts[0][1] - uh.pts[0][1]; !near(shift, math.Log10(2)*decade) {
		t.Errorf("RSS line %g above the held line, want log10(2) of a decade (%g)", shift, math.Log10(2)*decade)
	}
	if gh.pts[0][1] != gh.pts[1][1] || gh.pts[1][1] != gh.pts[2][1] {
		t.Errorf("greedy's constant held bytes drawn at heights %v", gh.pts)
	}
	// 0.3 MB is log10(0.3) of a decade below unrolled's 1 MB at T = 1.
	if d := gh.pts[0][1] - uh.pts[0][1]; !near(d, math.Log10(0.3)*decade) {
		t.Errorf("greedy 0.3 MB drawn %g from unrolled's 1 MB, want %g", d, math.Log10(0.3)*decade)
	}
}

func TestPlotRefusesEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := WritePlot(&buf, nil, ""); err == nil {
		t.Error("empty plot accepted")
	}
	if err := WritePlot(&buf, []Row{{Trainer: Greedy, T: 3}}, ""); err == nil {
		t.Error("plot without a positive memory value accepted")
	}
}

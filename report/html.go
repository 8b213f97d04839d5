package report

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/greedyl2o/greedyl2o/eval"
)

// page is the data of index.html.
type page struct {
	Title string
	Notes []string
	// Provenance lists where the curves came from (Report.Provenance).
	Provenance []string
	Winner     string
	// Classical compares the learned optimizers with the best classical
	// method per iteration and per second (BestClassicalLines).
	Classical []string
	Guard     []string
	Figure    []string
	Header    []string
	Rows      [][]string
	// SwatchCSS draws each table row's method in its MethodStyle (a line
	// before the name), so the table reads like the figures' legends.
	SwatchCSS template.CSS
	ReconOf   string
	ReconNote string
	Scalars   bool
	// ScalarRef states the heavy-ball reference of the scalar figure and
	// the L and μ it was computed for.
	ScalarRef string
	// KernelFigs are the kernel figures (kernels.png, kernels_NAME.png).
	KernelFigs []kernelFig
	// Sources say where the figures' inputs came from (Report.Sources).
	Sources  []string
	Recons   bool
	PSNRIter int
}

func (r *Report) page() page {
	tols := r.Tols
	if tols == nil {
		tols = eval.DefaultTolerances
	}
	psnrIter := r.PSNRIter
	if psnrIter == 0 {
		psnrIter = DefaultPSNRIter
	}
	title := r.Title
	if title == "" {
		title = "greedyl2o report"
	}
	pg := page{
		Title: title, Notes: r.Notes, Header: tableHeader(tols, psnrIter), PSNRIter: psnrIter,
		Scalars:   r.Scalars != nil && len(r.Scalars.Alpha) > 0,
		ScalarRef: r.Scalars.referenceLine(), KernelFigs: r.kernelFigures(), Sources: r.sources(),
		Recons: len(r.Reconstructions) > 0,
		Winner: Winner(r.Curves, tols), Classical: BestClassicalLines(r.Curves, tols), Guard: SafeguardLines(r.Curves), Figure: FigureNotes(r.Curves),
		ReconOf: r.ReconstructionImage, ReconNote: r.ReconstructionNote, Provenance: r.provenanceLines(),
	}
	var css strings.Builder
	for i, h := range Headlines(r.Curves, tols, psnrIter) {
		pg.Rows = append(pg.Rows, tableRow(h))
		st := MethodStyle(h.Method)
		fmt.Fprintf(&css, "#headline tbody tr:nth-child(%d) td:first-child::before { border-top-style: %s; border-top-color: %s; }\n", i+1, st.DashCSS(), st.Hex())
	}
	pg.SwatchCSS = template.CSS(css.String())
	return pg
}

var indexTemplate = template.Must(template.New("index").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body { font-family: sans-serif; max-width: 72em; margin: 2em auto; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.7em; }
td { text-align: right; font-variant-numeric: tabular-nums; }
td:first-child { text-align: left; }
th { background: #f3f3f3; }
img { max-width: 100%; }
figure { margin: 1.5em 0; }
figcaption { color: #555; font-size: 0.9em; }
#headline tbody td:first-child::before { content: ""; display: inline-block; width: 2.2em; height: 0; margin-right: 0.5em; vertical-align: middle; border-top-width: 3px; }
{{.SwatchCSS}}
.winner { font-weight: bold; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="winner">{{.Winner}}</p>
{{if .Classical}}<ul class="classical">
{{range .Classical}}<li>{{.}}</li>
{{end}}</ul>
{{end}}{{range .Guard}}<p>{{.}}</p>
{{end}}{{range .Notes}}<p>{{.}}</p>
{{end}}
<h2>Headline numbers</h2>
<table id="headline">
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
<p>Iterations and seconds are those at which the mean function optimality over the test set first falls to the
tolerance (— if never); seconds count only the methods' own iterations. PSNR is the mean over the test set at
iteration {{.PSNRIter}}. Curves: <a href="curves.csv">curves.csv</a>, <a href="curves.json">curves.json</a>.</p>

<h2>Function optimality</h2>
<figure><img src="optimality_iter.png" alt="function optimality against iteration">
<figcaption>Mean function optimality (line) and its minimum and maximum over the test set (band) against iteration,
log scale. Each method has one colour and line pattern in every figure and table, and no two methods share either
(learned optimizers thick, baselines thin), except that a safeguarded optimizer is dotted in the colour of the one it guards.
<a href="optimality_iter.svg">SVG</a></figcaption></figure>
{{range .Figure}}<p>{{.}}</p>
{{end}}
<figure><img src="optimality_seconds.png" alt="function optimality against seconds">
<figcaption>The same against wall-clock seconds. <a href="optimality_seconds.svg">SVG</a></figcaption></figure>
{{if .Scalars}}
<h2>Learned scalars</h2>
<figure><img src="scalars.png" alt="learned step sizes and momenta">
<figcaption>Learned step size θ<sub>t</sub> and momentum φ<sub>t</sub> against step t, with the asymptotically optimal
heavy-ball values (dashed){{if .ScalarRef}}: {{.ScalarRef}}{{end}}. <a href="scalars.svg">SVG</a>, <a href="scalars.csv">CSV</a></figcaption></figure>
{{end}}{{if .KernelFigs}}
<h2>Learned kernels</h2>
{{range .KernelFigs}}<figure><img src="{{.File}}.png" alt="{{if .Title}}{{.Title}}{{else}}centre crops of learned kernels{{end}}">
<figcaption>{{if .Title}}{{.Title}}. {{end}}{{if .Note}}{{.Note}}. {{end}}Kernels drawn as convolution kernels, origin in the middle
(pixel (c + d) weighs v(x − d)). Blue is negative, red positive; each panel has its own
colour bar, scaled to the largest magnitude away from its centre, so the centre pixel may saturate (its value is printed).
<a href="{{.File}}.svg">SVG</a></figcaption></figure>
{{end}}{{end}}{{if .Recons}}
<h2>Reconstructions</h2>
<figure><img src="reconstructions.png" alt="reconstructions">
<figcaption>{{if .ReconOf}}Reconstructions of {{.ReconOf}}: {{end}}the ground truth beside the methods' iterates, values clipped to [0, 1].{{if .ReconNote}} {{.ReconNote}}{{end}}
<a href="reconstructions.svg">SVG</a></figcaption></figure>
{{end}}{{if or .Provenance .Sources}}
<h2>Provenance</h2>
{{if .Sources}}<ul id="sources">
{{range .Sources}}<li>{{.}}</li>
{{end}}</ul>
{{end}}{{if .Provenance}}<pre id="provenance">{{range .Provenance}}{{.}}
{{end}}</pre>
{{end}}{{end}}
</body>
</html>
`))

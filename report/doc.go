// Package report turns evaluation curves (eval.Curve) and a few extras into
// files a researcher looks at: figures drawn with gonum.org/v1/plot (PNG and
// SVG), the curves as CSV and JSON, and an index.html that ties them together
// with a table of the headline numbers.
//
// A Report holds the curves of several methods on one test set, optionally the
// learned scalars (α_t, β_t) of a scalar learned optimizer with the heavy-ball
// reference values, centre crops of learned image-sized kernels, and
// reconstructions. Report.Write writes
//
//	optimality_iter.png/.svg     mean function optimality (min–max band, log y) against iteration
//	optimality_seconds.png/.svg  the same against wall-clock seconds
//	scalars.png/.svg, scalars.csv  θ_t, φ_t against t with the heavy-ball θ*, φ* and their L, μ
//	kernels.png/.svg             a grid of kernel crops (symmetric colour scale)
//	kernels_NAME.png/.svg        the same for each further learned optimizer (KernelSets)
//	reconstructions.png/.svg     a grid of images clipped to [0, 1] (a sinogram from its min to max)
//	curves.csv, curves.json      the curves (eval.WriteCSV, eval.WriteJSON)
//	index.html                   the table and the figures
//
// leaving out the files whose inputs are empty.
//
// The figures are meant for a paper. Each is written as an SVG and as a PNG
// at 240 dpi (a 16 cm wide figure is 1512 pixels wide). Titles and labels
// are wrapped to the canvas, never clipped; the legend is outside the axes,
// to the right of the plot or, when that would take more than about a third
// of the width, below it in columns (the canvas grows to hold it); a log axis
// has a labelled tick at every power of ten, and the figure grows until the
// labels clear each other; images keep their aspect ratio. Every method has
// the same style in every figure (MethodStyle), and no two of the methods
// the tool knows share a colour or a line pattern. The SVGs give each text
// its width in the plot's font (textLength), so that a viewer without
// Liberation Serif does not push it off the canvas.
//
// Headlines computes the table (iterations and seconds to each tolerance,
// mean PSNR at one iteration) and WriteTable prints it as text with the same
// number formatting as index.html.
package report

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
//	scalars.png/.svg, scalars.csv  α_t, β_t against t with the references α*, β*
//	kernels.png                  a grid of kernel crops (symmetric colour scale)
//	reconstructions.png          a grid of images clipped to [0, 1]
//	curves.csv, curves.json      the curves (eval.WriteCSV, eval.WriteJSON)
//	index.html                   the table and the figures
//
// leaving out the files whose inputs are empty. Headlines computes the table
// (iterations and seconds to each tolerance, mean PSNR at one iteration) and
// WriteTable prints it as text with the same number formatting as index.html.
package report

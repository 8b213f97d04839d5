package report

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
)

// HeavyBallReference returns the classical heavy-ball step and momentum for
// a quadratic whose Hessian's eigenvalues lie in [mu, L]:
//
//	θ* = 4/(√L + √μ)²,  φ* = ((√L − √μ)/(√L + √μ))²,
//
// the parameters that minimise the worst asymptotic rate (√φ*) of
// x⁺ = x − θ∇f(x) + φ(x − x⁻) over that interval. mu = 0 gives the limits
// 4/L and 1 (no convergence guarantee). L must be positive and finite and
// 0 ≤ mu < L.
func HeavyBallReference(L, mu float64) (theta, phi float64, err error) {
	if !(L > 0) || math.IsInf(L, 0) {
		return 0, 0, fmt.Errorf("heavy-ball reference: L = %g is not positive and finite", L)
	}
	if !(mu >= 0) || mu >= L {
		return 0, 0, fmt.Errorf("heavy-ball reference: μ = %g must lie in [0, L = %g)", mu, L)
	}
	sl, sm := math.Sqrt(L), math.Sqrt(mu)
	r := (sl - sm) / (sl + sm)
	return 4 / ((sl + sm) * (sl + sm)), r * r, nil
}

// SmallKernelPanel returns a K×K kernel θ of a correlation
// (G_θ v)(x) = Σ_u θ[u] v(x + u − c), c = (K/2, K/2), as KernelCrop draws
// image-sized convolution kernels: pixel (c + d) is the weight of v(x − d),
// that is, the impulse response of G_θ around its origin. It is θ flipped
// about its centre; size (odd, at most K; 0 means K) crops it.
func SmallKernelPanel(label string, theta []float64, k, size int) (Panel, error) {
	if k < 1 || k%2 == 0 || len(theta) != k*k {
		return Panel{}, fmt.Errorf("kernel %q: %d values for a %d×%d kernel (K must be odd)", label, len(theta), k, k)
	}
	if size == 0 {
		size = k
	}
	if size < 1 || size%2 == 0 || size > k {
		return Panel{}, fmt.Errorf("kernel %q: crop size %d must be odd and at most the kernel size %d", label, size, k)
	}
	c, s := k/2, size/2
	pix := make([]float64, size*size)
	for a := 0; a < size; a++ {
		for b := 0; b < size; b++ {
			// d = (a − s, b − s); θ index u = c − d.
			pix[a*size+b] = theta[(c-(a-s))*k+(c-(b-s))]
		}
	}
	return Panel{Label: label, H: size, W: size, Pix: pix}, nil
}

// KernelSet is the kernels of one learned optimizer, drawn as one grid
// figure kernels_NAME.png (NAME from Method) with Title over it; Note is its
// caption in index.html (kernel size, crop, convention) and Source where
// the kernels came from (listed with the provenance).
type KernelSet struct {
	Method  string
	Title   string
	Panels  []Panel
	Columns int
	Note    string
	Source  string
}

// kernelFig is one kernel figure of index.html.
type kernelFig struct {
	File, Title, Note, Source string
}

// sources are r.Sources and a line for each kernel figure with a source.
func (r *Report) sources() []string {
	out := append([]string(nil), r.Sources...)
	for _, f := range r.kernelFigures() {
		if f.Source != "" {
			out = append(out, f.File+".png: "+f.Source)
		}
	}
	return out
}

// fileSlug turns a method name into a file-name part: lower case letters,
// digits and '-'.
func fileSlug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.TrimSuffix(b.String(), "-")
	if s == "" {
		s = "kernels"
	}
	return s
}

// kernelFigures returns the file base names (without .png) and captions of
// r's kernel figures: kernels for r.Kernels, kernels_NAME for each set.
func (r *Report) kernelFigures() []kernelFig {
	var out []kernelFig
	if len(r.Kernels) > 0 {
		out = append(out, kernelFig{File: "kernels", Title: r.KernelTitle, Note: r.KernelNote, Source: r.KernelSource})
	}
	seen := map[string]int{}
	for _, s := range r.KernelSets {
		slug := fileSlug(s.Method)
		seen[slug]++
		if n := seen[slug]; n > 1 {
			slug = fmt.Sprintf("%s-%d", slug, n)
		}
		out = append(out, kernelFig{File: "kernels_" + slug, Title: s.title(), Note: s.Note, Source: s.Source})
	}
	return out
}

func (s KernelSet) title() string {
	if s.Title != "" {
		return s.Title
	}
	return "Learned kernels of " + s.Method
}

// writeKernels draws r.Kernels and r.KernelSets into dir.
func (r *Report) writeKernels(dir string) error {
	figs := r.kernelFigures()
	sets := r.KernelSets
	if len(r.Kernels) > 0 {
		sets = append([]KernelSet{{Title: r.KernelTitle, Panels: r.Kernels, Columns: r.KernelColumns}}, sets...)
	}
	for i, s := range sets {
		title := figs[i].Title
		if err := saveGrid(filepath.Join(dir, figs[i].File+".png"), title, s.Panels, s.Columns, kernelPanel); err != nil {
			return err
		}
	}
	return nil
}

// checkKernels checks every kernel panel of r.
func (r *Report) checkKernels() error {
	if r.KernelColumns < 0 {
		return fmt.Errorf("report: %d kernel columns: use 0 (automatic) or a positive number", r.KernelColumns)
	}
	for _, p := range r.Kernels {
		if err := p.check("kernel"); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	for _, s := range r.KernelSets {
		if len(s.Panels) == 0 || s.Columns < 0 {
			return fmt.Errorf("report: kernel set of %q has %d panels and %d columns: give panels and columns ≥ 0", s.Method, len(s.Panels), s.Columns)
		}
		for _, p := range s.Panels {
			if err := p.check("kernel of " + s.Method); err != nil {
				return fmt.Errorf("report: %w", err)
			}
		}
	}
	return nil
}

// referenceLine describes the heavy-ball reference of s in one line
// ("" when it has none).
func (s *ScalarSeries) referenceLine() string {
	if s == nil || !(s.AlphaStar > 0) {
		return ""
	}
	line := fmt.Sprintf("heavy-ball reference θ* = 4/(√L+√μ)² = %.4g, φ* = ((√L−√μ)/(√L+√μ))² = %.4g", s.AlphaStar, s.BetaStar)
	if s.L > 0 {
		line += fmt.Sprintf(" for L = %.4g, μ = %.4g", s.L, s.Mu)
	}
	if s.Reference != "" {
		line += " (" + s.Reference + ")"
	}
	return line
}

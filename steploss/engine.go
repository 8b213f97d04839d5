package steploss

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"unsafe"

	"github.com/greedyl2o/greedyl2o/internal/ordered"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/ondevice"
	"github.com/greedyl2o/greedyl2o/problem"
)

// Precision is the floating-point type a greedy step loss computes in
// (problem.Precision). The parameters (θ, φ), the loss values and the inner
// solvers stay float64 whatever the precision; Float32 changes the per-pixel
// work (iterates, ∇f, the spectra of the convolution terms).
type Precision = problem.Precision

// The precisions.
const (
	// Float64 is the default: every path of the step loss.
	Float64 = problem.Float64
	// Float32 computes x⁺, f, ∇f and the spectral terms in float32 (sums in
	// float64; see kernels.Float), for every method on objectives with a
	// float32 evaluation (problem.NewObjectiveT: deblurring with a separable
	// blur, as Problem 1, and CT, Problem 2, with Huber-TV or no
	// regularizer). PS and PC terms compute in float32; the others (PP,
	// PC-k, PF in full, user types) apply their float64 bound operators
	// (their own Binder or their graph) to operands rounded to float32.
	Float32 = problem.Float32
)

// ParsePrecision parses "float64" or "float32" ("" means Float64).
func ParsePrecision(s string) (Precision, error) { return problem.ParsePrecision(s) }

// CheckPrecision returns nil if the step loss of m on o can be computed in
// prec, or the reason it cannot (an unknown precision, a term or an
// objective without a float32 path).
func CheckPrecision(m models.Method, o *problem.Objective, prec Precision) error {
	prec, err := ParsePrecision(string(prec))
	if err != nil || prec == Float64 {
		return err
	}
	obj, err := problem.NewObjectiveT[float32](o)
	if err != nil {
		return err
	}
	obj.Close()
	return nil
}

// termKind is what engine does with one term of x⁺.
type termKind int

const (
	scalarTerm   termKind = iota // θ·v (PS), in F
	spectralTerm                 // θ ⊛ v, circular, by FFT (PC), in F
	boundTerm                    // any other family: its float64 bound operator
)

// termKinds classifies the method's terms for the engine by the
// capabilities their families declare: a circular convolution
// (models.CircularConv: PC) and, with native, a scalar multiple
// (models.ScalarMultiple: PS) have terms in F; every other family is bound
// in float64 by its own Binder or its graph (models.GraphBinder; every term
// with graphOnly): bs[i], nil for the terms in F.
func termKinds(m models.Method, native, graphOnly bool) ([]termKind, []models.Binder) {
	pars := terms(m)
	out, bs := make([]termKind, len(pars)), make([]models.Binder, len(pars))
	for i, p := range pars {
		switch p.(type) {
		case models.ScalarMultiple:
			if native && !graphOnly {
				out[i] = scalarTerm
				continue
			}
		case models.CircularConv:
			if !graphOnly {
				out[i] = spectralTerm
				continue
			}
		}
		out[i] = boundTerm
		b, _ := termBinders([]models.Parametrization{p}, graphOnly)
		bs[i] = b[0]
	}
	return out, bs
}

// engineOptions choose how the engine computes (newEngine).
type engineOptions struct {
	// native computes PS terms in F and evaluates the objective by its own
	// F evaluation (problem.NewObjectiveT, fused image by image where it
	// can): always for float32; for float64 only to test that code path
	// (stepPaths.fused64). Otherwise (float64) the objective is
	// problem.Objective.Eval over the batch and PS a bound term, which keeps
	// the float64 results of every objective bitwise.
	native bool
	// graphOnly binds every term by its graph (tests: the oracle).
	graphOnly bool
	// refs are the terms' reference parameters (θ̃, φ̃) and reducers (nil,
	// or one entry per term) the terms solved in their step's subspace
	// (models.Reducer: PF): their reference step is folded into x.
	refs     [][]float64
	reducers []models.Reducer
}

// objective64 is problem.Objective.Eval as the engine's float64 objective.
type objective64 struct {
	o  *problem.Objective
	ws problem.Workspace
}

func (b *objective64) Eval(vals []float64, grad, x []float64) error {
	return b.o.Eval(vals, grad, x, &b.ws)
}

func (b *objective64) Close() {}

// engine is the step-loss engine: it evaluates the data part of the greedy
// step loss on the CPU in precision F — float64 (the default) or float32 —
// from one code path:
//
//	x⁺ = x − G_θ g + H_φ p
//	(1/N) Σk fk(xk⁺), r = ∇f(x⁺)
//	∇_θ = −(1/N) adjoint of θ ↦ G_θ g at r;  ∇_φ likewise with +, p
//
// Terms. PC (G_θ v = θ ⊛ v, the image-sized circular convolution of
// models.FullConv) computes in F by FFT: setStep keeps the spectra ĝk, p̂k
// in F; an evaluation transforms θ once in float64 (held while θ stays the
// same, as for a frozen term in block mode) and rounds c·θ̂ to F; then image
// by image (kernels.Team, per-worker plans kept between evaluations) the
// spectral terms' products are summed and inverse transformed once, and the
// adjoint does one forward FFT of rk per image shared by the spectral terms,
// accumulating conj(v̂k)·r̂k in float64 per worker, the workers' sums added in
// chunk order. In float32 (native) PS computes in F too (θ·v; inner products
// in float64 per image, summed in image order). Every other term is bound in
// float64 (its Binder, or models.GraphBinder for a family without one) to
// its operand rounded to F; a reduced term (models.Reducer: PF) works in its
// reduction's coordinates with its reference step folded into x.
//
// Objective. Natively (float32) the objective's own F evaluation
// (problem.NewObjectiveT), fused with x⁺ and the adjoints image by image
// where it can (problem.FusedObjective); bound terms' outputs then join x⁺ in
// that pass. In float64, problem.Objective.Eval over the batch, with the
// bound terms added to x⁺ after the pass in term order by their AddApply:
// the float64 results are those of the bound evaluator this engine replaced,
// bitwise (goldens in cmd/golden_test.go), for every objective.
//
// Block mode (a term's gradient slot nil): the frozen term's contribution
// is held for its parameters (a bound term's output, a spectral term's
// transformed θ), its adjoint not computed. The affine form (affineForm:
// PS, M-PS on objectives with problem.Analysis) replaces all of this when
// set. Results depend on GOMAXPROCS only through the chunked sums.
type engine[F kernels.Float] struct {
	n, h, w int
	// total is the number of functions of the whole step loss, of which
	// the engine's n are a block (a shard: see partialSums); n otherwise.
	total   int
	acc     partialSums // the running sums of evaluate, kept between calls
	obj     problem.ObjectiveT[F]
	signs   []float64
	run     *engineRun[F]
	team    *kernels.Team
	cleanup runtime.Cleanup         // stops the team if the engine is dropped without close
	plan64  *kernels.FFT2T[float64] // θ's spectrum and the adjoints' inverse transforms
	spec64  []kernels.Complex[float64]
	img64   []float64
	vals    []float64
	loaded  bool
	// unfused evaluates in three passes over the batch even for a fused
	// objective (tests: the two must agree bitwise).
	unfused bool
	// The bound terms (nil entries for the terms in F): their binders, the
	// step's bound operators, and float64 scratch for their operands and r.
	binders []models.Binder
	bounds  []models.Bound
	v64     []float64
	r64     []float64
	x64     []float64 // x with the reduced terms' reference steps folded in
	// outParams[i] are the parameters of bound term i whose output
	// run.outs[i] holds (when outValid[i]): a frozen term (block mode) is
	// applied once for its parameters, not at every evaluation.
	outParams [][]float64
	outValid  []bool
	// native: see engineOptions; without it bound terms are added to x⁺
	// after the pass over the images, in term order, as AddApply does.
	native bool
	// refs and reducers: see engineOptions.
	refs     [][]float64
	reducers []models.Reducer
	// gather, for a block of a step loss whose other blocks other
	// processes hold (linked), gives every block's operands in block order
	// and where this block's begin: a reduced term's subspace is built
	// from all of them.
	gather func(local []float64) ([]float64, int, error)
	// affine, if set, evaluates instead (float64, every term one
	// parameter, an objective with problem.Analysis: affineForm); the
	// terms' bound operators only give it its directions.
	affine *affineForm
	// dev, if set, is the pass on a device's array operations (float64
	// engine: newDeviceEngine), in place of the pass over the images.
	dev *devicePass
	// objectiveOn, if set, is the device that evaluates obj (the float64
	// engine of terms without a device kind: newDeviceEngine).
	objectiveOn *ondevice.BatchEvaluator
}

// engineRun is the state the team's goroutines see. It does not refer to
// the engine, so that the latter can be collected and its team
// stopped.
type engineRun[F kernels.Float] struct {
	hw, sl   int
	kinds    []termKind
	phase    int // runAdvance, runAdjoint, runSpectra or runFused
	specTerm int // runSpectra: the term whose operand is transformed
	// boundsInPass: the bound terms' outputs (outs) are added in the pass
	// over the images (native); otherwise after it (addBoundTerms).
	boundsInPass bool
	active       []bool // the terms whose gradient the adjoint phase computes
	x            []F    // the step's iterates
	vs           [][]F  // g, then p: the terms' operands
	specs        [][]kernels.Complex[F]
	coef         []float64              // scalar terms: sign·θ
	outs         [][]float64            // bound terms: sign·G_θ v in float64
	ts           [][]kernels.Complex[F] // spectral terms: sign·θ̂ rounded to F
	xPlus        []F                    // x⁺
	r            []F                    // ∇f(x⁺)
	dots         [][]float64            // scalar terms: ⟨rk, vk⟩ per image
	// sums: the running sums of the spectral terms' Σk conj(v̂k)·r̂k in
	// float64 (partialSums.spectra), added in image order (prods) while the
	// images are transformed on every chunk.
	sums  [][]kernels.Complex[float64]
	prods *ordered.Sum[product]
	// held, when the engine holds its products for a later addTo (a block
	// whose running sums arrive after its pass: see linked), keeps r̂k of
	// every image.
	held    []kernels.Complex[F]
	n       int                // images
	stride  int                // chunks of the current run (interleaved phases)
	workers []*engineWorker[F] // per chunk
	// For runFused: the objective evaluated image by image, its values and
	// ∇f(x⁺) (nil without gradients).
	fused *problem.FusedObjective[F]
	vals  []float64
	rg    []F
}

// engineWorker is one chunk's FFT plan and scratch.
type engineWorker[F kernels.Float] struct {
	fft  *kernels.FFT2T[F]
	img  []F
	spec []kernels.Complex[F]
}

// The phases of engineRun.chunk.
const (
	runAdvance = iota // x⁺
	runAdjoint        // the active terms' image-wise adjoints of r
	runSpectra        // the spectra of the operands (setStep)
	runFused          // advance, objective and adjoint image by image (fused objectives)
)

// newEngine returns the evaluator of m's terms on o in precision F, or
// an error if a term or o has no path in F.
func newEngine[F kernels.Float](m models.Method, o *problem.Objective, opt engineOptions) (*engine[F], error) {
	kinds, binders := termKinds(m, opt.native, opt.graphOnly)
	var obj problem.ObjectiveT[F]
	if opt.native {
		var err error
		if obj, err = problem.NewObjectiveT[F](o); err != nil {
			return nil, fmt.Errorf("step loss in %s: %w; use --precision float64", precisionOf[F](), err)
		}
	} else if ob, ok := any(&objective64{o: o}).(problem.ObjectiveT[F]); ok {
		obj = ob
	} else {
		return nil, fmt.Errorf("step loss in %s: no objective (internal: float32 is always native)", precisionOf[F]())
	}
	hw, n := o.ImageLen(), o.N*o.ImageLen()
	r := &engineRun[F]{
		hw: hw, sl: o.H * (o.W/2 + 1), kinds: kinds,
		active: make([]bool, len(kinds)),
		x:      make([]F, n), xPlus: make([]F, n), r: make([]F, n),
		coef: make([]float64, len(kinds)), boundsInPass: opt.native,
		n: o.N,
	}
	for _, k := range kinds {
		var v []F // PS's operand (spectral terms keep only its spectra)
		if k == scalarTerm {
			v = make([]F, n)
		}
		r.vs = append(r.vs, v)
		r.outs = append(r.outs, nil) // made when a bound term needs it

		var sp, ts []kernels.Complex[F]
		var dots []float64
		switch k {
		case spectralTerm:
			sp, ts = make([]kernels.Complex[F], o.N*r.sl), make([]kernels.Complex[F], r.sl)
		case scalarTerm:
			dots = make([]float64, o.N)
		}
		r.specs, r.ts, r.dots = append(r.specs, sp), append(r.ts, ts), append(r.dots, dots)
	}
	s := &engine[F]{
		n: o.N, total: o.N, h: o.H, w: o.W, obj: obj, signs: termSigns[:len(kinds)], run: r,
		binders: binders, bounds: make([]models.Bound, len(kinds)),
		native: opt.native, refs: opt.refs, reducers: opt.reducers,
		outParams: make([][]float64, len(kinds)), outValid: make([]bool, len(kinds)),
		team: kernels.NewTeam(r.chunk),
		vals: make([]float64, o.N),
	}
	if r.spectral() { // θ's spectrum and the adjoints' inverse transforms
		r.prods = r.newProducts()
		s.plan64 = kernels.NewFFT2T[float64](o.H, o.W)
		s.spec64 = make([]kernels.Complex[float64], r.sl)
		s.img64 = make([]float64, hw)
	}
	s.cleanup = runtime.AddCleanup(s, func(t *kernels.Team) { t.Close() }, s.team)
	return s, nil
}

// newAffineEngine returns the float64 engine in the affine form of m's
// one-parameter terms (see affineForm), or nil if o has no analysis form.
func newAffineEngine(m models.Method, o *problem.Objective) *engine[float64] {
	a := newAffineForm(len(terms(m)), o)
	if a == nil {
		return nil
	}
	kinds, binders := termKinds(m, false, false)
	return &engine[float64]{
		n: o.N, total: o.N, h: o.H, w: o.W, signs: termSigns[:len(kinds)], affine: a,
		run:     &engineRun[float64]{kinds: kinds},
		binders: binders, bounds: make([]models.Bound, len(kinds)),
		outParams: make([][]float64, len(kinds)), outValid: make([]bool, len(kinds)),
	}
}

// growFloats returns b with length n, reallocated if too small.
func growFloats(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

// penaltyAdd returns w/2‖a − b‖² and adds w(a − b) to grad (if not nil).
func penaltyAdd(grad, a, b []float64, w float64) float64 {
	var s float64
	for i := range a {
		d := a[i] - b[i]
		s += d * d
		if grad != nil {
			grad[i] += w * d
		}
	}
	return 0.5 * w * s
}

// precisionOf names F.
func precisionOf[F kernels.Float]() Precision {
	var z F
	if _, ok := any(z).(float32); ok {
		return Float32
	}
	return Float64
}

// inPass reports whether the pass over the images has work beyond x⁺ = x:
// a term in F, or bound terms' outputs added in the pass.
func (r *engineRun[F]) inPass() bool {
	for _, k := range r.kinds {
		if k != boundTerm || r.boundsInPass {
			return true
		}
	}
	return false
}

// spectral reports whether any term is spectral.
func (r *engineRun[F]) spectral() bool {
	for _, k := range r.kinds {
		if k == spectralTerm {
			return true
		}
	}
	return false
}

// worker returns chunk c's worker, made on first use.
func (r *engineRun[F]) worker(c, h, w int) *engineWorker[F] {
	for len(r.workers) <= c {
		r.workers = append(r.workers, nil)
	}
	if r.workers[c] == nil && r.spectral() {
		r.workers[c] = &engineWorker[F]{fft: kernels.NewFFT2T[F](h, w), img: make([]F, h*w), spec: make([]kernels.Complex[F], r.sl)}
	}
	return r.workers[c]
}

// chunk runs the current phase on images [lo, hi) with chunk c's worker
// (made beforehand by prepare).
func (r *engineRun[F]) chunk(c, lo, hi int) {
	wk := r.workers[c]
	hw, sl := r.hw, r.sl
	switch r.phase {
	case runSpectra:
		i := r.specTerm
		for im := lo; im < hi; im++ {
			wk.fft.Forward(r.specs[i][im*sl:(im+1)*sl], r.vs[i][im*hw:(im+1)*hw])
		}
	case runAdvance:
		for im := lo; im < hi; im++ {
			r.advanceImage(wk, im)
		}
	case runAdjoint:
		// Interleaved (image c, c + stride, …), so that the chunks reach
		// the turn of their images at about the same time.
		for im := range ordered.Stride(c, r.stride, r.n) {
			r.adjointImage(wk, im)
		}
	case runFused:
		// Image by image, while its data are in cache: x⁺, f and ∇f at x⁺
		// (the fused objective, this chunk's scratch), the adjoints. The
		// operations and their order per image are those of the three
		// phases above. Interleaved as runAdjoint.
		for im := range ordered.Stride(c, r.stride, r.n) {
			r.advanceImage(wk, im)
			r.fused.EvalImages(c, r.vals, r.rg, r.xPlus, im, im+1)
			if r.rg != nil {
				r.adjointImage(wk, im)
			}
		}
	}
}

// advanceImage writes x⁺ of image im.
func (r *engineRun[F]) advanceImage(wk *engineWorker[F], im int) {
	hw, sl := r.hw, r.sl
	a, b := im*hw, (im+1)*hw
	x, xp := r.x[a:b], r.xPlus[a:b]
	var img []F
	if wk != nil {
		spec := wk.spec
		clear(spec)
		for i, k := range r.kinds {
			if k != spectralTerm {
				continue
			}
			addProduct(spec, r.ts[i], r.specs[i][im*sl:(im+1)*sl])
		}
		wk.fft.Inverse(wk.img, spec)
		img = wk.img[:len(x)]
	}
	r.combine(xp, x, img, a)
}

// startRun prepares a run of the interleaved phases on chunks chunks: the
// spectral terms' products are added to acc's sums, from image 0 on.
func (r *engineRun[F]) startRun(chunks int, acc *partialSums) {
	r.stride = chunks
	r.sums = nil
	if acc != nil {
		r.sums = acc.spectra
		if r.prods != nil {
			r.prods.Start(r.n)
			r.prods.Reserve(2 * chunks)
		}
	}
}

// product is one image's conj(v̂)·r̂ for each active spectral term.
type product struct{ spec [2][]kernels.Complex[float64] }

// newProducts returns the ordered sum of the spectral terms' products into
// r.sums.
func (r *engineRun[F]) newProducts() *ordered.Sum[product] {
	return ordered.NewSum(func() *product {
		p := new(product)
		for i, k := range r.kinds {
			if k == spectralTerm {
				p.spec[i] = make([]kernels.Complex[float64], r.sl)
			}
		}
		return p
	}, func(p *product) {
		for i, k := range r.kinds {
			if k == spectralTerm && r.active[i] {
				addComplex(r.sums[i], p.spec[i])
			}
		}
	})
}

// addComplex adds src to dst, elementwise.
func addComplex(dst, src []kernels.Complex[float64]) {
	src = src[:len(dst)]
	for q, v := range src {
		dst[q].Re += v.Re
		dst[q].Im += v.Im
	}
}

// addHeld adds the held products conj(v̂k)·r̂k of the active spectral terms
// to acc, image by image in order.
func (r *engineRun[F]) addHeld(acc *partialSums) {
	sl := r.sl
	for im := range r.n {
		for i, k := range r.kinds {
			if k == spectralTerm && r.active[i] {
				accumulateConjProduct(acc.spectra[i], r.specs[i][im*sl:(im+1)*sl], r.held[im*sl:(im+1)*sl])
			}
		}
	}
}

// adjointImage adds image im's part of the active terms' adjoints of r: its
// inner products (scalar terms) and conj(v̂)·r̂ (spectral terms, one forward
// FFT of r shared by them, added to the terms' sums in image order by
// prods, or held for addTo).
func (r *engineRun[F]) adjointImage(wk *engineWorker[F], im int) {
	hw, sl := r.hw, r.sl
	rk := r.r[im*hw : (im+1)*hw]
	needFFT := false
	for i, k := range r.kinds {
		if !r.active[i] || k == boundTerm {
			continue // bound terms: after the pass, on the whole batch
		}
		if k == spectralTerm {
			needFFT = true
			continue
		}
		r.dots[i][im] = kernels.DotT(rk, r.vs[i][im*hw:(im+1)*hw])
	}
	if !needFFT {
		return
	}
	if r.sums == nil { // held for addHeld
		wk.fft.Forward(r.held[im*sl:(im+1)*sl], rk)
		return
	}
	wk.fft.Forward(wk.spec, rk)
	// Added directly when the images before it are added (Claim), else
	// published in a reserved buffer; with none free, it waits its turn.
	p := (*product)(nil)
	for !r.prods.Claim(im) {
		if p = r.prods.TryBuffer(); p != nil {
			break
		}
		runtime.Gosched()
	}
	if p == nil {
		for i, k := range r.kinds {
			if k == spectralTerm && r.active[i] {
				accumulateConjProduct(r.sums[i], r.specs[i][im*sl:(im+1)*sl], wk.spec)
			}
		}
		r.prods.Release(im)
		return
	}
	for i, k := range r.kinds {
		if k == spectralTerm && r.active[i] {
			clear(p.spec[i])
			accumulateConjProduct(p.spec[i], r.specs[i][im*sl:(im+1)*sl], wk.spec)
		}
	}
	r.prods.Put(im, p)
}

// combine writes x⁺ = x + img + Σ (scalar terms) c_i·v_i for the image
// starting at a, summed in float64 and rounded once to F (with img alone, the
// F sum x + img is that rounding).
func (r *engineRun[F]) combine(xp, x, img []F, a int) {
	var sc [2][]F
	var c [2]float64
	var bo [2][]float64
	ns, nb := 0, 0
	for i, k := range r.kinds {
		switch k {
		case scalarTerm:
			sc[ns], c[ns] = r.vs[i][a:a+len(x)], r.coef[i]
			ns++
		case boundTerm:
			if r.outs[i] != nil && r.boundsInPass {
				bo[nb] = r.outs[i][a : a+len(x)]
				nb++
			}
		}
	}
	if nb > 0 {
		r.combineBound(xp, x, img, sc[:ns], c[:ns], bo[:nb])
		return
	}
	switch {
	case ns == 0 && img == nil:
		copy(xp, x)
	case ns == 0 && is32[F]() && addImages32 != nil:
		addImages32(as32(xp), as32(x), as32(img))
	case ns == 0:
		img = img[:len(x)]
		for j, v := range x {
			xp[j] = v + img[j]
		}
	case ns == 1 && img == nil:
		v0 := sc[0][:len(x)]
		for j, v := range x {
			xp[j] = F(float64(v) + c[0]*float64(v0[j]))
		}
	case ns == 2 && img == nil && is32[F]() && combineScalars32 != nil:
		combineScalars32(as32(xp), as32(x), as32(sc[0]), as32(sc[1]), c[0], c[1])
	case ns == 2 && img == nil:
		v0, v1 := sc[0][:len(x)], sc[1][:len(x)]
		for j, v := range x {
			xp[j] = F(float64(v) + c[0]*float64(v0[j]) + c[1]*float64(v1[j]))
		}
	default:
		for j, v := range x {
			s := float64(v)
			if img != nil {
				s += float64(img[j])
			}
			for q := range ns {
				s += c[q] * float64(sc[q][j])
			}
			xp[j] = F(s)
		}
	}
}

// combineBound is combine with bound terms, whose outputs bo (float64) are
// added after the terms in F.
func (r *engineRun[F]) combineBound(xp, x, img []F, sc [][]F, c []float64, bo [][]float64) {
	for j, v := range x {
		s := float64(v)
		if img != nil {
			s += float64(img[j])
		}
		for q := range sc {
			s += c[q] * float64(sc[q][j])
		}
		for _, b := range bo {
			s += b[j]
		}
		xp[j] = F(s)
	}
}

// Vector kernels for float32 spectra, set by vector_amd64.go on an AVX2
// CPU outside a purego build (nil otherwise). They perform the
// scalar loops' operations in their order in every lane: the results are
// bitwise equal.
var (
	addProduct32            func(dst, t, v []kernels.Complex[float32])
	accumulateConjProduct32 func(acc []kernels.Complex[float64], v, z []kernels.Complex[float32])
	combineScalars32        func(xp, x, v0, v1 []float32, c0, c1 float64)
	addImages32             func(xp, x, img []float32)
)

// complex32 views s as []kernels.Complex[float32]; only for 4-byte F.
func complex32[F kernels.Float](s []kernels.Complex[F]) []kernels.Complex[float32] {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*kernels.Complex[float32])(unsafe.Pointer(&s[0])), len(s))
}

// as32 views s as []float32; only for 4-byte F.
func as32[F kernels.Float](s []F) []float32 {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&s[0])), len(s))
}

// is32 reports whether F is a 4-byte float (a constant per instantiation).
func is32[F kernels.Float]() bool {
	var z F
	return unsafe.Sizeof(z) == 4
}

// addProduct adds t·v to dst, elementwise.
func addProduct[F kernels.Float](dst, t, v []kernels.Complex[F]) {
	if is32[F]() && addProduct32 != nil {
		addProduct32(complex32(dst), complex32(t), complex32(v))
		return
	}
	t, v = t[:len(dst)], v[:len(dst)]
	for q := range dst {
		a, b := t[q], v[q]
		dst[q].Re += a.Re*b.Re - a.Im*b.Im
		dst[q].Im += a.Re*b.Im + a.Im*b.Re
	}
}

// accumulateConjProduct adds conj(v)·z to acc in float64, elementwise.
func accumulateConjProduct[F kernels.Float](acc []kernels.Complex[float64], v, z []kernels.Complex[F]) {
	if is32[F]() && accumulateConjProduct32 != nil {
		accumulateConjProduct32(acc, complex32(v), complex32(z))
		return
	}
	v, z = v[:len(acc)], z[:len(acc)]
	for q := range acc {
		ar, ai := float64(v[q].Re), float64(v[q].Im)
		zr, zi := float64(z[q].Re), float64(z[q].Im)
		acc[q].Re += ar*zr + ai*zi
		acc[q].Im += ar*zi - ai*zr
	}
}

// prepare makes the workers of the chunks a run over the images will use.
func (s *engine[F]) prepare() {
	chunks := kernels.ParallelChunks(s.n, nil)
	for c := 0; c < chunks; c++ {
		s.run.worker(c, s.h, s.w)
	}
}

// kind implements stepEvaluator: fused-float32 (fused-float64 for the
// native float64 test path); in float64, affine, graph (a term runs its
// graph), reduced (a term is reduced) or bound.
func (s *engine[F]) kind() string {
	switch {
	case s.dev != nil:
		return "device"
	case s.objectiveOn != nil:
		return "device-graph"
	case s.native:
		return "fused-" + string(precisionOf[F]())
	case s.affine != nil:
		return "affine"
	}
	for _, b := range s.binders {
		if _, ok := b.(*models.GraphBinder); ok {
			return "graph"
		}
	}
	if s.reducers != nil {
		return "reduced"
	}
	return "bound"
}

// deviceObjective is StepLoss.DeviceObjective: the device pass's, or the
// device that evaluates obj; nil on the CPU.
func (s *engine[F]) deviceObjective() (problem.BatchEvaluator, error) {
	switch {
	case s.dev != nil:
		return s.dev.objective()
	case s.objectiveOn != nil:
		return s.objectiveOn, nil
	}
	return nil, nil
}

// close implements stepEvaluator.
func (s *engine[F]) close() error {
	if s.dev != nil {
		s.dev.close()
	}
	if s.objectiveOn != nil {
		defer s.objectiveOn.Close()
	}
	if s.team != nil {
		s.cleanup.Stop() // the runtime then holds nothing of the run
		s.team.Close()
		s.obj.Close()
	}
	var errs []error
	for _, b := range s.binders {
		if g, ok := b.(*models.GraphBinder); ok {
			errs = append(errs, g.Close())
		}
	}
	return errors.Join(errs...)
}

// setStep implements stepEvaluator: x, g and p are rounded to F, the bound
// terms bound (reduced ones in the coordinates of their reduction, their
// reference step folded into x), and the spectral terms' operands
// transformed. The reductions are returned (nil without reduced terms).
func (s *engine[F]) setStep(x, g, p []float64) ([]models.Reduction, error) {
	if s.dev != nil {
		return nil, s.dev.load(x, g, p)
	}
	r := s.run
	clear(s.outValid)
	x64, reds, err := s.bindTerms(x, g, p)
	if err != nil {
		return nil, err
	}
	if s.affine != nil {
		err := s.affine.load(x, s.bounds)
		clear(s.bounds) // the directions are all the affine form needs
		if err != nil {
			return nil, err
		}
		s.loaded = true
		return nil, nil
	}
	kernels.Convert(r.x, x64)
	for i, k := range r.kinds {
		v := [2][]float64{g, p}[i]
		switch k {
		case scalarTerm:
			kernels.Convert(r.vs[i], v)
		case spectralTerm:
			// The operand's spectra; the operand itself is not kept (r.xPlus
			// serves as scratch for its F values).
			if vf, ok := any(v).([]F); ok {
				r.vs[i] = vf
			} else {
				kernels.Convert(r.xPlus, v)
				r.vs[i] = r.xPlus
			}
			s.prepare()
			r.phase, r.specTerm = runSpectra, i
			s.team.Run(s.n)
			r.vs[i] = nil
		}
	}
	s.loaded = true
	return reds, nil
}

// bindTerms binds the bound terms to g and p (rounded to F) and returns x
// with the reduced terms' reference steps folded in (x itself without
// them), and the reductions.
func (s *engine[F]) bindTerms(x, g, p []float64) ([]float64, []models.Reduction, error) {
	var reds []models.Reduction
	for i, b := range s.binders {
		if b == nil {
			continue
		}
		v := [2][]float64{g, p}[i]
		if _, ok := any(v).([]F); !ok {
			// Bound to the operand rounded to F, as the terms in F see it.
			s.v64 = growFloats(s.v64, len(v))
			for j, e := range v {
				s.v64[j] = float64(F(e))
			}
			v = s.v64
		}
		bd, err := b.Bind(v, s.n, s.h, s.w)
		if err != nil {
			return nil, nil, fmt.Errorf("step loss: %w", err)
		}
		s.bounds[i] = bd
		if s.reducers == nil || s.reducers[i] == nil {
			continue
		}
		if reds == nil {
			reds = make([]models.Reduction, len(s.binders))
			x = append(s.x64[:0], x...)
			s.x64 = x
		}
		// x ← x ± G_θ̃ v, then work in the reduction's coordinates.
		if err := bd.AddApply(x, s.refs[i], s.signs[i]); err != nil {
			return nil, nil, fmt.Errorf("step loss: %w", err)
		}
		red, err := s.reduce(i, v)
		if err != nil {
			return nil, nil, fmt.Errorf("step loss: %w", err)
		}
		reds[i], s.bounds[i] = red, red
	}
	return x, reds, nil
}

// reduce returns reduced term i's reduction for the step's operand v: of
// the engine's functions, or, for a block (gather), of every block's
// functions restricted to this block's.
func (s *engine[F]) reduce(i int, v []float64) (models.Reduction, error) {
	if s.gather == nil {
		return s.reducers[i].Reduce(v, s.n, s.h, s.w)
	}
	all, at, err := s.gather(v)
	if err != nil {
		return nil, fmt.Errorf("gathering the blocks' operands: %w", err)
	}
	hw := s.h * s.w
	red, err := s.reducers[i].Reduce(all, len(all)/hw, s.h, s.w)
	if err != nil {
		return nil, err
	}
	return red.Restrict(at/hw, at/hw+s.n)
}

// gatherOperands makes the engine a block whose reduced terms gather every
// block's operands (see engine.gather).
func (s *engine[F]) gatherOperands(g func(local []float64) ([]float64, int, error)) {
	s.gather = g
}

// setParams loads the parameters of every term for an advance.
func (s *engine[F]) setParams(params [][]float64) error {
	r := s.run
	for i, k := range r.kinds {
		th := params[i]
		if k == boundTerm {
			if s.native {
				if _, err := s.boundOutput(i, th); err != nil {
					return err
				}
			}
			continue
		}
		if k == scalarTerm {
			if len(th) != 1 {
				return fmt.Errorf("step loss: term %d has %d parameters, want 1", i, len(th))
			}
			r.coef[i] = s.signs[i] * th[0]
			continue
		}
		if len(th) != s.h*s.w {
			return fmt.Errorf("step loss: pc term %d has %d parameters, want %d (%d×%d)", i, len(th), s.h*s.w, s.h, s.w)
		}
		if s.outValid[i] && slices.Equal(th, s.outParams[i]) {
			continue // its spectrum is held (a frozen term in block mode)
		}
		s.plan64.Forward(s.spec64, th)
		c := s.signs[i]
		for q, t := range s.spec64 {
			r.ts[i][q] = kernels.Complex[F]{Re: F(c * t.Re), Im: F(c * t.Im)}
		}
		s.outParams[i] = append(s.outParams[i][:0], th...)
		s.outValid[i] = true
	}
	return nil
}

// boundOutput returns bound term i's contribution sign·G_θ v at θ = th in
// run.outs[i], computed unless it holds it already.
func (s *engine[F]) boundOutput(i int, th []float64) ([]float64, error) {
	out := s.run.outs[i]
	if s.outValid[i] && slices.Equal(th, s.outParams[i]) {
		return out, nil
	}
	out = growFloats(out, s.n*s.h*s.w)
	s.run.outs[i] = out
	clear(out)
	if err := s.bounds[i].AddApply(out, th, s.signs[i]); err != nil {
		s.outValid[i] = false
		return nil, fmt.Errorf("step loss: %w", err)
	}
	s.outParams[i] = append(s.outParams[i][:0], th...)
	s.outValid[i] = true
	return out, nil
}

// addBoundTerms adds the bound terms to x⁺ in term order after the pass
// over the images (not native: float64): each by its AddApply, as the
// family defines it, or, for a term frozen in block mode, its output held
// for its parameters (boundOutput).
func (s *engine[F]) addBoundTerms(params, grads [][]float64) error {
	xp, _ := any(s.run.xPlus).([]float64)
	for i, k := range s.run.kinds {
		if k != boundTerm {
			continue
		}
		if grads != nil && grads[i] == nil { // frozen
			out, err := s.boundOutput(i, params[i])
			if err != nil {
				return err
			}
			kernels.ParallelFor(len(xp), func(lo, hi int) {
				for j, v := range out[lo:hi] {
					xp[lo+j] += v
				}
			})
			continue
		}
		s.outValid[i] = false // the bound operator now holds params[i]
		if err := s.bounds[i].AddApply(xp, params[i], s.signs[i]); err != nil {
			return fmt.Errorf("step loss: %w", err)
		}
	}
	return nil
}

// load checks that a step is loaded and sets the parameters of an
// evaluation.
func (s *engine[F]) load(params [][]float64) error {
	if !s.loaded {
		return fmt.Errorf("step loss: SetStep was not called")
	}
	if err := s.setParams(params); err != nil {
		return err
	}
	s.prepare()
	return nil
}

// advance writes x⁺ for params into run.xPlus (grads: see addBoundTerms).
func (s *engine[F]) advance(params, grads [][]float64) error {
	if err := s.load(params); err != nil {
		return err
	}
	if s.run.inPass() {
		s.run.phase = runAdvance
		s.team.Run(s.n)
	} else {
		copy(s.run.xPlus, s.run.x) // only bound terms, added below
	}
	if !s.native {
		return s.addBoundTerms(params, grads)
	}
	return nil
}

// next implements stepEvaluator.
func (s *engine[F]) next(dst []float64, params [][]float64) error {
	if s.affine != nil {
		return s.affine.next(dst, params)
	}
	if s.dev != nil {
		return s.dev.next(dst, params)
	}
	if err := s.advance(params, nil); err != nil {
		return err
	}
	kernels.Convert(dst, s.run.xPlus)
	return nil
}

// evaluate returns the mean of fk(xk⁺) and, for the terms with grads[i] not
// nil, adds their gradients: the engine's functions are the whole set, one
// shard.
func (s *engine[F]) evaluate(params, grads [][]float64) (float64, error) {
	acc := s.startSums(grads)
	if err := s.accumulate(params, grads, acc); err != nil {
		return 0, err
	}
	return s.finish(acc, grads), nil
}

// accumulate adds the engine's functions' contributions to the running sums
// acc, in function order (see partialSums): their values fk(xk⁺) and, for
// the terms with grads[i] not nil, their adjoints. grads only says which
// terms are active: the bound terms add to acc.grads.
func (s *engine[F]) accumulate(params, grads [][]float64, acc *partialSums) error {
	if err := s.pass(params, grads, acc); err != nil {
		return err
	}
	return s.addTo(grads, acc)
}

// pass does the per-function work of an evaluation: x⁺, fk and, for the
// active terms, the image-wise adjoints. The spectral terms' products are
// added to acc during the pass, or, when the engine holds them (acc nil),
// their r̂k are kept for addTo.
func (s *engine[F]) pass(params, grads [][]float64, acc *partialSums) error {
	if s.affine != nil {
		return s.affine.pass(params, grads)
	}
	if s.dev != nil {
		return s.dev.pass(params, grads)
	}
	r := s.run
	var rg []F
	if grads != nil {
		rg = r.r
	}
	for i := range r.kinds {
		r.active[i] = grads != nil && grads[i] != nil
	}
	if fo, ok := s.obj.(*problem.FusedObjective[F]); ok && !s.unfused {
		if err := s.load(params); err != nil {
			return err
		}
		// One pass over the images: x⁺, f, ∇f and the adjoints.
		chunks := kernels.ParallelChunks(s.n, nil)
		fo.Workers(chunks)
		r.startRun(chunks, acc)
		r.phase, r.fused, r.vals, r.rg = runFused, fo, s.vals, rg
		s.team.Run(s.n)
		r.fused, r.vals, r.rg = nil, nil, nil
	} else {
		if err := s.advance(params, grads); err != nil {
			return err
		}
		if err := s.obj.Eval(s.vals, rg, r.xPlus); err != nil {
			return fmt.Errorf("step loss: %w", err)
		}
		if grads != nil && r.inPass() {
			r.startRun(kernels.ParallelChunks(s.n, nil), acc)
			r.phase = runAdjoint
			s.team.Run(s.n)
		}
	}
	return nil
}

// addTo adds what the last pass left to the running sums acc, function by
// function: the values, the held spectral products (when the pass held
// them), the scalar terms' inner products, the bound terms' AddAdjoint
// (weighted sign/N inside, as each family applies its weight).
func (s *engine[F]) addTo(grads [][]float64, acc *partialSums) error {
	if s.affine != nil {
		s.affine.addTo(acc)
		return nil
	}
	if s.dev != nil {
		return s.dev.addTo(grads, acc, s.total)
	}
	r := s.run
	for _, v := range s.vals {
		acc.value += v
	}
	if grads == nil {
		return nil
	}
	if r.held != nil {
		r.addHeld(acc)
	}
	for i, k := range r.kinds {
		if grads[i] == nil {
			continue
		}
		switch k {
		case boundTerm:
			r64, ok := any(r.r).([]float64)
			if !ok {
				s.r64 = growFloats(s.r64, len(r.r))
				kernels.Convert(s.r64, r.r)
				r64 = s.r64
			}
			var err error
			if sb := s.summed(i); sb != nil {
				err = sb.AddSum(acc.sums[i], r64, s.total)
			} else {
				err = s.bounds[i].AddAdjoint(acc.grads[i], r64, s.signs[i]/float64(s.total))
			}
			if err != nil {
				return fmt.Errorf("step loss: %w", err)
			}
		case scalarTerm:
			for _, v := range r.dots[i] {
				acc.dots[i] += v
			}
		}
	}
	return nil
}

// finish returns the mean value of the complete sums acc and adds each
// active term's gradient, sign/N times its adjoint, to grads[i]: the scalar
// terms' sums, the spectral terms' sums transformed back (the bound terms
// added theirs to grads[i] already).
func (s *engine[F]) finish(acc *partialSums, grads [][]float64) float64 {
	inv := 1 / float64(s.total)
	if s.affine != nil {
		return s.affine.finish(acc, grads, inv)
	}
	if grads == nil {
		return acc.value * inv
	}
	for i, k := range s.run.kinds {
		if grads[i] == nil {
			continue
		}
		c := s.signs[i] * inv
		switch k {
		case scalarTerm:
			grads[i][0] += c * acc.dots[i]
		case spectralTerm:
			s.plan64.Inverse(s.img64, acc.spectra[i])
			for j, v := range s.img64 {
				grads[i][j] += c * v
			}
		case boundTerm:
			if sb := s.summed(i); sb != nil {
				sb.FinishSum(grads[i], acc.sums[i], s.signs[i]/float64(s.total)) // c as AddAdjoint takes it
			}
		}
	}
	return acc.value * inv
}

// eval implements stepEvaluator. In block mode the frozen term's adjoint is
// not computed; its contribution to x⁺ is (it costs one product per pixel of
// a spectrum, or one multiply–add per pixel).
func (s *engine[F]) eval(params, grads [][]float64) (float64, error) {
	return s.evaluate(params, grads)
}

// bytes implements stepEvaluator.
func (s *engine[F]) bytes() (t int64) {
	switch {
	case s.affine != nil:
		return s.affine.bytes()
	case s.dev != nil:
		return s.dev.bytes()
	case s.objectiveOn != nil:
		defer func() { t += s.objectiveOn.Bytes() }()
	}
	var z F
	size := int64(8)
	if _, ok := any(z).(float32); ok {
		size = 4
	}
	r := s.run
	t = size * int64(len(r.x)+len(r.xPlus)+len(r.r))
	for i := range r.kinds {
		t += size * int64(len(r.vs[i])+2*len(r.specs[i])+2*len(r.ts[i]))
		t += 8 * int64(len(r.dots[i])+len(r.outs[i]))
		if s.bounds[i] != nil {
			t += s.bounds[i].Bytes()
		}
	}
	t += 8 * int64(len(s.v64)+len(s.r64)+len(s.x64))
	t += 2 * size * int64(len(r.held))
	if r.prods != nil { // the reserved products: one spectrum per spectral term
		for _, k := range r.kinds {
			if k == spectralTerm {
				t += 16 * int64(r.sl) * int64(r.prods.Made())
			}
		}
	}
	for _, wk := range r.workers {
		if wk == nil {
			continue
		}
		t += size * int64(len(wk.img)+2*len(wk.spec))
	}
	return t + 16*int64(len(s.spec64)) + 8*int64(len(s.img64)+len(s.vals))
}

package kernels

// FFTPool runs FFT work on the images of a batch in parallel: each chunk of
// images gets an FFTWorker, a plan with scratch space kept between runs.
// An FFTPool is not safe for concurrent use.
type FFTPool struct {
	H, W    int
	workers []*FFTWorker
}

// FFTWorker is one worker's transform and scratch space.
type FFTWorker struct {
	*FFT2
	// Image is scratch for one H×W image, Spectrum for one spectrum.
	Image    []float64
	Spectrum []complex128
	acc      [][]complex128
}

// Accumulators returns m zeroed spectra kept by the worker, for reductions
// over its images.
func (w *FFTWorker) Accumulators(m int) [][]complex128 {
	for len(w.acc) < m {
		w.acc = append(w.acc, make([]complex128, len(w.Spectrum)))
	}
	for _, a := range w.acc[:m] {
		clear(a)
	}
	return w.acc[:m]
}

// Accumulator returns the worker's accumulator j as the last run left it.
func (w *FFTWorker) Accumulator(j int) []complex128 { return w.acc[j] }

// NewFFTPool returns a pool of workers for h×w images.
func NewFFTPool(h, w int) *FFTPool { return &FFTPool{H: h, W: w} }

// SpectrumLen is the number of complex values of one spectrum, H·(W/2+1).
func (p *FFTPool) SpectrumLen() int { return p.H * (p.W/2 + 1) }

// Run calls body(w, lo, hi) on parallel chunks covering [0, n), chunk i with
// Worker(i), and returns the number of chunks. Chunks depend only on n and
// GOMAXPROCS, so reductions over workers in chunk order are deterministic.
func (p *FFTPool) Run(n int, body func(w *FFTWorker, lo, hi int)) int {
	chunks := ParallelChunks(n, nil)
	for len(p.workers) < chunks {
		p.workers = append(p.workers, &FFTWorker{
			FFT2:     NewFFT2(p.H, p.W),
			Image:    make([]float64, p.H*p.W),
			Spectrum: make([]complex128, p.SpectrumLen()),
		})
	}
	ParallelChunks(n, func(chunk, lo, hi int) { body(p.workers[chunk], lo, hi) })
	return chunks
}

// Worker returns the worker of chunk i of the last Run.
func (p *FFTPool) Worker(i int) *FFTWorker { return p.workers[i] }

// Forward writes the spectra of the images of x [N,H,W] into dst [N,H,W/2+1].
func (p *FFTPool) Forward(dst []complex128, x []float64) {
	hw, sl := p.H*p.W, p.SpectrumLen()
	p.Run(len(x)/hw, func(w *FFTWorker, lo, hi int) {
		for n := lo; n < hi; n++ {
			w.Forward(dst[n*sl:(n+1)*sl], x[n*hw:(n+1)*hw])
		}
	})
}

// Bytes is the memory the workers hold.
func (p *FFTPool) Bytes() int64 {
	var t int64
	for _, w := range p.workers {
		t += int64(8*len(w.Image) + 16*len(w.Spectrum)*(1+len(w.acc)))
	}
	return t
}

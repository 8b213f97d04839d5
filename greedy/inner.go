package greedy

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/steploss"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
	G "gorgonia.org/gorgonia"
)

// Subproblem is what an inner solver sees of one greedy step.
type Subproblem struct {
	// Loss evaluates g and its gradient.
	Loss *steploss.StepLoss
	// Lipschitz returns a Lipschitz constant of ∇g restricted to block b
	// (0: θ, 1: φ), for constant-step methods: λ + L‖(1/N) Σk BkᵀBk‖ by
	// power iteration.
	Lipschitz func(b int) (float64, error)
	// PaperLipschitz returns the paper's bound λ + (1/N) Σk L‖Bk‖² for block
	// b (NAG with StepPaper).
	PaperLipschitz func(b int) (float64, error)
	// Quadratic reports that every fk is quadratic (least squares), so g is.
	Quadratic bool
	// Precond, if not nil, applies a symmetric positive definite P ≈ H^(−1/2)
	// (H the Hessian of g); LBFGS then works in z with u = u0 + P z.
	Precond func(dst, src []float64)
}

// InnerSolver minimises the step loss starting from u0 = (θ̃, φ̃).
type InnerSolver interface {
	Name() string
	Minimize(sp *Subproblem, u0 []float64) ([]float64, error)
}

// LBFGS minimises g over (θ, φ) jointly with gonum's L-BFGS and a line search
// satisfying the Wolfe conditions. It stops when ‖∇g(u)‖∞ ≤ RelTol·‖∇g(u0)‖∞,
// after MaxEvaluations evaluations of g, or when the line search makes no
// progress.
type LBFGS struct {
	RelTol         float64 // default 1e-6
	MaxEvaluations int     // default 1000
	Memory         int     // default 10
}

// Name implements InnerSolver.
func (LBFGS) Name() string { return "lbfgs" }

// settings returns the tolerance, evaluation budget and memory with their
// defaults filled in.
func (s LBFGS) settings() (rel float64, maxEval, mem int) {
	rel, maxEval, mem = s.RelTol, s.MaxEvaluations, s.Memory
	if rel <= 0 {
		rel = 1e-6
	}
	if maxEval <= 0 {
		maxEval = 1000
	}
	if mem <= 0 {
		mem = 10
	}
	return rel, maxEval, mem
}

// Settings describes the solver's tolerance, budget and memory, e.g.
// "lbfgs(rel_tol=1e-06,max_evals=1000,memory=10,precond=true)".
func (s LBFGS) Settings(precond bool) string {
	rel, maxEval, mem := s.settings()
	return fmt.Sprintf("lbfgs(rel_tol=%g,max_evals=%d,memory=%d,precond=%t)", rel, maxEval, mem, precond)
}

// Minimize implements InnerSolver.
func (s LBFGS) Minimize(sp *Subproblem, u0 []float64) ([]float64, error) {
	rel, maxEval, mem := s.settings()
	loss := sp.Loss
	n := len(u0)
	// Work in z with u = u0 + P z (P = I without a preconditioner).
	precond := sp.Precond
	if precond == nil {
		precond = func(dst, src []float64) { copy(dst, src) }
	}
	u := make([]float64, n)
	gu := make([]float64, n)
	toU := func(z []float64) []float64 {
		precond(u, z)
		for i := range u {
			u[i] += u0[i]
		}
		return u
	}
	evalZ := func(z, grad []float64) (float64, error) {
		if grad == nil {
			return loss.Eval(toU(z), nil)
		}
		v, err := loss.Eval(toU(z), gu)
		if err != nil {
			return v, err
		}
		precond(grad, gu)
		return v, nil
	}
	z0 := make([]float64, n)
	g0 := make([]float64, n)
	if _, err := evalZ(z0, g0); err != nil {
		return nil, err
	}
	var gmax float64
	for _, v := range g0 {
		gmax = math.Max(gmax, math.Abs(v))
	}
	if gmax == 0 {
		return append([]float64(nil), u0...), nil
	}
	var evalErr error
	prob := optimize.Problem{
		Func: func(z []float64) float64 {
			v, err := evalZ(z, nil)
			if err != nil && evalErr == nil {
				evalErr = err
			}
			return v
		},
		Grad: func(grad, z []float64) {
			if _, err := evalZ(z, grad); err != nil && evalErr == nil {
				evalErr = err
			}
		},
	}
	settings := &optimize.Settings{
		GradientThreshold: rel * gmax,
		FuncEvaluations:   maxEval,
		Converger:         &optimize.FunctionConverge{Absolute: 0, Relative: 1e-15, Iterations: 50},
	}
	res, err := optimize.Minimize(prob, z0, settings, &optimize.LBFGS{Store: mem})
	if evalErr != nil {
		return nil, evalErr
	}
	if res == nil {
		return nil, fmt.Errorf("L-BFGS: %w", err)
	}
	// A failed line search near the optimum still leaves a usable point:
	// the caller checks it against the reference (BGD).
	return append([]float64(nil), toU(res.X)...), nil
}

// NAG is the paper's inner solver: Nesterov's accelerated gradient with constant
// step 1/L_b on each block b (θ, then φ). With a momentum block it alternates
// blocks of Iters iterations, repeated Rounds times; with G alone it runs one
// block. The defaults are the paper's budgets (Budget): G alone 5,000
// iterations (500 when θ is a single scalar); G and H 1,000 iterations on θ
// then on φ (100 for a scalar block), repeated 10 times.
//
// Step chooses L_b. StepExact (the default) is λ + L·‖(1/N) Σk BkᵀBk‖ by
// power iteration, Bk the linear map θ ↦ G_θ gk (φ ↦ H_φ pk); StepPaper is
// the paper's bound λ + (1/N) Σk L‖Bk‖², with ‖Bk‖ = ‖gk‖ (PS, PF), ‖gk‖∞
// (PP), max|DFT gk| (PC) and by power iteration for other types. The bound is
// never smaller, so StepPaper takes shorter steps; within a fixed budget the
// two stop at different points and regularise differently. StepClosed is
// StepExact with a PC block's curvature in closed form: the map is diagonal
// in the Fourier basis, ‖(1/N) Σk BkᵀBk‖ = max over ω of (1/N) Σk |ĝk(ω)|²
// (steploss.StepLoss.SpectralCurvature, from the spectra the step loss keeps),
// with no power iteration and no safety margin; other blocks as StepExact.
//
// Each iteration evaluates the loss in block mode (StepLoss.EvalBlock): the
// other block's term of x⁺ is computed once when the block starts and only
// the moving block's gradient is computed. NAG's iterates are a function of
// the gradients alone, and EvalBlock's are Eval's (bitwise on amd64), so the
// result is that of evaluating the whole loss every iteration: for M-PC on
// Problem 1 about 10% less work an evaluation (docs/benchmarks.md, "The
// paper's NAG protocol").
//
// Where the step loss runs on a device and the block is a PC term, a block's
// iterations run there (StepLoss.DescendBlock): the same iterations with
// NAG's vectors in device buffers, u copied in and read back once a block
// (bitwise the loop over EvalBlock on the CPU device; on CUDA in float32,
// an iteration one captured graph: docs/gpu-budget.md).
type NAG struct {
	Iters  int
	Rounds int
	Step   StepRule

	// fullEvals evaluates the whole loss and both gradients every
	// iteration (StepLoss.Eval), as before the block mode (tests,
	// benchmarks).
	fullEvals bool
	// hostIterates keeps the iterates on the host even where the step
	// loss could keep them on its device (StepLoss.DescendBlock; tests).
	hostIterates bool
}

// StepRule chooses the constant step of a first-order inner solver.
type StepRule string

const (
	// StepExact uses the exact block curvature by power iteration.
	StepExact StepRule = "exact"
	// StepPaper uses the paper's bound (1/N) Σk L‖Bk‖².
	StepPaper StepRule = "paper"
	// StepClosed is StepExact with a PC block's curvature in closed form.
	StepClosed StepRule = "closed"
)

// ParseStepRule returns the step rule named exact, paper or closed ("" is
// exact).
func ParseStepRule(s string) (StepRule, error) {
	switch StepRule(s) {
	case "", StepExact:
		return StepExact, nil
	case StepPaper, StepClosed:
		return StepRule(s), nil
	}
	return "", fmt.Errorf("unknown NAG step rule %q: use exact (power iteration), paper (the paper's bound) or closed (PC blocks in closed form)", s)
}

// Name implements InnerSolver.
func (NAG) Name() string { return "nag" }

// Settings describes the solver's budget and step rule for θ of thetaLen
// values and φ of phiLen (0 without momentum), e.g.
// "nag(iters=1000+1000,rounds=10,step=paper)".
func (s NAG) Settings(thetaLen, phiLen int) string {
	iters, rounds := s.Budget(thetaLen, phiLen)
	parts := make([]string, len(iters))
	for i, n := range iters {
		parts[i] = strconv.Itoa(n)
	}
	step := s.Step
	if step == "" {
		step = StepExact
	}
	return fmt.Sprintf("nag(iters=%s,rounds=%d,step=%s)", strings.Join(parts, "+"), rounds, step)
}

// Budget returns the iterations NAG spends on each block per round (θ, then
// φ when phiLen > 0) and the number of rounds.
func (s NAG) Budget(thetaLen, phiLen int) (iters []int, rounds int) {
	perBlock := func(n, scalar, other int) int {
		if s.Iters > 0 {
			return s.Iters
		}
		if n == 1 {
			return scalar
		}
		return other
	}
	if phiLen == 0 {
		// G alone: one block, no alternation.
		if s.Iters > 0 {
			return []int{s.Iters * max(s.Rounds, 1)}, 1
		}
		if s.Rounds > 0 {
			return []int{perBlock(thetaLen, 100, 1000) * s.Rounds}, 1
		}
		return []int{perBlock(thetaLen, 500, 5000)}, 1
	}
	rounds = s.Rounds
	if rounds <= 0 {
		rounds = 10
	}
	return []int{perBlock(thetaLen, 100, 1000), perBlock(phiLen, 100, 1000)}, rounds
}

// Minimize implements InnerSolver.
func (s NAG) Minimize(sp *Subproblem, u0 []float64) ([]float64, error) {
	loss := sp.Loss
	u := append([]float64(nil), u0...)
	nTheta := loss.ThetaLen()
	blocks := [][2]int{{0, nTheta}}
	if loss.Dim() > nTheta {
		blocks = append(blocks, [2]int{nTheta, loss.Dim()})
	}
	budget, rounds := s.Budget(nTheta, loss.Dim()-nTheta)
	lipschitz := sp.Lipschitz
	if s.Step == StepPaper {
		if sp.PaperLipschitz == nil {
			return nil, errors.New("NAG with the paper's step: the subproblem has no PaperLipschitz bound")
		}
		lipschitz = sp.PaperLipschitz
	} else if s.Step != "" && s.Step != StepExact && s.Step != StepClosed {
		return nil, fmt.Errorf("NAG: unknown step rule %q", s.Step)
	}
	steps := make([]float64, len(blocks))
	for b := range blocks {
		l, err := lipschitz(b)
		if err != nil {
			return nil, err
		}
		if l <= 0 {
			steps[b] = 0
			continue
		}
		steps[b] = 1 / l
	}
	grad := make([]float64, len(u))
	yv := make([]float64, len(u))
	prev := make([]float64, len(u))
	for r := 0; r < rounds; r++ {
		for b, blk := range blocks {
			if steps[b] == 0 {
				continue
			}
			if !s.fullEvals && !s.hostIterates {
				// The same iterations with the vectors on the loss's device.
				ok, err := loss.DescendBlock(b, u, steps[b], gpu.NAGBetas(budget[b]))
				if err != nil {
					return nil, err
				}
				if ok {
					continue
				}
			}
			lo, hi := blk[0], blk[1]
			// Only block b moves: the other entries of yv and prev stay u's.
			copy(prev, u)
			copy(yv, u)
			ub, pb, yb := u[lo:hi], prev[lo:hi], yv[lo:hi]
			gb := grad[lo:hi]
			tk := 1.0
			step := steps[b]
			for it := 0; it < budget[b]; it++ {
				tn := (1 + math.Sqrt(1+4*tk*tk)) / 2
				beta := (tk - 1) / tn
				nagExtrapolate(yb, ub, pb, beta)
				var err error
				if s.fullEvals {
					_, err = loss.Eval(yv, grad)
				} else {
					_, err = loss.EvalBlock(b, yv, gb)
				}
				if err != nil {
					return nil, err
				}
				nagStep(ub, pb, yb, gb, step)
				tk = tn
			}
		}
	}
	return u, nil
}

// nagExtrapolate writes y = u + β(u − prev). Elementwise: long blocks (PF's
// 1,600² parameters at 40×40) are split across cores at kernels.LargeLen,
// bitwise the same; short ones run in place and make no closure.
func nagExtrapolate(y, u, prev []float64, beta float64) {
	if len(u) < kernels.LargeLen {
		extrapolate(y, u, prev, beta, 0, len(u))
		return
	}
	kernels.ParallelFor(len(u), func(lo, hi int) { extrapolate(y, u, prev, beta, lo, hi) })
}

func extrapolate(y, u, prev []float64, beta float64, lo, hi int) {
	for i := lo; i < hi; i++ {
		y[i] = u[i] + beta*(u[i]-prev[i])
	}
}

// nagStep keeps u in prev and writes u = y − step·g, split as
// nagExtrapolate splits its work.
func nagStep(u, prev, y, g []float64, step float64) {
	if len(u) < kernels.LargeLen {
		descend(u, prev, y, g, step, 0, len(u))
		return
	}
	kernels.ParallelFor(len(u), func(lo, hi int) { descend(u, prev, y, g, step, lo, hi) })
}

func descend(u, prev, y, g []float64, step float64, lo, hi int) {
	for i := lo; i < hi; i++ {
		prev[i] = u[i]
		u[i] = y[i] - step*g[i]
	}
}

// Closed solves the step exactly when every fk is quadratic (least squares):
// the normal equations H (u − ũ) = −∇g(ũ), with H the Hessian of g. H is formed
// column by column from gradient differences and solved with a pseudoinverse
// (gonum/mat SVD) when the dimension is at most DenseMax (default 1024), and by
// conjugate gradients otherwise; both give the solution of least deviation
// from ũ when H is singular.
type Closed struct {
	DenseMax int
}

// Name implements InnerSolver.
func (Closed) Name() string { return "closed" }

// Minimize implements InnerSolver.
func (s Closed) Minimize(sp *Subproblem, u0 []float64) ([]float64, error) {
	if !sp.Quadratic {
		return nil, errors.New("the closed-form inner solver needs least-squares objectives (no regularizer): use --inner lbfgs or nag")
	}
	denseMax := s.DenseMax
	if denseMax <= 0 {
		denseMax = 1024
	}
	loss := sp.Loss
	n := len(u0)
	g0 := make([]float64, n)
	if _, err := loss.Eval(u0, g0); err != nil {
		return nil, err
	}
	// Hessian-vector product of the quadratic g: H v = ∇g(ũ + v) − ∇g(ũ).
	probe := make([]float64, n)
	gv := make([]float64, n)
	hessVec := func(dst, v []float64, scale float64) error {
		for i := range probe {
			probe[i] = u0[i] + scale*v[i]
		}
		if _, err := loss.Eval(probe, gv); err != nil {
			return err
		}
		for i := range dst {
			dst[i] = (gv[i] - g0[i]) / scale
		}
		return nil
	}
	delta := make([]float64, n)
	if n <= denseMax {
		h := mat.NewDense(n, n, nil)
		e := make([]float64, n)
		col := make([]float64, n)
		for j := 0; j < n; j++ {
			e[j] = 1
			if err := hessVec(col, e, 1); err != nil {
				return nil, err
			}
			e[j] = 0
			h.SetCol(j, col)
		}
		// symmetrise against rounding
		hs := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				hs.SetSym(i, j, (h.At(i, j)+h.At(j, i))/2)
			}
		}
		var svd mat.SVD
		if !svd.Factorize(hs, mat.SVDThin) {
			return nil, errors.New("closed form: SVD of the step Hessian failed")
		}
		vals := svd.Values(nil)
		var u, v mat.Dense
		svd.UTo(&u)
		svd.VTo(&v)
		cut := vals[0] * 1e-12 * float64(n)
		rhs := mat.NewVecDense(n, g0)
		tmp := mat.NewVecDense(n, nil)
		tmp.MulVec(u.T(), rhs)
		for i, sv := range vals {
			if sv > cut {
				tmp.SetVec(i, -tmp.AtVec(i)/sv)
			} else {
				tmp.SetVec(i, 0)
			}
		}
		out := mat.NewVecDense(n, delta)
		out.MulVec(&v, tmp)
	} else {
		if err := conjugateGradient(delta, g0, hessVec, n); err != nil {
			return nil, err
		}
	}
	res := make([]float64, n)
	for i := range res {
		res[i] = u0[i] + delta[i]
	}
	return res, nil
}

// conjugateGradient solves H x = −b from x = 0 to a relative residual of 1e-13.
func conjugateGradient(x, b []float64, hessVec func(dst, v []float64, scale float64) error, maxIter int) error {
	r := make([]float64, len(b))
	for i := range r {
		r[i] = -b[i]
	}
	p := append([]float64(nil), r...)
	hp := make([]float64, len(b))
	rr := kernels.Dot(r, r)
	stop := 1e-26 * rr
	for it := 0; it < maxIter && rr > stop; it++ {
		pn := math.Sqrt(kernels.Dot(p, p))
		if err := hessVec(hp, p, 1/pn); err != nil {
			return err
		}
		php := kernels.Dot(p, hp)
		if php <= 0 {
			break
		}
		a := rr / php
		for i := range x {
			x[i] += a * p[i]
			r[i] -= a * hp[i]
		}
		next := kernels.Dot(r, r)
		for i := range p {
			p[i] = r[i] + next/rr*p[i]
		}
		rr = next
	}
	return nil
}

// preconditioned says whether the inner solver may use Subproblem.Precond:
// NAG and Closed do not, and are spared building it every step.
func preconditioned(s InnerSolver) bool {
	switch s.(type) {
	case NAG, Closed:
		return false
	}
	return true
}

// ParseInner returns the inner solver named lbfgs, nag or closed.
func ParseInner(name string) (InnerSolver, error) {
	switch name {
	case "lbfgs", "":
		return LBFGS{}, nil
	case "nag":
		return NAG{}, nil
	case "closed":
		return Closed{}, nil
	}
	return nil, fmt.Errorf("unknown inner solver %q: use lbfgs, nag or closed", name)
}

// blockCurvature returns ‖(1/N) Σk Bkᵀ Bk‖ for the map θ ↦ (P_θ vk)k, by power
// iteration, through the parametrization's bound operator when it has one
// (models.Binder) and its graph otherwise. The estimate carries a 0.1%
// safety margin (1% if the iteration did not settle).
func blockCurvature(p models.Parametrization, v []float64, n, h, w int) (float64, error) {
	if b, ok := p.(models.Binder); ok {
		return boundCurvature(b, p.ParamShape(h, w).TotalSize(), v, n, h, w)
	}
	return graphCurvature(p, v, n, h, w)
}

// exactCurvature is blockCurvature of block b (0: θ by p = G, 1: φ by
// p = H) of the step loss, whose operands are v: where the loss runs on a
// device and the block is a PC term (StepLoss.GramDiagonal), the same
// power iteration runs on the map's diagonal in the Fourier basis, summed
// on the device (diagonalCurvature), instead of N products a iteration on
// the host. Elsewhere (the CPU paths) it is blockCurvature.
func exactCurvature(loss *steploss.StepLoss, b int, p models.Parametrization, v []float64, n, h, w int) (float64, error) {
	d, ok, err := loss.GramDiagonal(b)
	if err != nil {
		return 0, err
	}
	if ok {
		return diagonalCurvature(d, h, w)
	}
	return blockCurvature(p, v, n, h, w)
}

// diagonalCurvature is powerIteration, from its random start, of the map
// M = F⁻¹ diag(d) F on h×w images (F the unnormalised 2-D DFT, d real and
// non-negative on the half spectrum: the curvature map of a PC block), in
// the Fourier basis: the first product transforms the start x and writes,
// in its first H·(W/2+1) values, a vector of the same norm as Mx (each
// frequency's |x̂(ω)|·d(ω), weighted √(c/HW) by Parseval, c = 2 for a
// frequency that stands for its conjugate too), the rest zero; every later
// product multiplies by d. The phases do not matter to a diagonal map, so
// the norms, the estimate and the settling test are those of the
// iteration on images, to rounding.
func diagonalCurvature(d []float64, h, w int) (float64, error) {
	sl := w/2 + 1
	if len(d) != h*sl {
		return 0, fmt.Errorf("curvature: a diagonal of %d values, want %d for %d×%d images", len(d), h*sl, h, w)
	}
	first := true
	return powerIteration(h*w, func(x []float64) error {
		if first {
			first = false
			spec := make([]kernels.Complex[float64], h*sl)
			kernels.NewFFT2T[float64](h, w).Forward(spec, x)
			for q, c := range spec {
				weight := 2.0
				if j := q % sl; j == 0 || (w%2 == 0 && j == w/2) {
					weight = 1
				}
				x[q] = math.Sqrt(weight/float64(h*w)) * math.Hypot(c.Re, c.Im) * d[q]
			}
			clear(x[len(spec):])
			return nil
		}
		for q, dq := range d {
			x[q] *= dq
		}
		return nil
	})
}

// boundCurvature is blockCurvature through a bound operator.
func boundCurvature(b models.Binder, size int, v []float64, n, h, w int) (float64, error) {
	bd, err := b.Bind(v, n, h, w)
	if err != nil {
		return 0, err
	}
	y := make([]float64, len(v))
	return powerIteration(size, func(x []float64) error {
		clear(y)
		if err := bd.AddApply(y, x, 1); err != nil {
			return err
		}
		clear(x)
		return bd.AddAdjoint(x, y, 1/float64(n))
	})
}

// graphCurvature is blockCurvature through the parametrization's graph.
func graphCurvature(p models.Parametrization, v []float64, n, h, w int) (float64, error) {
	gr := G.NewGraph()
	ps := p.ParamShape(h, w)
	th := graph.Input(gr, "theta", ps...)
	vn := graph.Input(gr, "v", n, h, w)
	out, err := p.Apply(th, vn)
	if err != nil {
		return 0, err
	}
	q, err := G.Mul(G.Must(G.Sum(G.Must(G.Square(out)))), G.NewConstant(0.5/float64(n)))
	if err != nil {
		return 0, err
	}
	if _, err := G.Grad(q, th); err != nil {
		return 0, err
	}
	m := graph.NewMachine(gr, th)
	defer m.Close()
	if err := graph.Set(vn, v); err != nil {
		return 0, err
	}
	return powerIteration(ps.TotalSize(), graph.GradMap(m, th))
}

// powerIteration estimates the largest eigenvalue of the symmetric positive
// semidefinite map that apply computes in place (x ← Mx), from a fixed
// random start, with a 0.1% safety margin (1% if it did not settle in 200
// iterations).
func powerIteration(size int, apply func(x []float64) error) (float64, error) {
	lam, settled, err := curvatureIteration.Largest(size, apply)
	if settled {
		return lam * (1 + 1e-3), err
	}
	return lam * 1.01, err
}

var curvatureIteration = kernels.PowerIteration{Seed: [2]uint64{11, 13}, MaxIter: 200, MinIter: 5, RelTol: 1e-6}

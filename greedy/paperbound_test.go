package greedy

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/models"
)

// TestNAGBudgetIsThePapers checks that the default NAG spends the paper's
// budgets: G alone 500 (PS) or 5,000 iterations; G and H 100 (scalar) or
// 1,000 iterations a block, 10 rounds; explicit values override them.
func TestNAGBudgetIsThePapers(t *testing.T) {
	for _, c := range []struct {
		s            NAG
		theta, phi   int
		iters        []int
		rounds       int
		settings     string
		evaluationsN int
	}{
		{NAG{}, 1, 0, []int{500}, 1, "nag(iters=500,rounds=1,step=exact)", 500},
		{NAG{}, 96 * 96, 0, []int{5000}, 1, "nag(iters=5000,rounds=1,step=exact)", 5000},
		{NAG{}, 1, 1, []int{100, 100}, 10, "nag(iters=100+100,rounds=10,step=exact)", 2000},
		{NAG{Step: StepPaper}, 96 * 96, 96 * 96, []int{1000, 1000}, 10, "nag(iters=1000+1000,rounds=10,step=paper)", 20000},
		{NAG{Step: StepPaper}, 96 * 96, 1, []int{1000, 100}, 10, "nag(iters=1000+100,rounds=10,step=paper)", 11000},
		{NAG{Iters: 100, Rounds: 10}, 96 * 96, 96 * 96, []int{100, 100}, 10, "nag(iters=100+100,rounds=10,step=exact)", 2000},
		{NAG{Iters: 40, Rounds: 3}, 96 * 96, 0, []int{120}, 1, "nag(iters=120,rounds=1,step=exact)", 120},
	} {
		iters, rounds := c.s.Budget(c.theta, c.phi)
		if !slices.Equal(iters, c.iters) || rounds != c.rounds {
			t.Errorf("%+v on θ %d, φ %d: budget %v × %d rounds, want %v × %d", c.s, c.theta, c.phi, iters, rounds, c.iters, c.rounds)
		}
		if got := c.s.Settings(c.theta, c.phi); got != c.settings {
			t.Errorf("%+v: settings %q, want %q", c.s, got, c.settings)
		}
	}
}

// TestNAGEvaluationsMatchBudget runs NAG on a real step loss and counts the
// evaluations it makes (on parametrizations large enough that no iterate
// repeats, which the step loss would answer from its cache).
func TestNAGEvaluationsMatchBudget(t *testing.T) {
	o := deblurSet(t, 2, 8, 3)
	for _, c := range []struct {
		name string
		s    NAG
		want int
	}{
		{"m-pc", NAG{Iters: 7, Rounds: 3, Step: StepPaper}, 42},
		{"pc", NAG{Iters: 30}, 30},
		{"m-pp", NAG{Iters: 5, Rounds: 2}, 20},
	} {
		res, err := Train(o, Config{Method: Method{Param: method(t, c.name)}, Solver: Solver{Inner: c.s}, Stop: Stop{MaxSteps: 2}})
		if err != nil {
			t.Fatal(err)
		}
		// Step 1 (at step 0 the momentum direction is 0 and H has nothing to
		// learn); one reference and one final evaluation come on top.
		if got := res.Steps[1].Evaluations; got != c.want+2 {
			t.Errorf("%s with %+v: %d evaluations, want %d + 2", c.name, c.s, got, c.want)
		}
	}
}

// TestPaperCurvatureBound checks the paper's closed-form ‖Bk‖ against power
// iteration on each function alone, and that (1/N) Σk ‖Bk‖² bounds the exact
// curvature ‖(1/N) Σk BkᵀBk‖ from above (equal for PS, whose Bk are vectors).
func TestPaperCurvatureBound(t *testing.T) {
	const n, h, w = 3, 6, 5
	r := rand.New(rand.NewPCG(7, 8))
	v := make([]float64, n*h*w)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	for _, p := range []models.Parametrization{models.Scalar{}, models.Pointwise{}, models.NewFullConv(), models.Full{},
		models.SmallConv{K: 3, Boundary: kernels.Zero}} {
		paper, err := paperCurvature(p, v, n, h, w)
		if err != nil {
			t.Fatal(err)
		}
		var perFunction float64
		for k := 0; k < n; k++ {
			c, err := blockCurvature(p, v[k*h*w:(k+1)*h*w], 1, h, w)
			if err != nil {
				t.Fatal(err)
			}
			perFunction += c / n
		}
		if d := math.Abs(paper-perFunction) / perFunction; d > 1.2e-2 {
			t.Errorf("%s: closed-form (1/N)Σ‖Bk‖² = %.8g, power iteration %.8g (%.2g relative)", p.Name(), paper, perFunction, d)
		}
		exact, err := blockCurvature(p, v, n, h, w)
		if err != nil {
			t.Fatal(err)
		}
		switch p.(type) {
		case models.Scalar:
			if d := math.Abs(paper-exact) / exact; d > 2e-3 {
				t.Errorf("ps: bound %.8g and exact %.8g should agree (%.2g)", paper, exact, d)
			}
		default:
			if !(paper > 1.05*exact) {
				t.Errorf("%s: the paper's bound %.8g is not above the exact curvature %.8g", p.Name(), paper, exact)
			}
		}
	}
}

// TestStopWhenCertified trains with strong penalties (steps near τI, which
// both certificates accept at once) and without (M-PC's steps leave τI and
// neither certificate holds), with each certificate.
func TestStopWhenCertified(t *testing.T) {
	o := deblurSet(t, 3, 8, 5)
	for _, kind := range []learned.CertificateKind{learned.CertificatePaper, learned.CertificateLyapunov} {
		strong, err := ParseSchedule("1e4")
		if err != nil {
			t.Fatal(err)
		}
		res, err := Train(o, Config{
			Method: Method{Param: method(t, "m-ps"), Lambda: strong, Mu: strong},
			Stop:   Stop{MaxSteps: 5, WhenCertified: true, Certificate: kind},
			Store:  Store{KeepParams: true},
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Steps) != 1 || res.StopCause != "certified ("+string(kind)+")" {
			t.Errorf("%s, λ = μ = 1e4: %d steps, stop %q; want certified after 1", kind, len(res.Steps), res.StopCause)
		}
		tau := 1 / o.L
		e1, e2, err := learned.ParamNorms(method(t, "m-ps"), res.Theta[0], res.Phi[0], tau, o.H, o.W)
		if err != nil {
			t.Fatal(err)
		}
		if !learned.CertifyBoth(e1, e2, tau, o.L).Certified(kind) {
			t.Errorf("%s: stopped at a step whose certificate does not hold (ε1 %g, ε2 %g)", kind, e1, e2)
		}
		res, err = Train(o, Config{Method: Method{Param: method(t, "m-pc")}, Stop: Stop{MaxSteps: 4, TolRel: 1e30, WhenCertified: true, Certificate: kind}, Store: Store{KeepParams: true}})
		if err != nil {
			t.Fatal(err)
		}
		last := len(res.Theta) - 1
		e1, e2, err = learned.ParamNorms(method(t, "m-pc"), res.Theta[last], res.Phi[last], tau, o.H, o.W)
		if err != nil {
			t.Fatal(err)
		}
		certified := learned.CertifyBoth(e1, e2, tau, o.L).Certified(kind)
		if certified != strings.HasPrefix(res.StopCause, "certified") {
			t.Errorf("%s, λ = 0: stop %q after %d steps but the last step's certificate is %v (ε1 %g, ε2 %g)", kind, res.StopCause, len(res.Steps), certified, e1, e2)
		}
	}
}

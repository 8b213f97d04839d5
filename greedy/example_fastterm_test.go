package greedy_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/greedy"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/steploss"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// RowScale is a parametrization with a fast term of its own: one weight per
// image row, (G_θ v)[k,i,j] = θ_i v[k,i,j] (H parameters). Apply, its
// forward expression, defines it; Bind adds the bound map θ ↦ G_θ v and its
// adjoint written by hand, which the step loss then uses instead of the
// graph on every CPU backend (float64 and float32).
type RowScale struct{}

func (RowScale) Name() string { return "rowscale" }

func (RowScale) ParamShape(h, w int) tensor.Shape { return tensor.Shape{h} }

func (RowScale) Apply(theta, v *G.Node) (*G.Node, error) {
	rows, err := G.Reshape(theta, tensor.Shape{1, v.Shape()[1], 1})
	if err != nil {
		return nil, err
	}
	return G.BroadcastHadamardProd(rows, v, []byte{0, 2}, nil)
}

func (RowScale) Reference(tau float64, h, w int) []float64 {
	p := make([]float64, h)
	for i := range p {
		p[i] = tau
	}
	return p
}

// Bind implements models.Binder: the fast term.
func (RowScale) Bind(v []float64, n, h, w int) (models.Bound, error) {
	if len(v) != n*h*w {
		return nil, fmt.Errorf("rowscale: %d values are not %d images of %d×%d", len(v), n, h, w)
	}
	return &rowBound{v: append([]float64(nil), v...), n: n, h: h, w: w}, nil
}

// rowBound is RowScale's bound map for one batch v.
type rowBound struct {
	v       []float64
	n, h, w int
}

// AddApply adds c·θ_i v[k,i,j] to dst.
func (b *rowBound) AddApply(dst, theta []float64, c float64) error {
	if len(dst) != len(b.v) || len(theta) != b.h {
		return fmt.Errorf("rowscale: %d outputs and %d parameters, want %d and %d", len(dst), len(theta), len(b.v), b.h)
	}
	for q, v := range b.v {
		dst[q] += c * theta[q/b.w%b.h] * v
	}
	return nil
}

// AddAdjoint adds c·Σ_k,j v[k,i,j] r[k,i,j] to dst[i].
func (b *rowBound) AddAdjoint(dst, r []float64, c float64) error {
	if len(dst) != b.h || len(r) != len(b.v) {
		return fmt.Errorf("rowscale: %d parameters and %d cotangents, want %d and %d", len(dst), len(r), b.h, len(b.v))
	}
	for i := range dst {
		var s float64
		for k := range b.n {
			row := (k*b.h + i) * b.w
			for j := range b.w {
				s += b.v[row+j] * r[row+j]
			}
		}
		dst[i] += c * s
	}
	return nil
}

func (b *rowBound) Bytes() int64 { return int64(8 * len(b.v)) }

// ExampleRegister_fastTerm registers RowScale, a family with its own fast
// term (Bind, above), checks the term against its graph (models.GraphBinder,
// the oracle every term is tested against), and trains it for G (with a
// scalar momentum H) in float64 and in float32 through the same step-loss
// engine: the two runs learn nearly the same parameters.
func ExampleRegister_fastTerm() {
	err := models.Register(models.Registration{Name: "rowscale", Version: 1,
		Summary: "one weight per image row (H parameters), with its own bound term",
		New:     func(string) (models.Parametrization, error) { return RowScale{}, nil }})
	if err != nil && !errors.Is(err, models.ErrNameTaken) {
		fmt.Println(err)
		return
	}
	fmt.Println("bound term agrees with the graph:", agreesWithGraph(RowScale{}))

	method, _ := models.ParseMethod("rowscale:ps")
	prob, _ := problem.Deblur(problem.Options{H: 16})
	_, _, _, pix, _ := data.Stack(data.Synthetic(6, 16, 16, 7))
	train, _ := prob.Instantiate(pix, 6, 0)
	dir, _ := os.MkdirTemp("", "rowscale")
	defer os.RemoveAll(dir)
	thetas := map[steploss.Precision][]float64{}
	for _, prec := range []steploss.Precision{steploss.Float64, steploss.Float32} {
		out := filepath.Join(dir, string(prec))
		if _, err := greedy.Train(train, greedy.Config{
			Problem: greedy.Problem{Name: "deblur"},
			Method:  greedy.Method{Param: method, Lambda: greedy.Constant(1e-3), Mu: greedy.Constant(1e-3)},
			Target:  execution.CPU(prec),
			Stop:    greedy.Stop{MaxSteps: 4},
			Store:   greedy.Store{Dir: out},
		}); err != nil {
			fmt.Println(err)
			return
		}
		opt, _, err := learned.Load(out)
		if err != nil {
			fmt.Println(err)
			return
		}
		thetas[prec], _, _ = opt.Params(opt.Steps - 1)
	}
	a, b := thetas[steploss.Float64], thetas[steploss.Float32]
	var d, s float64
	for i := range a {
		d, s = math.Max(d, math.Abs(a[i]-b[i])), math.Max(s, math.Abs(a[i]))
	}
	fmt.Printf("last step's θ: %d row weights, float32 within 1e-3 of float64: %v\n", len(a), d <= 1e-3*s)
	// Output:
	// bound term agrees with the graph: true
	// last step's θ: 16 row weights, float32 within 1e-3 of float64: true
}

// agreesWithGraph compares p's own bound term with its graph term on random
// data: G_θ v and the adjoint, to 1e-12 relative.
func agreesWithGraph(p models.Parametrization) bool {
	const n, h, w = 2, 5, 7
	v, r := make([]float64, n*h*w), make([]float64, n*h*w)
	theta := make([]float64, h)
	for i := range v {
		v[i], r[i] = math.Sin(float64(i)), math.Cos(float64(3*i))
	}
	for i := range theta {
		theta[i] = 1 + 0.1*float64(i)
	}
	gb := models.NewGraphBinder(p)
	defer gb.Close()
	var outs, adjs [2][]float64
	for q, b := range []models.Binder{p.(models.Binder), gb} {
		bd, err := b.Bind(v, n, h, w)
		if err != nil {
			return false
		}
		outs[q], adjs[q] = make([]float64, n*h*w), make([]float64, h)
		if bd.AddApply(outs[q], theta, 1) != nil || bd.AddAdjoint(adjs[q], r, 1) != nil {
			return false
		}
	}
	return near(outs[0], outs[1]) && near(adjs[0], adjs[1])
}

func near(a, b []float64) bool {
	var d, s float64
	for i := range a {
		d, s = math.Max(d, math.Abs(a[i]-b[i])), math.Max(s, math.Abs(a[i]))
	}
	return d <= 1e-12*s
}

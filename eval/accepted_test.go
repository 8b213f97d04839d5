package eval

import (
	"bytes"
	"encoding/csv"
	"math"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/problem"
)

// guarded is a gradient-descent method whose iterator reports acceptance
// rates as a safeguarded learned optimizer does: at iteration t a fraction
// rate(t) of the steps was accepted. Its step diverges from iteration
// divergeAt on (0: never).
type guarded struct {
	step      float64
	divergeAt int
}

func (guarded) Name() string { return "learned (safeguarded bgd)" }
func (g guarded) Start(o *problem.Objective) (baselines.Iterator, error) {
	return &guardedIterator{g: g, o: o, x: append([]float64(nil), o.X0...), grad: make([]float64, len(o.X0))}, nil
}

type guardedIterator struct {
	g       guarded
	o       *problem.Objective
	x, grad []float64
	acc     []float64
}

func rate(t int) float64 { return 1 / float64(t) }

func (it *guardedIterator) Next() error {
	if err := it.o.Eval(nil, it.grad, it.x, nil); err != nil {
		return err
	}
	step := it.g.step
	if it.g.divergeAt > 0 && len(it.acc)+1 >= it.g.divergeAt {
		step = 1e30
	}
	for i := range it.x {
		it.x[i] -= step * it.grad[i]
	}
	it.acc = append(it.acc, rate(len(it.acc)+1))
	return nil
}
func (it *guardedIterator) X() []float64          { return it.x }
func (it *guardedIterator) Rejected() int         { return 0 }
func (it *guardedIterator) Acceptance() []float64 { return append([]float64(nil), it.acc...) }

func TestAcceptanceRecorded(t *testing.T) {
	o := denoising(2, 3, 3)
	T := 5
	curves, err := Run(o, []float64{0, 0}, []baselines.Method{guarded{step: 0.5}, baselines.GradientDescent{Step: 0.5}, guarded{step: 0.5, divergeAt: 3}}, Options{Iters: T})
	if err != nil {
		t.Fatal(err)
	}
	c, plain, div := curves[0], curves[1], curves[2]
	if plain.Accepted != nil {
		t.Errorf("a method without safeguard has acceptance rates %v", plain.Accepted)
	}
	if len(c.Accepted) != T+1 || !math.IsNaN(c.Accepted[0]) || !math.IsNaN(c.AcceptedAt(0)) {
		t.Fatalf("acceptance rates %v: want NaN then one per iteration", c.Accepted)
	}
	for it := 1; it <= T; it++ {
		if c.Accepted[it] != rate(it) || c.AcceptedAt(it) != rate(it) {
			t.Errorf("iteration %d: accepted %g (AcceptedAt %g), want %g", it, c.Accepted[it], c.AcceptedAt(it), rate(it))
		}
	}
	if !math.IsNaN(c.AcceptedAt(T+1)) || !math.IsNaN(plain.AcceptedAt(1)) {
		t.Error("AcceptedAt outside the rates is not NaN")
	}
	if !div.Diverged() || len(div.Accepted) != len(div.Iter) {
		t.Errorf("diverged curve: %d iterations, %d acceptance rates", len(div.Iter), len(div.Accepted))
	}

	var jb bytes.Buffer
	if err := WriteJSON(&jb, curves); err != nil {
		t.Fatal(err)
	}
	if strings.Count(jb.String(), `"accepted":`) != 2 {
		t.Errorf("JSON has %d accepted fields, want 2 (the safeguarded curves only)", strings.Count(jb.String(), `"accepted":`))
	}
	back, err := ReadJSON(&jb)
	if err != nil {
		t.Fatal(err)
	}
	if back[1].Accepted != nil || len(back[0].Accepted) != T+1 || !math.IsNaN(back[0].Accepted[0]) || back[0].Accepted[3] != rate(3) {
		t.Errorf("read back: %v and %v", back[0].Accepted, back[1].Accepted)
	}

	var cb bytes.Buffer
	if err := WriteCSV(&cb, curves); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&cb).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if h := strings.Join(recs[0], ","); h != "method,iter,seconds,mean,min,max,setting,status,accepted" {
		t.Fatalf("header %s", h)
	}
	if recs[1][8] != "" || recs[3][8] != "0.5" || recs[T+2][8] != "" {
		t.Errorf("accepted column: iteration 0 %q, 2 %q, unguarded %q", recs[1][8], recs[3][8], recs[T+2][8])
	}
	last := recs[len(recs)-1]
	if last[7] == "" || last[8] != "" {
		t.Errorf("divergence row %v", last)
	}
	// Without safeguarded curves the CSV is as before.
	cb.Reset()
	if err := WriteCSV(&cb, curves[1:2]); err != nil {
		t.Fatal(err)
	}
	if h, _, _ := strings.Cut(cb.String(), "\n"); h != "method,iter,seconds,mean,min,max,setting,status" {
		t.Errorf("header without safeguarded curves: %s", h)
	}
}

func TestReadJSONAcceptance(t *testing.T) {
	head := `{"format":"greedyl2o-eval-curves-v1","curves":[{"method":"x","iter":[0,1],"seconds":[0,0.1],"mean":[1,0.5],"min":[1,0.5],"max":[1,0.5]`
	for in, ok := range map[string]bool{
		head + `}]}`:                         true, // files written before acceptance rates
		head + `,"accepted":["NaN",0.25]}]}`: true,
		head + `,"accepted":[]}]}`:           true,
		head + `,"accepted":["NaN"]}]}`:      false,
		head + `,"accepted":["NaN",1.5]}]}`:  false,
		head + `,"accepted":["NaN",-0.5]}]}`: false,
	} {
		_, err := ReadJSON(strings.NewReader(in))
		if (err == nil) != ok {
			t.Errorf("%s: error %v", in[len(head):], err)
		}
	}
}

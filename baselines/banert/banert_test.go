package banert

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/mconv"
	"gorgonia.org/tensor"
)

func TestParameterCounts(t *testing.T) {
	for inputs, want := range map[int]int{3: 10567, 4: 10857} {
		if got := NumParams(inputs); got != want {
			t.Errorf("NumParams(%d) = %d, want %d", inputs, got, want)
		}
		net, err := NewNetwork(inputs, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(net.Theta) != want {
			t.Errorf("network with %d inputs has %d parameters, want %d", inputs, len(net.Theta), want)
		}
	}
	if _, err := NewNetwork(5, 1); err == nil {
		t.Error("NewNetwork(5) did not fail")
	}
}

func TestHeNormalInit(t *testing.T) {
	net, _ := NewNetwork(3, 2)
	w := net.Block(6) // conv2.weight, fan-in 32·9
	var s, q float64
	for _, v := range w {
		s += v
		q += v * v
	}
	n := float64(len(w))
	std := math.Sqrt(q/n - (s/n)*(s/n))
	if want := math.Sqrt(2.0 / 288); math.Abs(std-want) > 0.03*want {
		t.Errorf("conv2 weight std %g, want √(2/288) = %g", std, want)
	}
	for _, i := range []int{0, 4, 8} {
		for _, v := range net.Block(i) {
			if v != 1 {
				t.Fatalf("scale block %d not initialised to 1", i)
			}
		}
	}
}

// TestConvAdjoints checks ⟨B(a,b), c⟩ = ⟨a, B₁ᵀ(c,b)⟩ = ⟨b, B₂ᵀ(a,c)⟩ for Conv.
func TestConvAdjoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sa, sb := tensor.Shape{5, 3, 3, 3}, tensor.Shape{2, 3, 7, 6}
	sc, err := Conv{}.OutShape(sa, sb)
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := randVec(rng, sa.TotalSize()), randVec(rng, sb.TotalSize()), randVec(rng, sc.TotalSize())
	y, ga, gb := make([]float64, len(c)), make([]float64, len(a)), make([]float64, len(b))
	if err := (Conv{}).Apply(y, a, b, sa, sb); err != nil {
		t.Fatal(err)
	}
	(Conv{}).AdjointA(ga, c, b, sa, sb)
	(Conv{}).AdjointB(gb, a, c, sa, sb)
	if e := relErr(kernels.Dot(y, c), kernels.Dot(a, ga)); e > 1e-12 {
		t.Errorf("adjoint in weights: relative error %g", e)
	}
	if e := relErr(kernels.Dot(y, c), kernels.Dot(b, gb)); e > 1e-12 {
		t.Errorf("adjoint in input: relative error %g", e)
	}
	if _, err := (Conv{}).OutShape(tensor.Shape{5, 2, 3, 3}, sb); err == nil {
		t.Error("mismatched channels accepted")
	}
}

// TestLayerBackwards checks the hand-written backward kernels against
// central finite differences of the forward kernels.
func TestLayerBackwards(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, hw = 2, 12
	x := randVec(rng, n*hw)
	g := randVec(rng, n*hw)
	u := randVec(rng, n*hw)
	d := randVec(rng, n*hw)
	cases := []struct {
		name     string
		f        func(out, x []float64)
		backward func(dx, x, u []float64)
	}{
		{"instance norm", func(out, x []float64) { instanceNorm(out, x, n, hw) },
			func(dx, x, u []float64) { instanceNormBackward(dx, x, u, n, hw) }},
		{"leaky relu", leakyReLU, leakyReLUBackward},
		{"safeguard in h", func(out, h []float64) { safeguard(out, h, g, n, hw, nil, nil) },
			func(dh, h, u []float64) { safeguardBackwardH(dh, h, g, u, n, hw) }},
		{"safeguard in g", func(out, gg []float64) { safeguard(out, x, gg, n, hw, nil, nil) },
			func(dg, gg, u []float64) { safeguardBackwardG(dg, x, gg, u, n, hw) }},
	}
	for _, c := range cases {
		at := x
		if c.name == "safeguard in g" {
			at = g
		}
		dx := make([]float64, len(at))
		c.backward(dx, at, u)
		const eps = 1e-6
		xp, xm := make([]float64, len(at)), make([]float64, len(at))
		for i := range at {
			xp[i], xm[i] = at[i]+eps*d[i], at[i]-eps*d[i]
		}
		fp, fm := make([]float64, len(at)), make([]float64, len(at))
		c.f(fp, xp)
		c.f(fm, xm)
		var fd float64
		for i := range fp {
			fd += u[i] * (fp[i] - fm[i]) / (2 * eps)
		}
		if e := relErr(fd, kernels.Dot(dx, d)); e > 1e-7 {
			t.Errorf("%s: ⟨u, J d⟩ = %g by finite differences, ⟨Jᵀu, d⟩ = %g (relative error %g)", c.name, fd, kernels.Dot(dx, d), e)
		}
	}
}

// TestForwardMatchesNaive compares the network's forward pass with a naive
// implementation written from the architecture's description.
func TestForwardMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, h, w = 2, 5, 4
	net, _ := NewNetwork(4, 9)
	for i := range net.Theta {
		net.Theta[i] += 0.1 * rng.NormFloat64() // nonzero offsets and biases
	}
	in := randVec(rng, n*4*h*w)
	out := make([]float64, n*h*w)
	if err := net.Forward(out, in, n, h, w, nil); err != nil {
		t.Fatal(err)
	}
	p := net.Block
	norm := func(x []float64, c int, scale, offset []float64) []float64 {
		y := make([]float64, len(x))
		for k := 0; k < n; k++ {
			for ch := 0; ch < c; ch++ {
				pl := x[(k*c+ch)*h*w : (k*c+ch+1)*h*w]
				var mu, v float64
				for _, a := range pl {
					mu += a / float64(h*w)
				}
				for _, a := range pl {
					v += (a - mu) * (a - mu) / float64(h*w)
				}
				for i, a := range pl {
					y[(k*c+ch)*h*w+i] = scale[ch]*(a-mu)/math.Sqrt(v+1e-6) + offset[ch]
				}
			}
		}
		return y
	}
	conv := func(x []float64, cin, cout int, wt, b []float64) []float64 {
		y := make([]float64, n*cout*h*w)
		for k := 0; k < n; k++ {
			for o := 0; o < cout; o++ {
				for i := 0; i < h; i++ {
					for j := 0; j < w; j++ {
						s := b[o]
						for c := 0; c < cin; c++ {
							for du := -1; du <= 1; du++ {
								for dv := -1; dv <= 1; dv++ {
									if i+du >= 0 && i+du < h && j+dv >= 0 && j+dv < w {
										s += wt[((o*cin+c)*3+du+1)*3+dv+1] * x[((k*cin+c)*h+i+du)*w+j+dv]
									}
								}
							}
						}
						y[((k*cout+o)*h+i)*w+j] = s
					}
				}
			}
		}
		return y
	}
	lrelu := func(x []float64) []float64 {
		for i, v := range x {
			x[i] = math.Max(v, 0.2*v)
		}
		return x
	}
	z := norm(in, 4, p(0), p(1))
	z = lrelu(norm(conv(z, 4, 32, p(2), p(3)), 32, p(4), p(5)))
	z = lrelu(norm(conv(z, 32, 32, p(6), p(7)), 32, p(8), p(9)))
	z = conv(z, 32, 1, p(10), p(11))
	for i := range z {
		if math.Abs(z[i]-out[i]) > 1e-11*(1+math.Abs(z[i])) {
			t.Fatalf("output %d: %g, naive %g", i, out[i], z[i])
		}
	}
}

// TestGraphMatchesDirect checks that the unrolled graph computes the same
// loss as running the Method directly, for both input variants.
func TestGraphMatchesDirect(t *testing.T) {
	o := tinyObjective(t, 2, 8, false)
	for _, inputs := range []int{3, 4} {
		net, _ := NewNetwork(inputs, 11)
		tg, err := BuildTrainingGraph(o, 3, inputs)
		if err != nil {
			t.Fatal(err)
		}
		if err := tg.SetParams(net.Theta); err != nil {
			t.Fatal(err)
		}
		var sum float64
		for k := 0; k < o.N; k++ {
			tg.SetFunction(k)
			if err := tg.Run(); err != nil {
				t.Fatal(err)
			}
			l, _ := tg.Loss()
			sum += l
		}
		direct := runDirect(t, net, o, 3)
		if e := relErr(sum, direct); e > 1e-11 {
			t.Errorf("%d inputs: graph loss %g, direct %g (relative error %g)", inputs, sum, direct, e)
		}
		tg.Close()
	}
}

// TestUnrolledGradient checks the gradient of the unrolled loss (T = 3, 8×8)
// against central finite differences of the directly computed loss, along
// random directions and along single parameters of every block.
func TestUnrolledGradient(t *testing.T) {
	o := tinyObjective(t, 1, 8, true)
	rng := rand.New(rand.NewPCG(7, 8))
	for _, inputs := range []int{3, 4} {
		net, _ := NewNetwork(inputs, 13)
		for i := range net.Theta {
			net.Theta[i] += 0.05 * rng.NormFloat64()
		}
		tg, err := BuildTrainingGraph(o, 3, inputs)
		if err != nil {
			t.Fatal(err)
		}
		grad := make([]float64, len(net.Theta))
		if _, err := lossAndGradient(tg, 0, net.Theta, grad); err != nil {
			t.Fatal(err)
		}
		tg.Close()
		theta := append([]float64(nil), net.Theta...)
		check := func(what string, d []float64) {
			const eps = 1e-5
			for i := range theta {
				net.Theta[i] = theta[i] + eps*d[i]
			}
			fp := runDirect(t, net, o, 3)
			for i := range theta {
				net.Theta[i] = theta[i] - eps*d[i]
			}
			fm := runDirect(t, net, o, 3)
			copy(net.Theta, theta)
			fd := (fp - fm) / (2 * eps)
			if e := relErr(fd, kernels.Dot(grad, d)); e > 1e-5 {
				t.Errorf("%d inputs, %s: directional derivative %g, finite differences %g (relative error %g)", inputs, what, kernels.Dot(grad, d), fd, e)
			}
		}
		for r := 0; r < 2; r++ {
			check("random direction", randVec(rng, len(theta)))
		}
		off := 0
		for _, b := range Layout(inputs) {
			if b.Name == "conv1.bias" || b.Name == "conv2.bias" {
				// Removed by the following instance norm: the gradient is 0.
				for _, g := range grad[off : off+b.Len()] {
					if math.Abs(g) > 1e-8*maxAbs(grad) {
						t.Errorf("%d inputs: %s gradient %g, want 0 (the instance norm removes it)", inputs, b.Name, g)
					}
				}
			} else {
				d := make([]float64, len(theta))
				d[off+rng.IntN(b.Len())] = 1
				check(b.Name, d)
			}
			off += b.Len()
		}
	}
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// TestSafeguard checks ‖Δt‖ < α‖∇f(x^t)‖ and the formula of Δt at every
// iteration, in the direct method and in the unrolled graph, with a network
// whose output is scaled up so that the safeguard is active.
func TestSafeguard(t *testing.T) {
	o := tinyObjective(t, 3, 8, false)
	net, _ := NewNetwork(3, 17)
	for _, i := range []int{10, 11} { // blow up the last layer
		for j := range net.Block(i) {
			net.Block(i)[j] *= 1e3
		}
	}
	st, err := (&Method{Net: net}).Start(o)
	if err != nil {
		t.Fatal(err)
	}
	it := st.(*iterator)
	hw := o.ImageLen()
	for iter := 0; iter < 30; iter++ {
		xPrev := append([]float64(nil), it.x...)
		if err := it.Next(); err != nil {
			t.Fatal(err)
		}
		grad := make([]float64, len(xPrev))
		o.Eval(nil, grad, xPrev, nil)
		for k := 0; k < o.N; k++ {
			// Recover Δ from the step: Δ = L(x^t − x^{t+1}) − ∇f(x^t).
			var dn, gn float64
			for i := k * hw; i < (k+1)*hw; i++ {
				d := o.L*(xPrev[i]-it.x[i]) - grad[i]
				dn += d * d
				gn += grad[i] * grad[i]
			}
			dn, gn = math.Sqrt(dn), math.Sqrt(gn)
			if !(dn < SafeguardAlpha*gn) {
				t.Fatalf("iteration %d, function %d: ‖Δ‖ = %g ≥ α‖∇f‖ = %g", iter, k, dn, SafeguardAlpha*gn)
			}
			if relErr(dn, it.deltaNorm[k]) > 1e-6 || relErr(gn, it.gradNorm[k]) > 1e-12 {
				t.Fatalf("iteration %d, function %d: step gives ‖Δ‖ = %g, ‖∇f‖ = %g; iterator reports %g, %g", iter, k, dn, gn, it.deltaNorm[k], it.gradNorm[k])
			}
			// ‖h‖ is large, so Δ is close to the bound.
			if dn < 0.99*SafeguardAlpha*gn {
				t.Fatalf("iteration %d, function %d: ‖Δ‖/‖∇f‖ = %g, want close to α for a large network output", iter, k, dn/gn)
			}
		}
	}
	// The graph's Δt and ∇f(x^t) nodes.
	tg, err := BuildTrainingGraph(o, 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	tg.SetParams(net.Theta)
	tg.SetFunction(1)
	if err := tg.Run(); err != nil {
		t.Fatal(err)
	}
	for i := range tg.deltas {
		d, _ := graph.Value(tg.deltas[i])
		g, _ := graph.Value(tg.grads[i])
		if dn, gn := math.Sqrt(kernels.Dot(d, d)), math.Sqrt(kernels.Dot(g, g)); !(dn < SafeguardAlpha*gn) {
			t.Errorf("graph iteration %d: ‖Δ‖ = %g ≥ α‖∇f‖ = %g", i, dn, SafeguardAlpha*gn)
		}
	}
}

// TestConvOpInGraph checks that mconv in the graph agrees with mconv.Forward.
func TestConvOpMatchesKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	s := mconv.Shape{N: 1, Cin: 2, Cout: 3, H: 4, W: 5, K: 3}
	x, w := randVec(rng, s.InputLen()), randVec(rng, s.WeightLen())
	want := make([]float64, s.OutputLen())
	mconv.Forward(want, x, w, nil, s)
	got := make([]float64, s.OutputLen())
	if err := (Conv{}).Apply(got, w, x, tensor.Shape{3, 2, 3, 3}, tensor.Shape{1, 2, 4, 5}); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("value %d: %g, want %g", i, got[i], want[i])
		}
	}
}

// TestHeldBytesLinearInT checks that the memory the unrolled graph holds
// grows by the same amount for every unrolled iteration.
func TestHeldBytesLinearInT(t *testing.T) {
	o := tinyObjective(t, 1, 8, false)
	held := map[int]int64{}
	for _, T := range []int{1, 2, 4} {
		tg, err := BuildTrainingGraph(o, T, 3)
		if err != nil {
			t.Fatal(err)
		}
		if err := tg.Run(); err != nil {
			t.Fatal(err)
		}
		held[T] = graph.HeldBytes(tg.Graph)
		tg.Close()
	}
	per := held[2] - held[1]
	if per <= 0 || held[4]-held[2] != 2*per {
		t.Errorf("held bytes for T = 1, 2, 4: %d, %d, %d; want equal increments per iteration", held[1], held[2], held[4])
	}
	t.Logf("8×8: %d bytes per unrolled iteration", per)
}

// TestLeakyFactor checks the branch-free factor of the leaky ReLU against
// x > 0 on the values where a bit trick could slip: zeros, the smallest and
// largest numbers, infinities and NaNs of either sign.
func TestLeakyFactor(t *testing.T) {
	for _, x := range []float64{0, math.Copysign(0, -1), 5e-324, -5e-324, math.MaxFloat64, -math.MaxFloat64,
		math.Inf(1), math.Inf(-1), math.NaN(), -math.NaN(), math.Float64frombits(0x7ff0000000000001), 1, -1} {
		want := LeakySlope
		if x > 0 {
			want = 1
		}
		if got := leakyFactor(x); got != want {
			t.Errorf("leakyFactor(%v) (bits %#x) = %v, want %v", x, math.Float64bits(x), got, want)
		}
	}
}

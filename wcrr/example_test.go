package wcrr_test

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/wcrr"
)

func ExampleRandom() {
	// A small random regularizer 1 → 2 → 3 → 4 channels with μ = 5.
	m := wcrr.Random(1, [3]int{2, 3, 4}, 5)
	const n, h, w = 1, 32, 32

	x := make([]float64, n*h*w) // the zero image
	grad := make([]float64, len(x))
	s, err := m.ValueGrad(grad, x, n, h, w)
	if err != nil {
		fmt.Println(err)
		return
	}
	var gmax float64
	for _, g := range grad {
		gmax = max(gmax, g, -g)
	}
	normSq, _, err := m.NormSquared(h, w, 150, 7)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("channels:", m.Channels())
	fmt.Println("S(0) =", s[0], " max|∇S(0)| =", gmax)
	fmt.Printf("‖W‖² on 32×32 ≈ %.4f, Lip(∇S) ≤ %g\n", normSq, m.LipschitzBound())
	// Output:
	// channels: 4
	// S(0) = 0  max|∇S(0)| = 0
	// ‖W‖² on 32×32 ≈ 1.0000, Lip(∇S) ≤ 5
}

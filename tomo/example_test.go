package tomo_test

import (
	"fmt"
	"log"

	"github.com/greedyl2o/greedyl2o/tomo"
)

// Project a single bright pixel at the image centre and back-project the
// sinogram. At 0° and 90° the two bins at s = ±½ each take half the pixel;
// at 45° the rows are crossed at x = ±½·√2, giving weight (1 − √2/2)·√2 = √2 − 1.
func Example() {
	g, err := tomo.NewGeometry(5, 4, 0) // 5×5 image, 4 angles, ⌈5√2⌉ = 8 bins
	if err != nil {
		log.Fatal(err)
	}
	p, err := tomo.NewProjector(g)
	if err != nil {
		log.Fatal(err)
	}
	img := make([]float64, g.ImageLen())
	img[2*g.N+2] = 1 // centre pixel
	sino := make([]float64, g.SinoLen())
	if err := p.Forward(sino, img, 1); err != nil {
		log.Fatal(err)
	}
	for a := range g.Angles {
		fmt.Printf("θ=%3.0f°: %.3f\n", g.Angle(a)*180/3.141592653589793, sino[a*g.Det:(a+1)*g.Det])
	}
	back := make([]float64, g.ImageLen())
	if err := p.Adjoint(back, sino, 1); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("centre of AᵀA e: %.3f\n", back[2*g.N+2])
	// Output:
	// θ=  0°: [0.000 0.000 0.000 0.500 0.500 0.000 0.000 0.000]
	// θ= 45°: [0.000 0.000 0.000 0.414 0.414 0.000 0.000 0.000]
	// θ= 90°: [0.000 0.000 0.000 0.500 0.500 0.000 0.000 0.000]
	// θ=135°: [0.000 0.000 0.000 0.414 0.414 0.000 0.000 0.000]
	// centre of AᵀA e: 1.686
}

package learned_test

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/learned"
)

// ExampleCertifyBoth certifies a learned step with ε1 = ‖G − τI‖ = 0.2 and
// ε2 = ‖H‖ = 0.08 at the paper's τ = 1/1.32, L = 1.32 with both certificates.
// The paper's certifies it, with γ = Gamma making C1 and C2 positive; the
// Lyapunov one does not.
func ExampleCertifyBoth() {
	tau, l := 1/1.32, 1.32
	c := learned.CertifyBoth(0.2, 0.08, tau, l)
	h, name := c.Paper.H()
	fmt.Printf("paper:    P = %.4f, %s = %.4f, certified %v\n", c.Paper.P, name, h, c.Paper.Certified)
	fmt.Printf("          C1(γ) = %.4f, C2(γ) = %.4f at γ = %.4f\n",
		learned.PaperC1(0.2, 0.08, tau, l, c.Paper.Gamma), learned.PaperC2(0.2, 0.08, tau, l, c.Paper.Gamma), c.Paper.Gamma)
	fmt.Printf("lyapunov: P = %.4f, certified %v\n", c.Lyapunov.P, c.Certified(learned.CertificateLyapunov))

	kind, _ := learned.ParseCertificateKind("paper")
	fmt.Println(kind, learned.Certified(kind, 0.2, 0.08, tau, l))
	// Output:
	// paper:    P = -0.2988, h1 = 1.9214, certified true
	//           C1(γ) = 0.1629, C2(γ) = 0.1504 at γ = 0.1801
	// lyapunov: P = 0.1190, certified false
	// paper true
}

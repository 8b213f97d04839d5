package cmd_test

import (
	"os"

	"github.com/greedyl2o/greedyl2o/cmd"
)

// ExampleMain runs the command line in-process, as cmd/l2o's main does with
// os.Args: here `l2o problem list`, the built-in problems. Main returns the
// exit code (0 success, 1 a failed run, 2 a usage or input error) instead of
// exiting.
func ExampleMain() {
	code := cmd.Main([]string{"problem", "list"}, os.Stdout, os.Stderr)
	if code != 0 {
		os.Exit(code)
	}
	// Output:
	// ct           Problem 2: Huber-TV CT, parallel beam, 180 angles, 256×256, 363 bins, noise 0.01, α=3e-4, ε=0.01, x0 = 0
	// ct-small     Problem 2, small: 40×40, 90 angles, 57 bins, α=1e-4, ε=0.01, x0 = 0 (PF feasible)
	// deblur       Problem 1: Huber-TV deblurring, 5×5 Gaussian blur σ=1.5 (zero, circular or reflect boundary), 96×96, noise 0.01, α=2e-4, ε=0.005, x0 = y
	// deblur-wcrr  Problem 3: deblurring as Problem 1 with the weakly convex ridge regularizer, α=3e-3 (needs --wcrr-weights)
}

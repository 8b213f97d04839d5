package cmd_test

import (
	"os"

	"github.com/greedyl2o/greedyl2o/cmd"
)

// ExampleMain runs the command line in-process, as cmd/l2o's main does with
// os.Args: here `l2o problem info` for Problem 1 on 32×32 synthetic images.
// Main returns the exit code (0 success, 1 a failed run, 2 a usage or input
// error) instead of exiting.
func ExampleMain() {
	code := cmd.Main([]string{"problem", "info", "--problem", "deblur", "--size", "32", "--data", "synthetic"}, os.Stdout, os.Stderr)
	if code != 0 {
		os.Exit(code)
	}
	// Output:
	// problem      deblur
	// image        32×32
	// data         [32 32] per image
	// operator     1.0127077087256355*conv(gauss5-1.5,5,zero)
	// ‖A‖          1 (Lanczos)
	// regularizer  huber-tv(eps=0.005)
	// α            0.0002
	// noise σ      0.01
	// L            1.32
	// x0           observation
	// conventions  blur_boundary=zero
	//              operator: 5×5 Gaussian blur, σ = 1.5, zero boundary
	//              ‖blur‖ before normalisation: 0.987451750771
	// training set 4 functions from synthetic (hash f6689a502cff2a31), mean f(x0) = 0.923133
}

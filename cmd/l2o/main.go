// Command l2o trains, applies, certifies and benchmarks learned optimizers
// (greedy learning to optimize). Run "l2o help" for the commands.
package main

import (
	"os"

	"github.com/greedyl2o/greedyl2o/cmd"
)

func main() { os.Exit(cmd.Main(os.Args[1:], os.Stdout, os.Stderr)) }

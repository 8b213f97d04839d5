// Command l2o trains, applies, certifies and benchmarks learned optimizers
// (greedy learning to optimize). Run "l2o help" for the commands.
//
// L2O_CPUPROFILE=FILE writes a CPU profile of the run to FILE (a new file;
// read it with "go tool pprof -top l2o FILE").
package main

import (
	"fmt"
	"os"

	"github.com/greedyl2o/greedyl2o/cmd"
)

func main() { os.Exit(run()) }

func run() int {
	stop, err := cmd.StartCPUProfile(os.Getenv(cmd.ProfileEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "l2o:", err)
		return 2
	}
	code := cmd.MainInWorld(os.Args[1:], os.Stdout, os.Stderr)
	if err := stop(); err != nil {
		fmt.Fprintln(os.Stderr, "l2o:", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

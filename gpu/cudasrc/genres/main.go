// Command genres assembles the embedded PTX of package cudasrc with ptxas
// for every target of package gpu/launch (sm_52, sm_70, sm_80, sm_90) and
// writes resources.tsv, the table of each kernel's registers, shared memory,
// stack and spills that package cudasrc embeds (cudasrc.Resources) and
// gpu/launch checks the launches against. Run it with `go generate
// ./gpu/cudasrc` (after genptx) whenever the PTX changes; it needs ptxas
// (Debian's non-free nvidia-cuda-toolkit, which .ci/cuda.sh installs, or
// $L2O_PTXAS). It fails when ptxas prints a warning or an error for any
// target.
package main

import (
	"fmt"
	"os"

	"github.com/greedyl2o/greedyl2o/gpu/cudasrc"
	"github.com/greedyl2o/greedyl2o/gpu/launch"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "genres:", err)
		os.Exit(1)
	}
}

func run() error {
	ptxas, err := launch.FindPTXAS()
	if err != nil {
		return err
	}
	t, err := launch.Build(ptxas, cudasrc.PTX)
	if err != nil {
		return err
	}
	regs, shared, spills := t.Max()
	fmt.Fprintf(os.Stderr, "genres: %d kernels on %d targets (%s): at most %d registers, %d bytes of shared memory, %d bytes spilled\n",
		len(t.Rows)/len(launch.Targets), len(launch.Targets), t.PTXAS, regs, shared, spills)
	return os.WriteFile("resources.tsv", []byte(t.Format()), 0o644)
}

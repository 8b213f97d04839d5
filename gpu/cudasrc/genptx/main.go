//go:build nvrtc

// Command genptx compiles the CUDA C kernels of package cudasrc to PTX with
// NVRTC and writes the file package cudasrc embeds (kernels_compute_52.ptx),
// so that the CUDA device loads the kernels without NVRTC at run time. Run it
// with `go generate ./gpu/cudasrc` after editing cudasrc.Source (it needs
// Debian's nvidia-cuda-dev, which .ci/cuda.sh installs); the nvrtc-tagged test
// of package gpu/nvrtc fails while the embedded PTX is out of date.
package main

import (
	"fmt"
	"os"

	"github.com/greedyl2o/greedyl2o/gpu/cudasrc"
	"github.com/greedyl2o/greedyl2o/gpu/nvrtc"
)

func main() {
	ptx, err := nvrtc.Compile(cudasrc.Source, "l2o_kernels.cu", cudasrc.PTXArch)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genptx:", err)
		os.Exit(1)
	}
	if err := os.WriteFile("kernels_"+cudasrc.PTXArch+".ptx", []byte(ptx), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "genptx:", err)
		os.Exit(1)
	}
}

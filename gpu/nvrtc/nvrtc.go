//go:build nvrtc || l2ocuda

package nvrtc

import (
	"fmt"
	"strings"

	cunvrtc "gorgonia.org/cu/nvrtc"
)

// DefaultArch is the virtual architecture PTX is generated for when none is
// given: compute_52 PTX is accepted (and compiled on load) by every GPU that
// CUDA 11 and later drivers support.
const DefaultArch = "compute_52"

// Version returns the NVRTC version, for example 11, 8.
func Version() (major, minor int, err error) {
	major, minor, err = cunvrtc.Version()
	if err != nil {
		return 0, 0, fmt.Errorf("nvrtc: version: %w", err)
	}
	return major, minor, nil
}

// Compile compiles the CUDA C source (named name in messages) to PTX for the
// virtual architecture arch ("compute_52", "compute_80"; "" means
// DefaultArch). On a compilation error the error includes NVRTC's log.
func Compile(source, name, arch string, options ...string) (ptx string, err error) {
	if arch == "" {
		arch = DefaultArch
	}
	if !strings.HasPrefix(arch, "compute_") {
		return "", fmt.Errorf("nvrtc: compile %s: architecture %q must look like compute_52", name, arch)
	}
	prog, err := cunvrtc.CreateProgram(source, name)
	if err != nil {
		return "", fmt.Errorf("nvrtc: create program %s: %w", name, err)
	}
	defer prog.Destroy()
	opts := append([]string{"--gpu-architecture=" + arch}, options...)
	if err := prog.Compile(opts...); err != nil {
		log, _ := prog.GetLog()
		return "", fmt.Errorf("nvrtc: compile %s for %s: %w\n%s", name, arch, err, strings.TrimSpace(log))
	}
	ptx, err = prog.GetPTX()
	if err != nil {
		return "", fmt.Errorf("nvrtc: PTX of %s: %w", name, err)
	}
	return strings.TrimRight(ptx, "\x00"), nil
}

package launch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// PTXASEnv names the environment variable that points at a ptxas binary;
// without it FindPTXAS looks on PATH and in the CUDA toolkits' usual places.
const PTXASEnv = "L2O_PTXAS"

// PTXASArgs are the options every assembly uses besides -arch and the
// files: resource usage (-v) and every warning an error.
var PTXASArgs = []string{"-v", "--warning-as-error"}

// FindPTXAS returns the path of a ptxas binary: $L2O_PTXAS, ptxas on PATH,
// Debian's /usr/lib/nvidia-cuda-toolkit/bin/ptxas or /usr/local/cuda/bin/ptxas.
func FindPTXAS() (string, error) {
	if p := os.Getenv(PTXASEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("launch: %s=%s: %w", PTXASEnv, p, err)
		}
		return p, nil
	}
	if p, err := exec.LookPath("ptxas"); err == nil {
		return p, nil
	}
	for _, p := range []string{"/usr/lib/nvidia-cuda-toolkit/bin/ptxas", "/usr/local/cuda/bin/ptxas"} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("launch: no ptxas: install Debian's nvidia-cuda-toolkit (non-free; .ci/cuda.sh does) or set " + PTXASEnv)
}

// PTXASVersion returns the release line of `ptxas --version`
// ("Cuda compilation tools, release 11.8, V11.8.89").
func PTXASVersion(ptxas string) (string, error) {
	out, err := exec.Command(ptxas, "--version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("launch: %s --version: %v: %s", ptxas, err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "Cuda compilation tools") {
			return strings.TrimSpace(line), nil
		}
	}
	return "", fmt.Errorf("launch: %s --version printed no release line: %s", ptxas, out)
}

// Assembly is the outcome of assembling PTX for one architecture.
type Assembly struct {
	Arch     string
	Rows     []Resource // sorted by kernel name
	Problems []string   // warnings and errors ptxas printed
	Output   string     // ptxas's diagnostics, as printed
	Cubin    []byte     // the machine code (ELF)
}

// Assemble runs ptxas (PTXASArgs) on ptx for arch and reports the
// resources of every kernel. It returns an error when ptxas fails or prints
// a warning or an error: the PTX must assemble cleanly for every target.
func Assemble(ptxas, ptx, arch string) (*Assembly, error) {
	dir, err := os.MkdirTemp("", "l2o-ptxas-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	in, out := filepath.Join(dir, "kernels.ptx"), filepath.Join(dir, "kernels.cubin")
	if err := os.WriteFile(in, []byte(ptx), 0o644); err != nil {
		return nil, err
	}
	args := append([]string{"-arch=" + arch}, PTXASArgs...)
	args = append(args, "-o", out, in)
	cmd := exec.Command(ptxas, args...)
	var diag bytes.Buffer
	cmd.Stdout, cmd.Stderr = &diag, &diag
	runErr := cmd.Run()
	a := &Assembly{Arch: arch, Output: diag.String()}
	rows, problems, perr := ParsePTXAS(a.Output)
	a.Problems = problems
	if runErr != nil || len(problems) > 0 {
		return a, fmt.Errorf("launch: ptxas -arch=%s: %v\n%s", arch, runErr, strings.Join(problems, "\n"))
	}
	if perr != nil {
		return a, fmt.Errorf("launch: ptxas -arch=%s: %w", arch, perr)
	}
	for _, r := range rows {
		if r.Arch != arch {
			return a, fmt.Errorf("launch: ptxas -arch=%s compiled %s for %s", arch, r.Kernel, r.Arch)
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Kernel < rows[j].Kernel })
	a.Rows = rows
	if a.Cubin, err = os.ReadFile(out); err != nil {
		return a, fmt.Errorf("launch: ptxas -arch=%s wrote no cubin: %w", arch, err)
	}
	return a, nil
}

// Build assembles ptx for every target and returns the resource table
// (rows by architecture in Targets' order, then by kernel name).
func Build(ptxas, ptx string) (*Table, error) {
	version, err := PTXASVersion(ptxas)
	if err != nil {
		return nil, err
	}
	t := &Table{
		PTXSHA256: PTXHash(ptx),
		PTXAS:     version,
		Command:   "ptxas -arch=ARCH " + strings.Join(PTXASArgs, " ") + " -o kernels.cubin kernels_compute_52.ptx",
	}
	for _, tg := range Targets {
		a, err := Assemble(ptxas, ptx, tg.Arch)
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, a.Rows...)
	}
	return t, nil
}

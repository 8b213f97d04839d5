//go:build nvrtc || l2ocuda

package nvrtc

import (
	"regexp"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu/cudasrc"
)

// TestKernelsCompileToPTX compiles every CUDA C kernel of package cudasrc to
// PTX, for the oldest architecture the device layer targets and for a recent
// one, and checks that every listed kernel is a PTX entry point with the
// number of parameters the list gives.
func TestKernelsCompileToPTX(t *testing.T) {
	major, minor, err := Version()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("NVRTC %d.%d", major, minor)
	for _, arch := range []string{"compute_52", "compute_80"} {
		ptx, err := Compile(cudasrc.Source, "l2o_kernels.cu", arch)
		if err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		if !strings.Contains(ptx, ".target sm_"+strings.TrimPrefix(arch, "compute_")) {
			t.Errorf("%s: PTX does not target sm_%s", arch, strings.TrimPrefix(arch, "compute_"))
		}
		for _, k := range cudasrc.Kernels {
			re := regexp.MustCompile(`\.entry ` + k.Name + `\(([^)]*)\)`)
			m := re.FindStringSubmatch(ptx)
			if m == nil {
				t.Errorf("%s: kernel %s is not a PTX entry", arch, k.Name)
				continue
			}
			if got, want := strings.Count(m[1], ".param"), len(strings.Split(k.Params, ",")); got != want {
				t.Errorf("%s: kernel %s has %d PTX parameters, the list says %d (%s)", arch, k.Name, got, want, k.Params)
			}
		}
		t.Logf("%s: %d kernels, %d bytes of PTX", arch, len(cudasrc.Kernels), len(ptx))
	}
}

func TestCompileErrorsCarryTheLog(t *testing.T) {
	_, err := Compile(`extern "C" __global__ void broken(float *x) { x[0] = undefined_name; }`, "broken.cu", "")
	if err == nil || !strings.Contains(err.Error(), "undefined_name") {
		t.Errorf("compiling a broken kernel: error %v, want NVRTC's log naming undefined_name", err)
	}
	if _, err := Compile(cudasrc.Source, "x.cu", "sm_80"); err == nil {
		t.Error("architecture sm_80 (not a virtual architecture): no error")
	}
}

// TestEmbeddedPTXIsCurrent checks that the PTX package cudasrc embeds (and
// the CUDA device loads) is what NVRTC makes of Source now: run `go generate
// ./gpu/cudasrc` after editing the kernels.
func TestEmbeddedPTXIsCurrent(t *testing.T) {
	ptx, err := Compile(cudasrc.Source, "l2o_kernels.cu", cudasrc.PTXArch)
	if err != nil {
		t.Fatal(err)
	}
	if ptx != cudasrc.PTX {
		t.Errorf("the embedded PTX (%d bytes) differs from NVRTC's compilation of Source (%d bytes): run go generate ./gpu/cudasrc", len(cudasrc.PTX), len(ptx))
	}
}

package cudasrc

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestKernelListMatchesSource checks, without a CUDA compiler, that every
// __global__ function of Source is listed in Kernels with its parameters in
// order, and that the block size of the source is BlockSize.
func TestKernelListMatchesSource(t *testing.T) {
	if !strings.Contains(Source, fmt.Sprintf("#define L2O_BLOCK %d\n", BlockSize)) {
		t.Errorf("Source does not define L2O_BLOCK as BlockSize = %d", BlockSize)
	}
	if !strings.Contains(Source, fmt.Sprintf("#define L2O_CONJ_VALUES %d\n", ConjSumValues)) || BlockSize%ConjSumValues != 0 {
		t.Errorf("Source does not define L2O_CONJ_VALUES as ConjSumValues = %d, a divisor of BlockSize", ConjSumValues)
	}
	for name, v := range map[string]int{"L2O_CONV_TILE": ConvTile, "L2O_CONV_MAXK": ConvMaxK} {
		if !strings.Contains(Source, fmt.Sprintf("#define %s %d\n", name, v)) {
			t.Errorf("Source does not define %s as %d", name, v)
		}
	}
	if ConvTile*ConvTile != BlockSize {
		t.Errorf("ConvTile² = %d, not BlockSize = %d", ConvTile*ConvTile, BlockSize)
	}
	re := regexp.MustCompile(`__global__ void (\w+)\(([^)]*)\)`)
	found := map[string][]string{}
	for _, m := range re.FindAllStringSubmatch(Source, -1) {
		var names []string
		for _, p := range strings.Split(m[2], ",") {
			f := strings.Fields(strings.ReplaceAll(p, "*", " "))
			names = append(names, f[len(f)-1])
		}
		found[m[1]] = names
	}
	if len(found) != len(Kernels) {
		t.Errorf("Source has %d kernels, Kernels lists %d", len(found), len(Kernels))
	}
	for _, k := range Kernels {
		params, ok := found[k.Name]
		if !ok {
			t.Errorf("kernel %s is listed but not in Source", k.Name)
			continue
		}
		if got := strings.Join(params, ", "); got != k.Params {
			t.Errorf("kernel %s: Source parameters %q, listed %q", k.Name, got, k.Params)
		}
	}
}

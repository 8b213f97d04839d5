package launch

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu/cudasrc"
)

func embedded(t *testing.T) *Table {
	t.Helper()
	tab, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// TestResourceTableIsCurrent checks, without ptxas, that the checked-in
// resource table was made from the embedded PTX (its recorded SHA-256) and
// lists every kernel of cudasrc.Kernels on every target, and nothing else:
// after a change of the PTX, `go generate ./gpu/cudasrc` must run again.
func TestResourceTableIsCurrent(t *testing.T) {
	tab := embedded(t)
	if got := PTXHash(cudasrc.PTX); tab.PTXSHA256 != got {
		t.Errorf("gpu/cudasrc/resources.tsv was made from PTX with SHA-256 %s; the embedded PTX's is %s: run go generate ./gpu/cudasrc (needs ptxas)", tab.PTXSHA256, got)
	}
	want := map[string]bool{}
	for _, tg := range Targets {
		for _, k := range cudasrc.Kernels {
			want[tg.Arch+" "+k.Name] = true
			if _, ok := tab.Lookup(tg.Arch, k.Name); !ok {
				t.Errorf("resources.tsv lacks %s on %s", k.Name, tg.Arch)
			}
		}
	}
	for _, r := range tab.Rows {
		if !want[r.Arch+" "+r.Kernel] {
			t.Errorf("resources.tsv lists %s on %s, which is not a kernel on a target", r.Kernel, r.Arch)
		}
	}
}

// TestPTXAssemblesForEveryTarget assembles the embedded PTX with ptxas for
// every target (an error or a warning fails) and compares the resources with
// the checked-in table. Without ptxas it skips, unless L2O_REQUIRE_PTXAS=1
// (CI: .ci/cuda.sh), when it fails. With a ptxas of another release than the
// table's, differences in the resources are only logged.
func TestPTXAssemblesForEveryTarget(t *testing.T) {
	ptxas, err := FindPTXAS()
	if err != nil {
		if os.Getenv("L2O_REQUIRE_PTXAS") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	tab := embedded(t)
	got, err := Build(ptxas, cudasrc.PTX)
	if err != nil {
		t.Fatal(err)
	}
	sameRelease := got.PTXAS == tab.PTXAS
	report := t.Errorf
	if !sameRelease {
		t.Logf("ptxas is %q, the table was made with %q: resource differences are logged, not errors", got.PTXAS, tab.PTXAS)
		report = t.Logf
	}
	for _, r := range got.Rows {
		old, ok := tab.Lookup(r.Arch, r.Kernel)
		if !ok {
			report("%s on %s: not in resources.tsv", r.Kernel, r.Arch)
			continue
		}
		if old != r {
			report("%s on %s: ptxas reports %+v, resources.tsv has %+v: run go generate ./gpu/cudasrc", r.Kernel, r.Arch, r, old)
		}
	}
	if len(got.Rows) != len(tab.Rows) {
		report("ptxas reports %d kernels × targets, resources.tsv lists %d", len(got.Rows), len(tab.Rows))
	}
	regs, shared, spills := got.Max()
	t.Logf("%s: %d kernels on %d targets: at most %d registers a thread, %d bytes of shared memory a block, %d bytes spilled",
		got.PTXAS, len(cudasrc.Kernels), len(Targets), regs, shared, spills)
}

// TestPaperWorkloadsFitEveryTarget checks every launch of the paper's
// workloads (the largest: N = 1,000 functions of 256×256) against every
// target's limits with the kernels' resources from the table.
func TestPaperWorkloadsFitEveryTarget(t *testing.T) {
	tab := embedded(t)
	for _, w := range PaperWorkloads {
		cfgs := Launches(w)
		if err := CheckAll(cfgs, Targets, tab); err != nil {
			t.Errorf("%s:\n%v", w, err)
		}
		var maxGrid, maxInt int64
		for _, c := range cfgs {
			maxGrid = max(maxGrid, c.Grid)
			maxInt = max(maxInt, c.Grid*c.Block-1)
			for _, v := range append(c.Ints, c.Buffers...) {
				maxInt = max(maxInt, v.Value)
			}
		}
		t.Logf("%s: %d launches, at most %d blocks (limit %d), largest int %d (%.1f%% of 2³¹−1)",
			w, len(cfgs), maxGrid, int64(maxGridX), maxInt, 100*float64(maxInt)/MaxInt)
	}
}

// TestRefusedWorkloadsFailOnlyByBuffers checks that the workloads too large
// for one device buffer are caught by gpu/cuda's allocation limit (an error
// the user sees), never by a launch limit or a silently overflowing index.
func TestRefusedWorkloadsFailOnlyByBuffers(t *testing.T) {
	tab := embedded(t)
	for _, w := range RefusedWorkloads {
		err := CheckAll(Launches(w), Targets, tab)
		if err == nil {
			t.Errorf("%s: fits; move it to PaperWorkloads", w)
			continue
		}
		for _, line := range strings.Split(err.Error(), "\n") {
			if !strings.Contains(line, "Alloc refuses") {
				t.Errorf("%s: %s", w, line)
			}
		}
	}
}

// TestModelCoversEveryKernel checks that the launch model launches every
// kernel of cudasrc.Kernels and nothing else.
func TestModelCoversEveryKernel(t *testing.T) {
	seen := map[string]bool{}
	all := append(slices.Clone(PaperWorkloads), RefusedWorkloads...)
	for _, w := range all {
		for _, c := range Launches(w) {
			seen[c.Kernel] = true
		}
	}
	for _, k := range cudasrc.Kernels {
		if !seen[k.Name] {
			t.Errorf("kernel %s is never launched by the model (Launches)", k.Name)
		}
		delete(seen, k.Name)
	}
	for k := range seen {
		t.Errorf("the model launches %s, which is not in cudasrc.Kernels", k)
	}
}

// TestCheckCatchesOversizedConfigurations feeds the checker launches that
// exceed each limit and sees each refused with the reason.
func TestCheckCatchesOversizedConfigurations(t *testing.T) {
	tab := embedded(t)
	sm52, _ := TargetByArch("sm_52")
	heaviest := Resource{}
	for _, r := range tab.Rows {
		if r.Arch == "sm_52" && r.Registers > heaviest.Registers {
			heaviest = r
		}
	}
	res := func(kernel string) Resource {
		r, ok := tab.Lookup("sm_52", kernel)
		if !ok {
			t.Fatalf("no %s on sm_52", kernel)
		}
		return r
	}
	axpy := Axpy(1000)[0]
	cases := []struct {
		name string
		c    Config
		r    Resource
		want string // a substring of the error
	}{
		{"2048 threads a block", Config{Kernel: "l2o_axpy", Grid: 1, Block: 2048}, res("l2o_axpy"), "threads per block"},
		{"1024 threads × 128 registers", Config{Kernel: heaviest.Kernel, Grid: 1, Block: 1024}, func() Resource { r := heaviest; r.Registers = 128; return r }(), "registers per block"},
		{"64 KiB of dynamic shared memory", Config{Kernel: "l2o_sum_reduce", Grid: 1, Block: Block, Shared: 64 << 10}, res("l2o_sum_reduce"), "shared memory"},
		{"a grid of 2³¹ blocks", Config{Kernel: "l2o_axpy", Grid: 1 << 31, Block: 1}, res("l2o_axpy"), "blocks in x"},
		{"thread index past 2³¹−1", Config{Kernel: "l2o_axpy", Grid: 1<<23 + 1, Block: Block}, res("l2o_axpy"), "thread index"},
		{"a loop index past 2³¹−1", Dot(math.MaxInt32)[0], res("l2o_dot_reduce"), "n + step"},
		{"a product past 2³¹−1", PlaneCombine(800_000_000, 1)[0], res("l2o_plane_combine"), "3·plane+2 = 2400000000 overflows int"},
		{"a buffer past 2³¹−1", OuterSum(25, 256*256)[0], res("l2o_outer_sum"), "Alloc refuses"},
		{"1 MiB of local memory", axpy, func() Resource { r := res("l2o_axpy"); r.Stack = 1 << 20; return r }(), "local memory"},
		{"resources of another kernel", axpy, res("l2o_axpby"), "resources given"},
	}
	for _, c := range cases {
		err := Check(c.c, sm52, c.r)
		if err == nil {
			t.Errorf("%s: %v passes the check", c.name, c.c)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not say %q", c.name, err, c.want)
		}
	}
	// The same kernel at a block it fits passes: the cases above fail for
	// their reason, not the kernel.
	if err := Check(Config{Kernel: heaviest.Kernel, Grid: 1, Block: 1024}, sm52, heaviest); err != nil {
		t.Errorf("%s (%d registers) at 1024 threads: %v", heaviest.Kernel, heaviest.Registers, err)
	}
	// A whole workload beyond the paper's: 40,000 functions of 256×256.
	big := PaperWorkloads[1]
	big.N = 40000
	if err := CheckAll(Launches(big), Targets, tab); err == nil {
		t.Errorf("%s passes the check", big)
	}
	// A kernel missing from the table.
	if err := CheckAll([]Config{{Op: "X", Kernel: "l2o_missing", Grid: 1, Block: 1}}, Targets, tab); err == nil || !strings.Contains(err.Error(), "not in the resource table") {
		t.Errorf("a kernel missing from the table: %v", err)
	}
}

func TestResidentBlocks(t *testing.T) {
	sm52, _ := TargetByArch("sm_52")
	sm90, _ := TargetByArch("sm_90")
	for _, c := range []struct {
		t                     Target
		threads, regs, shared int
		want                  int
	}{
		{sm52, 256, 32, 0, 8},        // threads: 2048/256
		{sm52, 256, 48, 2048, 5},     // registers: 65536/(8 warps × 1536)
		{sm52, 1024, 128, 0, 0},      // 131072 registers
		{sm90, 256, 16, 48 << 10, 4}, // shared: 228 KiB / (48+1) KiB
	} {
		if got := c.t.ResidentBlocks(c.threads, c.regs, c.shared); got != c.want {
			t.Errorf("%s, %d threads × %d registers, %d bytes shared: %d blocks, want %d", c.t.Arch, c.threads, c.regs, c.shared, got, c.want)
		}
	}
}

const samplePTXAS = `ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'l2o_a' for 'sm_80'
ptxas info    : Function properties for l2o_a
    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, 2048 bytes smem, 380 bytes cmem[0]
ptxas info    : Compiling entry function 'l2o_b' for 'sm_80'
ptxas info    : Function properties for l2o_b
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 7 registers
ptxas warning : Registers are spilled to local memory in function 'l2o_a', 8 bytes spill stores, 4 bytes spill loads
`

func TestParsePTXAS(t *testing.T) {
	rows, problems, err := ParsePTXAS(samplePTXAS)
	if err != nil {
		t.Fatal(err)
	}
	want := []Resource{
		{Arch: "sm_80", Kernel: "l2o_a", Registers: 40, Shared: 2048, Const0: 380, Stack: 16, SpillStores: 8, SpillLoads: 4},
		{Arch: "sm_80", Kernel: "l2o_b", Registers: 7},
	}
	if !slices.Equal(rows, want) {
		t.Errorf("rows %+v, want %+v", rows, want)
	}
	if len(problems) != 1 || !strings.Contains(problems[0], "ptxas warning") {
		t.Errorf("problems %q, want the warning", problems)
	}
	if _, _, err := ParsePTXAS("nothing here"); err == nil {
		t.Error("output without an entry function parses")
	}
}

func TestTableRoundTrip(t *testing.T) {
	tab := embedded(t)
	again, err := ParseTable(tab.Format())
	if err != nil {
		t.Fatal(err)
	}
	if again.PTXSHA256 != tab.PTXSHA256 || again.PTXAS != tab.PTXAS || again.Command != tab.Command || !slices.Equal(again.Rows, tab.Rows) {
		t.Error("the table does not survive Format and ParseTable")
	}
	if got := tab.Format(); got != cudasrc.Resources {
		t.Error("resources.tsv is not in Format's layout: run go generate ./gpu/cudasrc")
	}
	for _, bad := range []string{
		"",
		"# ptx_sha256: x\n# ptxas: y\narch\tkernel\n",
		"# ptx_sha256: x\n# ptxas: y\n" + strings.Join(tableColumns, "\t") + "\nsm_52\tk\t1\t2\t3\t4\t5\n",
		"# ptx_sha256: x\n# ptxas: y\n" + strings.Join(tableColumns, "\t") + "\nsm_52\tk\t1\t2\t3\t4\t5\t-6\n",
		strings.Join(tableColumns, "\t") + "\n",
	} {
		if _, err := ParseTable(bad); err == nil {
			t.Errorf("ParseTable(%q) accepts it", bad)
		}
	}
}

// ExampleCheck checks one launch of the greedy step at scale on a Hopper.
func ExampleCheck() {
	tab, _ := Embedded()
	sm90, _ := TargetByArch("sm_90")
	c := HuberHessVec(1000, 256*256)[0]
	r, _ := tab.Lookup(sm90.Arch, c.Kernel)
	fmt.Println(c, Check(c, sm90, r))
	c.Block = 2048
	fmt.Println(Check(c, sm90, r) != nil)
	// Output:
	// HuberHessVec: l2o_huber_hessvec<<<256000, 256, 0>>> <nil>
	// true
}

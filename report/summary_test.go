package report

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/eval"
	"gonum.org/v1/plot/vg"
)

// TestMethodStyleIsStable: a method's style depends on its name only (not
// on the other methods or their order); the known methods have distinct
// colours; a safeguarded optimizer keeps its colour with another line.
func TestMethodStyleIsStable(t *testing.T) {
	names := []string{"greedy m-ps", "greedy m-pc", "lbfgs", "nag", "heavy-ball", "gd", "pgd", "unrolled m-pc", "banert-T10-3", "greedy m-pp"}
	seen := map[string]string{}
	for _, n := range names {
		st := MethodStyle(n)
		if other, ok := seen[st.Hex()]; ok {
			t.Errorf("%s and %s share the colour %s", n, other, st.Hex())
		}
		seen[st.Hex()] = n
		if a, b := MethodStyle(n), MethodStyle(n); a.Hex() != b.Hex() || a.DashCSS() != b.DashCSS() {
			t.Errorf("%s: style changes between calls", n)
		}
	}
	if MethodStyle("lbfgs").DashCSS() != "dashed" || MethodStyle("greedy m-pc").DashCSS() != "solid" {
		t.Error("baselines should be dashed and learned optimizers solid")
	}
	g := MethodStyle("greedy m-pc (safeguarded)")
	if g.Hex() != MethodStyle("greedy m-pc").Hex() || g.DashCSS() != "dotted" {
		t.Errorf("safeguarded M-PC: %s %s", g.Hex(), g.DashCSS())
	}
	if a, b := MethodStyle("pgd:0.3"), MethodStyle("my method"); a.Hex() != MethodStyle("pgd").Hex() || b.Hex() != MethodStyle("my method").Hex() {
		t.Error("unknown names must map to a fixed colour")
	}
}

// TestWinnerAndNotes: the winner line names the fastest method in
// iterations and in seconds for the tightest tolerance reached; the notes
// explain optimality ≤ 0 and divergence; the safeguard line counts the
// replaced steps.
func TestWinnerAndNotes(t *testing.T) {
	curves := testCurves()
	if got, want := Winner(curves, nil), "Fastest to mean optimality 1e-6: in iterations greedy fast (5), in seconds greedy fast (0.688 s)."; got != want {
		t.Errorf("winner %q, want %q", got, want)
	}
	// slow is faster in seconds to 1e-4 when its iterations are cheaper.
	for i := range curves[1].Seconds {
		curves[1].Seconds[i] /= 100
	}
	if got := Winner(curves, []float64{1e-4}); !strings.Contains(got, "in iterations greedy fast (3), in seconds slow") {
		t.Errorf("winner on 1e-4: %q", got)
	}
	if got := Winner(curves[2:], nil); !strings.HasPrefix(got, "No method reaches") {
		t.Errorf("winner among non-converging methods: %q", got)
	}
	notes := strings.Join(FigureNotes(curves), "\n")
	if !strings.Contains(notes, "† greedy fast: from iteration 6") || !strings.Contains(notes, "estimate of f*") {
		t.Errorf("notes do not explain the optimality ≤ 0 of greedy fast:\n%s", notes)
	}
	g := &eval.Curve{Method: "greedy m-pc (safeguarded)", Rejected: 12, Steps: 400}
	if l := SafeguardLines([]*eval.Curve{g, curves[0]}); len(l) != 1 || !strings.Contains(l[0], "replaced 12 of 400 learned steps (3.0%)") {
		t.Errorf("safeguard lines %q", l)
	}
}

// TestPageStatesWinnerDivergenceAndImage: index.html carries the winner
// line, colour swatches matching MethodStyle, "diverged at iteration k"
// for a diverged method, the notes on values ≤ 0 and the name of the
// reconstructed test image.
func TestPageStatesWinnerDivergenceAndImage(t *testing.T) {
	r := testReport()
	bad := r.Curves[2]
	n := 5
	bad.Iter, bad.Seconds, bad.Mean, bad.Min, bad.Max, bad.Optimality = bad.Iter[:n], bad.Seconds[:n], bad.Mean[:n], bad.Min[:n], bad.Max[:n], bad.Optimality[:n]
	bad.DivergedAt = n
	dir := t.TempDir()
	index, err := r.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(index)
	page := string(b)
	for _, want := range []string{
		`<p class="winner">Fastest to mean optimality 1e-6: in iterations greedy fast (5)`,
		"diverged at iteration 5</td>",
		"bad diverged at iteration 5",
		"† greedy fast: from iteration 6",
		"Reconstructions of test image 3 &lt;of&gt; 10",
		"tr:nth-child(1) td:first-child::before { border-top-style: solid; border-top-color: " + MethodStyle("greedy fast").Hex(),
		"tr:nth-child(2) td:first-child::before { border-top-style: dashed; border-top-color: " + MethodStyle("slow").Hex(),
	} {
		if !strings.Contains(page, want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	if regexp.MustCompile(`<td>[^<]*Inf[^<]*</td>`).MatchString(page) {
		t.Error("index.html shows an infinite value in the table")
	}
	svg, err := os.ReadFile(filepath.Join(dir, "optimality_iter.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"greedy fast †", "bad (diverged at 5)", "below the estimate of f*"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("optimality_iter.svg lacks %q", want)
		}
	}
}

// TestKernelColourBar: a kernel panel carries a colour bar from +s (red) at
// the top to −s (blue) at the bottom, labelled with s.
func TestKernelColourBar(t *testing.T) {
	p := Panel{Label: "k", H: 3, W: 3, Pix: []float64{0, 0.2, 0, -0.1, 5, 0, 0, 0, 0}}
	rd := kernelPanel(p)
	img, _ := kernelImage(p)
	if rd.img.Bounds().Dx() <= img.Bounds().Dx() || len(rd.barLabels) != 3 || rd.barLabels[0] != "+0.2" || rd.barLabels[2] != "−0.2" {
		t.Fatalf("colour bar: width %d (kernel %d), labels %q", rd.img.Bounds().Dx(), img.Bounds().Dx(), rd.barLabels)
	}
	x := rd.img.Bounds().Dx() - 1
	top, _, _, _ := rd.img.At(x, 0).RGBA()
	_, _, bottom, _ := rd.img.At(x, rd.img.Bounds().Dy()-1).RGBA()
	tr, _, tb, _ := rd.img.At(x, 0).RGBA()
	br, _, bb, _ := rd.img.At(x, rd.img.Bounds().Dy()-1).RGBA()
	if !(tr > tb && bb > br) || top == 0 || bottom == 0 {
		t.Errorf("colour bar runs from %v (top) to %v (bottom), want red to blue", rd.img.At(x, 0), rd.img.At(x, rd.img.Bounds().Dy()-1))
	}
}

// TestStrongerBaselineStyles: silver, nag-restart (both schemes), bb, bb(m=M)
// and lbfgs(m=M) each get a fixed style (not a hashed colour) that differs
// in colour or line from every other baseline's; lbfgs(m=M) is a shade of
// L-BFGS's green (lighter for M < 10, darker for M > 10), written either as
// the curve names it ("lbfgs(m=3)") or as --methods does ("lbfgs:m=3").
func TestStrongerBaselineStyles(t *testing.T) {
	baselines := []string{"gd", "heavy-ball", "nag", "lbfgs", "pgd", "silver", "nag-restart", "nag-restart(function)",
		"bb", "bb(m=5)", "lbfgs(m=3)", "lbfgs(m=5)", "lbfgs(m=20)", "lbfgs(m=40)"}
	key := func(s Style) string { return fmt.Sprint(s.Hex(), s.Dashes, s.Width) }
	seen := map[string]string{}
	for _, n := range baselines {
		st := MethodStyle(n)
		if other, ok := seen[key(st)]; ok {
			t.Errorf("%s and %s are drawn alike (%s)", n, other, key(st))
		}
		seen[key(st)] = n
		if st.DashCSS() != "dashed" || st.Width != vg.Points(1.5) {
			t.Errorf("%s: %s line of width %v, want a thin dashed baseline", n, st.DashCSS(), st.Width)
		}
	}
	// The new names do not share a colour with a learned method or with
	// the baselines they do not vary.
	for _, n := range []string{"silver", "nag-restart", "bb"} {
		for _, other := range []string{"greedy m-ps", "greedy m-pc", "greedy m-pp", "unrolled m-pc", "banert", "gd", "heavy-ball", "nag", "lbfgs", "pgd"} {
			if MethodStyle(n).Hex() == MethodStyle(other).Hex() {
				t.Errorf("%s has the colour of %s", n, other)
			}
		}
	}
	for _, pair := range [][2]string{{"lbfgs:m=3", "lbfgs(m=3)"}, {"lbfgs:m=40", "lbfgs(m=40)"}, {"bb:m=5", "bb(m=5)"}, {"nag-restart:function", "nag-restart(function)"}} {
		if a, b := MethodStyle(pair[0]), MethodStyle(pair[1]); key(a) != key(b) {
			t.Errorf("%s is drawn as %s, %s as %s", pair[0], key(a), pair[1], key(b))
		}
	}
	green := MethodStyle("lbfgs").Color
	lum := func(c color.RGBA) int { return int(c.R) + int(c.G) + int(c.B) }
	for _, n := range []string{"lbfgs(m=3)", "lbfgs(m=5)", "lbfgs(m=20)", "lbfgs(m=40)"} {
		c := MethodStyle(n).Color
		if !(c.G > c.R && c.G > c.B) {
			t.Errorf("%s is %s, not a shade of L-BFGS's green", n, MethodStyle(n).Hex())
		}
		m, _ := memoryOf(n, "lbfgs")
		if (m < 10) != (lum(c) > lum(green)) {
			t.Errorf("%s (%s) should be %s than lbfgs (%s)", n, MethodStyle(n).Hex(), map[bool]string{true: "lighter", false: "darker"}[m < 10], MethodStyle("lbfgs").Hex())
		}
	}
	if lum(MethodStyle("lbfgs(m=3)").Color) <= lum(MethodStyle("lbfgs(m=5)").Color) || lum(MethodStyle("lbfgs(m=20)").Color) <= lum(MethodStyle("lbfgs(m=40)").Color) {
		t.Error("a smaller L-BFGS memory should be drawn lighter")
	}
	// The case does not change a baseline's colour;
	// a name with a bad memory falls back to a hashed colour, stably.
	if MethodStyle("LBFGS(m=40)").Hex() != MethodStyle("lbfgs(m=40)").Hex() {
		t.Error("the style depends on the name's case")
	}
	if a, b := MethodStyle("lbfgs(m=x)"), MethodStyle("lbfgs(m=x)"); a.Hex() != b.Hex() {
		t.Error("unstable style for an unparsable memory")
	}
}

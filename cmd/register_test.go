package cmd

import (
	"bytes"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
	G "gorgonia.org/gorgonia"
)

var registerOuter = sync.OnceValue(func() error {
	return models.Register(models.Registration{Name: "outer", Version: 1, Summary: "test: outer-product weights",
		New: func(string) (models.Parametrization, error) { return testproblems.OuterWeights{}, nil }})
})

// TestRegisteredParametrizationThroughTheCommandLine registers a new
// parametrization and runs it through every command that reads a
// checkpoint: train greedy, apply, eval and certify (whose ‖G − τI‖ comes
// from power iteration, the type having no closed-form norm), and param
// list names it. Before the registry, loading failed with "unknown
// parametrization".
func TestRegisteredParametrizationThroughTheCommandLine(t *testing.T) {
	if err := registerOuter(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "outer")
	run := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := Main(args, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", strings.Join(args[:2], " "), code, errb.String())
		}
		return out.String()
	}
	run("train", "greedy", "--param", "outer:ps", "--size", "12", "--n-train", "3", "--max-steps", "3",
		"--lambda", "1e-3", "--mu", "1e-3", "--out", dir)
	if s := run("apply", "--params", dir, "--n-test", "2", "--iters", "4"); !strings.Contains(s, "outer:ps") {
		t.Errorf("apply does not name the method:\n%s", s)
	}
	evalDir := filepath.Join(t.TempDir(), "eval")
	run("eval", "--params", dir, "--methods", "gd", "--n-test", "2", "--iters", "4", "--size", "12", "--out", evalDir)
	s := run("certify", "--params", dir, "--all")
	rows := 0
	for _, line := range strings.Split(s, "\n") {
		if f := strings.Fields(line); len(f) >= 3 && (f[0] == "0" || f[0] == "1" || f[0] == "2") {
			rows++
		}
	}
	if rows != 3 {
		t.Errorf("certify: %d step rows, want 3:\n%s", rows, s)
	}
	// A checkpoint of another version of the family is refused (exit 2):
	// one written, sealed, by a build that registers version 2.
	man, err := checkpoint.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if man.ParamVersions["outer"] != 1 {
		t.Fatalf("manifest records the versions %v, want outer 1", man.ParamVersions)
	}
	man.ParamVersions["outer"] = 2
	if err := checkpoint.WriteManifest(dir, man); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"apply", "--params", dir, "--n-test", "2", "--iters", "2"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "version 2") {
		t.Errorf("apply on a checkpoint of outer v2: exit %d, %q; want exit 2 naming the version", code, errb.String())
	}
	if s := run("param", "list"); !strings.Contains(s, "outer") {
		t.Errorf("param list does not name outer:\n%s", s)
	}
}

var registerCauchy = sync.OnceFunc(func() {
	problem.Register("deblur-cauchy-test", "test: Problem 1 with the Cauchy penalty", func(opt problem.Options) (*problem.Problem, error) {
		p, err := problem.Deblur(opt)
		if err != nil {
			return nil, err
		}
		reg, err := problem.NewAutoRegularizer("cauchy(nu=0.1)", func(x *G.Node) (*G.Node, error) {
			d, err := graph.Linear(graph.Diff{}, x)
			if err != nil {
				return nil, err
			}
			r2 := G.Must(G.Sum(G.Must(G.Square(d)), 1))
			return G.Sum(G.Must(G.Log1p(G.Must(G.Mul(r2, G.NewConstant(100.0))))))
		}, p.H, p.W, 0)
		if err != nil {
			return nil, err
		}
		p.Name, p.Reg = "deblur-cauchy-test", reg
		return p, nil
	})
})

// TestRegisteredProblemThroughTheCommandLine registers a problem whose
// regularizer is given by its value alone and runs train greedy, apply,
// eval and certify on it by name, and unrolled and Banert training, which
// differentiate through ∇f, run on it too.
func TestRegisteredProblemThroughTheCommandLine(t *testing.T) {
	registerCauchy()
	dir := filepath.Join(t.TempDir(), "cauchy")
	run := func(want int, args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := Main(args, &out, &errb); code != want {
			t.Fatalf("%s: exit %d, want %d: %s", strings.Join(args[:2], " "), code, want, errb.String())
		}
		return out.String() + errb.String()
	}
	common := []string{"--problem", "deblur-cauchy-test", "--size", "12"}
	run(0, append([]string{"train", "greedy", "--param", "m-ps", "--n-train", "3", "--max-steps", "3", "--out", dir}, common...)...)
	run(0, "apply", "--params", dir, "--n-test", "2", "--iters", "4")
	run(0, append([]string{"eval", "--params", dir, "--methods", "nag,lbfgs", "--n-test", "2", "--iters", "4", "--out", filepath.Join(t.TempDir(), "e")}, common...)...)
	run(0, "certify", "--params", dir)
	// Unrolled and Banert training differentiate through ∇f: the
	// regularizer's Hessian–vector products (HessVec) make it possible.
	run(0, append([]string{"train", "unroll", "--param", "m-ps", "--n-train", "2", "--T", "2", "--epochs", "1", "--batch", "2", "--out", filepath.Join(t.TempDir(), "u")}, common...)...)
	run(0, append([]string{"train", "banert", "--n-train", "2", "--T", "2", "--epochs", "1", "--out", filepath.Join(t.TempDir(), "b")}, common...)...)
}

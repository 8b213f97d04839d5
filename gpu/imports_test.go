package gpu_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/greedyl2o/greedyl2o/"

// problemPackages are the packages that define problems: the backend
// (package gpu and everything under it) knows arrays, not problems, so it
// imports none of them; they build their operators on it instead.
var problemPackages = []string{"tomo", "mconv", "wcrr", "problem"}

// moduleImports returns the module's packages that the non-test files of
// the package in dir (relative to the module root) import, under every
// build tag.
func moduleImports(t *testing.T, root, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, dir))
	if err != nil {
		t.Fatal(err)
	}
	var deps []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, dir, name), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if rel, ok := strings.CutPrefix(path, module); ok {
				deps = append(deps, rel)
			}
		}
	}
	return deps
}

// TestBackendImportsNoProblemPackage follows the imports of every package
// under gpu (non-test files, every build tag, l2ocuda included) through the
// module and fails if they reach a problem package: a new backend then
// implements arrays only.
func TestBackendImportsNoProblemPackage(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	via := map[string]string{} // package → the package that imports it
	var queue []string
	err = filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			pkg := filepath.ToSlash(filepath.Join("gpu", path))
			via[pkg], queue = "", append(queue, pkg)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		for _, dep := range moduleImports(t, root, pkg) {
			if _, seen := via[dep]; !seen {
				via[dep], queue = pkg, append(queue, dep)
			}
		}
	}
	for _, p := range problemPackages {
		if from, ok := via[p]; ok {
			chain := p
			for at := from; at != ""; at = via[at] {
				chain = at + " → " + chain
			}
			t.Errorf("the backend imports problem package %s: %s", p, chain)
		}
	}
}

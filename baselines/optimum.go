package baselines

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"math"
	"os"
	"path/filepath"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/problem"
)

// DefaultOptimumIters is Optimum's default number of NAG iterations.
const DefaultOptimumIters = 2000

// optimumFile is the JSON form of a cached Optimum result.
type optimumFile struct {
	Key         string    `json:"key"`
	Operator    string    `json:"operator"`
	Regularizer string    `json:"regularizer"`
	Alpha       float64   `json:"alpha"`
	N           int       `json:"n"`
	Iters       int       `json:"iters"`
	FStar       []float64 `json:"fstar"`
	// Sum is fstarSum(Key, FStar): a file whose values were changed is
	// not used (nor one written before it was recorded).
	Sum string `json:"sha256"`
}

// fstarSum is the SHA-256 of a cache file's key and values.
func fstarSum(key string, fstar []float64) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", key)
	checkpoint.WriteFloats(h, fstar)
	return hex.EncodeToString(h.Sum(nil))
}

// Optimum estimates the minimal values f*_k of the functions of o as the
// smallest values f_k(x_k^t), t = 0…iters (0 means DefaultOptimumIters), of
// NAG with backtracking.
//
// If cacheDir is not empty the result is cached there as JSON, in a file named
// by a SHA-256 hash of the operator and regularizer descriptions, α, the image
// size, the data y, the starting points and iters, and written atomically
// (temporary file, then rename). A cache file that cannot be read, does not
// parse or does not match is ignored: the values are recomputed and the file
// is overwritten.
func Optimum(o *problem.Objective, iters int, cacheDir string) ([]float64, error) {
	return OptimumWith(o, NAG{}, iters, cacheDir)
}

// OptimumWith is Optimum with another method m in place of NAG: the smallest
// values f_k(x_k^t), t = 0…iters, of m's iterates. L-BFGS, for instance,
// reaches a given accuracy in far fewer iterations on the CT problems, where
// an iteration costs a projection and a back-projection. The run ends early
// when an iteration makes no evaluations (an L-BFGS whose functions are all
// at the limit of precision). The cache key includes m and its settings
// (NAG{}'s key is the one Optimum has always used).
func OptimumWith(o *problem.Objective, m Method, iters int, cacheDir string) ([]float64, error) {
	return OptimumProgress(o, m, iters, cacheDir, nil)
}

// OptimumProgress is OptimumWith that calls progress(t, iters) after
// every iteration t it runs (none when the cache holds the values).
func OptimumProgress(o *problem.Objective, m Method, iters int, cacheDir string, progress func(t, iters int)) ([]float64, error) {
	if m == nil {
		return nil, fmt.Errorf("optimum: method is nil")
	}
	if iters == 0 {
		iters = DefaultOptimumIters
	}
	if iters < 0 {
		return nil, fmt.Errorf("optimum: %d iterations is negative", iters)
	}
	if o == nil {
		return nil, fmt.Errorf("optimum: objective is nil")
	}
	key := optimumKey(o, fmt.Sprintf("%#v", m), iters)
	path := ""
	if cacheDir != "" {
		path = filepath.Join(cacheDir, "optimum-"+key[:32]+".json")
		if fs, ok := readOptimum(path, key, o.N); ok {
			return fs, nil
		}
	}
	fstar, err := runOptimum(o, m, iters, progress)
	if err != nil {
		return nil, err
	}
	if path != "" {
		rec := optimumFile{Key: key, Operator: o.A.String(), Regularizer: o.Reg.String(), Alpha: o.Alpha, N: o.N, Iters: iters, FStar: fstar, Sum: fstarSum(key, fstar)}
		if err := writeFileAtomic(path, rec); err != nil {
			return nil, fmt.Errorf("optimum: caching: %w", err)
		}
	}
	return fstar, nil
}

func runOptimum(o *problem.Objective, m Method, iters int, progress func(t, iters int)) ([]float64, error) {
	it, err := m.Start(o)
	if err != nil {
		return nil, fmt.Errorf("optimum: %s: %w", m.Name(), err)
	}
	fstar := make([]float64, o.N)
	vals := make([]float64, o.N)
	ws := &problem.Workspace{}
	// Iterators that know f at their iterates say so; others are evaluated.
	valuer, known := it.(interface{ Values() []float64 })
	record := func() error {
		if known {
			copy(vals, valuer.Values())
		} else if err := o.Eval(vals, nil, it.X(), ws); err != nil {
			return err
		}
		for k, f := range vals {
			if !math.IsNaN(f) {
				fstar[k] = math.Min(fstar[k], f)
			}
		}
		return nil
	}
	for k := range fstar {
		fstar[k] = math.Inf(1)
	}
	if err := record(); err != nil {
		return nil, fmt.Errorf("optimum: %w", err)
	}
	// Stop early once an iteration makes no evaluations: an iterator that
	// counts them (L-BFGS) has then frozen every function at the limit of
	// precision, and later iterations change nothing.
	counter, counts := it.(Evaluator)
	evals := func() int {
		total := 0
		for _, e := range counter.Evaluations() {
			total += e
		}
		return total
	}
	for t := 0; t < iters; t++ {
		before := 0
		if counts {
			before = evals()
		}
		if err := it.Next(); err != nil {
			return nil, fmt.Errorf("optimum: %s iteration %d: %w", m.Name(), t+1, err)
		}
		if err := record(); err != nil {
			return nil, fmt.Errorf("optimum: %w", err)
		}
		if progress != nil {
			progress(t+1, iters)
		}
		if counts && evals() == before {
			break
		}
	}
	return fstar, nil
}

// optimumKey hashes everything that determines Optimum's result.
func optimumKey(o *problem.Objective, method string, iters int) string {
	h := sha256.New()
	if method != fmt.Sprintf("%#v", NAG{}) {
		fmt.Fprintf(h, "method %s\n", method)
	}
	fmt.Fprintf(h, "greedyl2o optimum v1\noperator %s\nregularizer %s\nalpha %.17g\nsize %d %d %d\niters %d\n",
		o.A, o.Reg, o.Alpha, o.N, o.H, o.W, iters)
	writeFloats(h, o.Y)
	writeFloats(h, o.X0)
	return hex.EncodeToString(h.Sum(nil))
}

func writeFloats(h hash.Hash, v []float64) {
	fmt.Fprintf(h, "%d values\n", len(v))
	checkpoint.WriteFloats(h, v)
}

// readOptimum returns the cached values when the file exists, parses, has
// the right key and n finite values.
func readOptimum(path, key string, n int) ([]float64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	var rec optimumFile
	if json.Unmarshal(b, &rec) != nil || rec.Key != key || len(rec.FStar) != n || rec.Sum != fstarSum(key, rec.FStar) {
		return nil, false
	}
	for _, f := range rec.FStar {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, false
		}
	}
	return rec.FStar, true
}

// writeFileAtomic writes v as JSON to a temporary file in path's directory
// and renames it to path.
func writeFileAtomic(path string, v any) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

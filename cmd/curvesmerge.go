package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/provenance"
	"github.com/spf13/pflag"
)

func init() {
	register(&Command{Name: "curves merge", Summary: "join the folders of eval --shard 1/n … n/n into the whole test set's curves.csv and curves.json (values bitwise those of one eval)", Run: runCurvesMerge})
}

func runCurvesMerge(env *Env, args []string) error {
	fs := newFlags(env, "curves merge", "curves merge --out DIR SHARD_DIR…   (the --out folders of l2o eval --shard i/n, any order)")
	out := fs.String("out", "", "folder for the merged curves.csv and curves.json (refused if it holds results, unless --force)")
	force := fs.Bool("force", false, "replace the results already in --out")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return usagef("%v (l2o curves merge --help lists the flags)", err)
	}
	if *out == "" || fs.NArg() == 0 {
		return usagef("give --out DIR and the shards' folders: l2o curves merge --out DIR SHARD_DIR…")
	}
	var runs []shardRun
	for _, dir := range fs.Args() {
		r, err := readShardRun(dir)
		if err != nil {
			return err
		}
		runs = append(runs, r)
	}
	curves, prov, err := mergeShardRuns(runs)
	if err != nil {
		return err
	}
	prov.Invocation = env.invocation()
	lock, err := claimResultsDir(env, "--out", *out, *force)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	if err := clearResults(*out, evalResults...); err != nil {
		return err
	}
	if err := writeCurves(*out, curves, prov); err != nil {
		return err
	}
	for _, r := range runs {
		if r.shard.Index == 1 {
			if err := copyRecon(r.dir, *out); err != nil {
				return err
			}
		}
	}
	printSummary(env, curves, []float64{1e-4, 1e-6})
	fmt.Fprintf(env.Stdout, "%d shards merged into %s\n", len(runs), *out)
	return nil
}

// shardRun is the curves one shard of an evaluation wrote.
type shardRun struct {
	dir    string // where they were read from (for messages)
	shard  eval.Shard
	curves []*eval.Curve
	prov   *provenance.Record
}

// readShardRun reads DIR/curves.json (or the file named) of eval --shard.
func readShardRun(dir string) (shardRun, error) {
	path := dir
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		path = filepath.Join(dir, "curves.json")
	} else {
		dir = filepath.Dir(dir)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return shardRun{}, usagef("shard %s: %v: give the --out folder of an l2o eval --shard run", dir, err)
	}
	return decodeShardRun(dir, b)
}

// decodeShardRun reads a shard's curves.json from b.
func decodeShardRun(dir string, b []byte) (shardRun, error) {
	curves, prov, err := eval.ReadJSONWith(bytes.NewReader(b))
	if err != nil {
		return shardRun{}, usagef("shard %s: %v", dir, err)
	}
	r := shardRun{dir: dir, curves: curves, prov: prov}
	for _, c := range curves {
		if c.Part == nil {
			return shardRun{}, usagef("shard %s: curve %s was measured on the whole test set, not a shard (l2o eval --shard i/n)", dir, c.Method)
		}
		if r.shard != (eval.Shard{}) && c.Part.Shard != r.shard {
			return shardRun{}, usagef("shard %s holds curves of shards %s and %s", dir, r.shard, c.Part.Shard)
		}
		r.shard = c.Part.Shard
	}
	if len(curves) == 0 || prov == nil {
		return shardRun{}, usagef("shard %s: no curves, or no provenance to check them by", dir)
	}
	return r, nil
}

// mergeShardRuns orders the shards, refuses missing or repeated ones and
// shards of other checkpoints, settings, test sets or builds, and merges
// their curves method by method; the provenance is shard 1's with every
// shard's invocation in Shards.
func mergeShardRuns(runs []shardRun) ([]*eval.Curve, *provenance.Record, error) {
	n := runs[0].shard.Count
	byIndex := make([][]string, n+1)
	for _, r := range runs {
		if r.shard.Count != n {
			return nil, nil, usagef("shard %s is %s, shard %s is %s: merge the shards of one split", runs[0].dir, runs[0].shard, r.dir, r.shard)
		}
		byIndex[r.shard.Index] = append(byIndex[r.shard.Index], r.dir)
	}
	var missing, repeated []string
	for i := 1; i <= n; i++ {
		switch len(byIndex[i]) {
		case 0:
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		case 1:
		default:
			repeated = append(repeated, fmt.Sprintf("%d/%d (%s)", i, n, strings.Join(byIndex[i], ", ")))
		}
	}
	if len(missing)+len(repeated) > 0 {
		msg := ""
		if len(missing) > 0 {
			msg = "shards missing: " + strings.Join(missing, ", ")
		}
		if len(repeated) > 0 {
			msg = strings.TrimPrefix(msg+"; shards given twice: "+strings.Join(repeated, "; "), "; ")
		}
		return nil, nil, usagef("%s: give each of the %d shards once", msg, n)
	}
	ordered := slices.Clone(runs)
	slices.SortFunc(ordered, func(a, b shardRun) int { return a.shard.Index - b.shard.Index })
	for _, r := range ordered[1:] {
		if err := sameEvaluation(ordered[0], r); err != nil {
			return nil, nil, err
		}
	}
	var merged []*eval.Curve
	for m := range ordered[0].curves {
		parts := make([]*eval.Curve, len(ordered))
		for s, r := range ordered {
			parts[s] = r.curves[m]
		}
		c, err := eval.Merge(parts)
		if err != nil {
			return nil, nil, asUsage(err)
		}
		merged = append(merged, c)
	}
	prov := *ordered[0].prov
	prov.Shards = nil
	for _, r := range ordered {
		prov.Shards = append(prov.Shards, r.prov.Invocation)
	}
	return merged, &prov, nil
}

// sameEvaluation refuses shard b unless it is a shard of shard a's
// evaluation: the same checkpoints, test set, f*, settings (eval's flags
// but --shard, --out, --force and --cache), build and methods.
func sameEvaluation(a, b shardRun) error {
	differ := func(what string, x, y any) error {
		jx, _ := json.Marshal(x)
		jy, _ := json.Marshal(y)
		if bytes.Equal(jx, jy) {
			return nil
		}
		return usagef("shards %s (%s) and %s (%s) differ in their %s: %s against %s; merge the shards of one evaluation", a.shard, a.dir, b.shard, b.dir, what, jx, jy)
	}
	pa, pb := a.prov, b.prov
	methods := func(r shardRun) []string {
		var ms []string
		for _, c := range r.curves {
			ms = append(ms, c.Method)
		}
		return ms
	}
	for _, d := range []struct {
		what string
		x, y any
	}{
		{"checkpoints", pa.Checkpoints, pb.Checkpoints},
		{"test sets", pa.Test, pb.Test},
		{"f*", pa.FStar, pb.FStar},
		{"settings", evalSettings(pa.Args), evalSettings(pb.Args)},
		{"methods", methods(a), methods(b)},
		{"l2o revisions", pa.Build.Revision, pb.Build.Revision},
	} {
		if err := differ(d.what, d.x, d.y); err != nil {
			return err
		}
	}
	return nil
}

// evalSettings are eval's arguments without those that do not change the
// curves' values: --shard, --out, --force, --cache.
func evalSettings(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		name, _, hasValue := strings.Cut(args[i], "=")
		switch name {
		case "--shard", "--out", "--cache":
			if !hasValue {
				i++
			}
			continue
		case "--force":
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// copyRecon copies the reconstructions of the first test function, which
// its shard (1/n) wrote, into the merged folder.
func copyRecon(shard1, out string) error {
	src := filepath.Join(shard1, "recon")
	if _, err := os.Stat(src); err != nil {
		return nil
	}
	return os.CopyFS(filepath.Join(out, "recon"), os.DirFS(src))
}

package cmd

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/greedyl2o/greedyl2o/baselines/banert"
	"github.com/greedyl2o/greedyl2o/bench"
	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/provenance"
	"github.com/greedyl2o/greedyl2o/unroll"
)

func init() {
	register(&Command{Name: "runs show", Summary: "say in a few lines what a checkpoint, eval or report directory holds and where it came from", Run: runRunsShow})
}

func runRunsShow(env *Env, args []string) error {
	fs := newFlags(env, "runs show", "runs show DIR [DIR…]   (a checkpoint of train greedy/unroll/banert, or the --out of eval, bench greedy, report or demo)")
	var flags, dirs []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			flags = append(flags, a)
		} else {
			dirs = append(dirs, a)
		}
	}
	if err := parse(fs, flags); err != nil {
		return err
	}
	if len(dirs) == 0 {
		return usagef("give a directory: l2o runs show DIR")
	}
	for i, dir := range dirs {
		if i > 0 {
			fmt.Fprintln(env.Stdout)
		}
		lines, err := describeRun(dir)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "%s\n", dir)
		for _, l := range lines {
			fmt.Fprintf(env.Stdout, "  %s\n", l)
		}
	}
	return nil
}

// describeRun reads what dir holds: a checkpoint (manifest.json) or
// results (curves.json).
func describeRun(dir string) ([]string, error) {
	if b, err := os.ReadFile(filepath.Join(dir, "manifest.json")); err == nil {
		var head struct {
			Format string `json:"format"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			return nil, usagef("%s/manifest.json is corrupt: %v", dir, err)
		}
		switch head.Format {
		case checkpoint.FormatVersion, checkpoint.LegacyFormat:
			return describeGreedy(dir)
		case banert.FormatVersion, banert.LegacyFormat:
			return describeBanert(dir)
		}
		return nil, usagef("%s holds a checkpoint of unknown format %q", dir, head.Format)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "saved.json")); err == nil {
		return describeApplied(dir, b)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "memory.json")); err == nil {
		var rep bench.Report
		if err := json.Unmarshal(b, &rep); err != nil {
			return nil, usagef("%s/memory.json is corrupt: %v", dir, err)
		}
		lines := []string{fmt.Sprintf("bench memory: %d measurements of %s on %d×%d, N = %d (memory.csv, memory.svg)", len(rep.Rows), rep.Config.Param, rep.Config.Size, rep.Config.Size, rep.Config.NTrain)}
		return append(lines, provenanceLines(rep.Provenance)...), nil
	}
	f, err := os.Open(filepath.Join(dir, "curves.json"))
	if err != nil {
		return nil, usagef("%s holds neither a checkpoint (manifest.json) nor results (curves.json, or apply's saved.json)", dir)
	}
	defer f.Close()
	curves, prov, err := eval.ReadJSONWith(f)
	if err != nil {
		return nil, usagef("%s/curves.json: %v", dir, err)
	}
	names := make([]string, len(curves))
	for i, c := range curves {
		names[i] = c.Method
	}
	iters := 0
	if len(curves) > 0 && len(curves[0].Iter) > 0 {
		iters = curves[0].Iter[len(curves[0].Iter)-1]
	}
	lines := []string{fmt.Sprintf("results: %d curves to iteration %d: %s", len(curves), iters, strings.Join(names, ", "))}
	files, err := checkResultFiles(dir, curves)
	if err != nil {
		return nil, err
	}
	lines = append(lines, files)
	return append(lines, provenanceLines(prov)...), nil
}

// checkResultFiles checks the files beside curves.json (read: its SHA-256
// matched): curves.csv holds every row of the curves, every PNG image under
// dir decodes to its end. A truncated or unreadable file is an error
// naming it (exit 2).
func checkResultFiles(dir string, curves []*eval.Curve) (string, error) {
	parts := []string{"curves.json matching its SHA-256"}
	if f, err := os.Open(filepath.Join(dir, "curves.csv")); err == nil {
		r := csv.NewReader(f)
		r.Comment, r.FieldsPerRecord = '#', -1
		rows, err := r.ReadAll()
		f.Close()
		want := 1 // the header
		for _, c := range curves {
			want += len(c.Iter)
			if c.Diverged() {
				want++
			}
		}
		if err != nil || len(rows) != want {
			return "", usagef("%s/curves.csv is truncated or is not curves.json's (%d rows, want %d; %v): evaluate again", dir, len(rows), want, err)
		}
		parts = append(parts, fmt.Sprintf("curves.csv complete (%d rows)", want-1))
	}
	var pngs []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".png") {
			pngs = append(pngs, p)
		}
		return nil
	})
	for _, p := range pngs {
		f, err := os.Open(p)
		if err != nil {
			return "", usagef("%s: %v", p, err)
		}
		_, err = png.Decode(f)
		f.Close()
		if err != nil {
			return "", usagef("%s is truncated or not a PNG image (%v): evaluate or report again", p, err)
		}
	}
	if len(pngs) > 0 {
		parts = append(parts, fmt.Sprintf("%d PNG images complete", len(pngs)))
	}
	return "files: " + strings.Join(parts, ", "), nil
}

// describeApplied describes the iterates apply saved (saved.json, b) and
// where they came from (provenance.json).
func describeApplied(dir string, b []byte) ([]string, error) {
	var saved []appliedIterate
	if err := json.Unmarshal(b, &saved); err != nil {
		return nil, usagef("%s/saved.json is corrupt: %v", dir, err)
	}
	iters := make([]string, len(saved))
	for i, s := range saved {
		iters[i] = strconv.Itoa(s.Iter)
	}
	lines := []string{fmt.Sprintf("applied iterates: %d saved, at iterations %s", len(saved), strings.Join(iters, ", "))}
	var prov *provenance.Record
	if pb, err := os.ReadFile(filepath.Join(dir, "provenance.json")); err == nil {
		prov = &provenance.Record{}
		if err := json.Unmarshal(pb, prov); err != nil {
			return nil, usagef("%s/provenance.json is corrupt: %v", dir, err)
		}
	}
	return append(lines, provenanceLines(prov)...), nil
}

func describeGreedy(dir string) ([]string, error) {
	man, err := checkpoint.ReadManifest(dir)
	if err != nil {
		return nil, asUsage(err)
	}
	if !unroll.IsUnrolled(man) {
		// The checks every loader makes: parametrization versions, and
		// parameter lengths that fit the method on the manifest's size.
		if _, _, err := learned.Load(dir); err != nil {
			return nil, asUsage(err)
		}
	}
	kind := "greedy checkpoint"
	if unroll.IsUnrolled(man) {
		kind = "unrolled checkpoint"
	}
	files, err := filesLine(dir, man.Checksums)
	if err != nil {
		return nil, err
	}
	state := "unfinished (l2o train … --out " + dir + " --resume continues it)"
	if man.Finished {
		state = "finished: " + man.StopCause
	}
	lines := []string{
		fmt.Sprintf("%s: %s, %d steps, %s", kind, man.Method, len(man.Steps), state),
		fmt.Sprintf("problem: %s %d×%d (%s), %d training functions, τ = %.4g, L = %.4g, inner %s",
			man.Problem, man.H, man.W, orNone(man.Conventions.String()), man.NTrain, man.Tau, man.L, orNone2(man.InnerSettings, man.Inner)),
		files, sealLine(man),
	}
	if held, pid := checkpoint.Held(dir); held {
		lines = append(lines, fmt.Sprintf("being trained now (pid %d holds its lock): later steps are not listed yet", pid))
	} else if paths, size := orphans(dir); len(paths) > 0 {
		lines = append(lines, fmt.Sprintf("left behind: %d files (%.3g MB) its manifest does not list, of a step a stopped run did not complete (e.g. %s): --resume removes them, or delete them",
			len(paths), float64(size)/1e6, paths[0]))
	}
	return append(lines, provenanceLines(man.Provenance)...), nil
}

// filesLine checks every file a checkpoint's manifest lists against its
// recorded SHA-256 and says so; a missing or changed file is an error
// (exit 2) naming it.
func filesLine(dir string, sums map[string]string) (string, error) {
	if sums == nil {
		return "files: not verified (the checkpoint records no checksums: written before they were)", nil
	}
	// The resume state (state/…) may have been left behind when a finished
	// run was carried for evaluation; whatever is there must match.
	params, state, missing := map[string]string{}, map[string]string{}, 0
	for rel, sum := range sums {
		switch _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel))); {
		case !strings.HasPrefix(rel, "state/"):
			params[rel] = sum
		case err != nil:
			missing++
		default:
			state[rel] = sum
		}
	}
	for _, set := range []map[string]string{params, state} {
		if err := checkpoint.VerifyChecksums(dir, set); err != nil {
			return "", usagef("%s is not the checkpoint its manifest describes: %v", dir, err)
		}
	}
	line := fmt.Sprintf("files: %d, each matching the SHA-256 its manifest records", len(params)+len(state))
	if missing > 0 {
		line += fmt.Sprintf("; %d resume-state files (state/) are absent: it evaluates, and does not resume", missing)
	}
	return line, nil
}

func describeBanert(dir string) ([]string, error) {
	man, err := banert.ReadManifest(dir)
	if err != nil {
		return nil, asUsage(err)
	}
	files, err := filesLine(dir, man.Checksums)
	if err != nil {
		return nil, err
	}
	lines := []string{
		fmt.Sprintf("Banert checkpoint: %d inputs, T = %d, %d of %d epochs", man.Inputs, man.T, len(man.History), man.Epochs),
		fmt.Sprintf("problem: %s %d×%d (%s), %d training functions", man.Problem, man.H, man.W, orNone(man.Conventions.String()), man.NTrain),
		files,
	}
	return append(lines, provenanceLines(man.Provenance)...), nil
}

// sealLine says whether a manifest is sealed under its SHA-256.
func sealLine(man *checkpoint.Manifest) string {
	if !man.Sealed {
		return "manifest: not sealed (written before manifests were): an edit of it would go unnoticed"
	}
	return fmt.Sprintf("manifest: sealed, sha256 %.16s…", man.SHA256)
}

func provenanceLines(p *provenance.Record) []string {
	if p == nil {
		return []string{"provenance: not recorded (written by an older l2o)"}
	}
	return p.Lines()
}

package cmd

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/eval"
)

// curveValues reads dir/curves.json and returns its curves' JSON without
// the times (the only values a split run measures differently).
func curveValues(t *testing.T, dir string) string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "curves.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	curves, err := eval.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range curves {
		if c.Part != nil {
			t.Fatalf("%s: curve %s still carries its shard record", dir, c.Method)
		}
		c.Seconds = make([]float64, len(c.Seconds))
	}
	var b bytes.Buffer
	if err := eval.WriteJSON(&b, curves); err != nil {
		t.Fatal(err)
	}
	var file struct{ Curves json.RawMessage }
	if err := json.Unmarshal(b.Bytes(), &file); err != nil {
		t.Fatal(err)
	}
	return string(file.Curves)
}

// csvValues returns curves.csv without its comments and seconds column.
func csvValues(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "curves.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "#") {
			continue
		}
		if f := strings.Split(l, ","); len(f) > 3 {
			f[2] = ""
			l = strings.Join(f, ",")
		}
		rows = append(rows, l)
	}
	return strings.Join(rows, "\n")
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("l2o %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	return out.String()
}

// TestShardsMergedEqualWhole: eval of a checkpoint (with its safeguarded
// copy) and baselines on 5 test functions, split as a job array would split
// it (--shard i/n, Slurm's and Kubernetes' index variables), merged by
// curves merge, gives curves.json and curves.csv whose values equal one
// eval's bitwise; the merge refuses missing, repeated and foreign shards
// with exit 2 naming them.
func TestShardsMergedEqualWhole(t *testing.T) {
	tmp := t.TempDir()
	ck := trainSmall(t, filepath.Join(tmp, "run"))
	cache := t.TempDir()
	base := []string{"eval", "--params", ck, "--safeguard", "--methods", "gd,lbfgs", "--n-test", "5", "--iters", "6", "--fstar-iters", "30", "--psnr-at", "3", "--cache", cache}
	whole := filepath.Join(tmp, "whole")
	mustRun(t, append(base, "--out", whole)...)
	want, wantCSV := curveValues(t, whole), csvValues(t, whole)

	env := map[string]string{}
	getenv = func(k string) string { return env[k] }
	defer func() { getenv = os.Getenv }()
	shard := func(name string, flag string, vars map[string]string) string {
		dir := filepath.Join(tmp, name)
		env = vars
		mustRun(t, append(base, "--shard", flag, "--out", dir)...)
		return dir
	}
	s1 := shard("s1", "1/2", nil)
	s2 := shard("s2", "2/2", nil)
	merged := filepath.Join(tmp, "merged")
	mustRun(t, "curves", "merge", "--out", merged, s2, s1)
	if got := curveValues(t, merged); got != want {
		t.Errorf("merged curves.json differs from one eval's:\n%.400s\nwant\n%.400s", got, want)
	}
	if got := csvValues(t, merged); got != wantCSV {
		t.Errorf("merged curves.csv differs from one eval's:\n%s\nwant\n%s", got, wantCSV)
	}
	if _, err := os.Stat(filepath.Join(merged, "recon")); err != nil {
		t.Errorf("the merge did not carry shard 1's reconstructions: %v", err)
	}

	// Three shards from a Slurm array --array=4-8:2 and a Kubernetes
	// Indexed Job of 3 completions.
	slurm := func(id string) map[string]string {
		return map[string]string{"SLURM_ARRAY_TASK_ID": id, "SLURM_ARRAY_TASK_MIN": "4", "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": "3"}
	}
	a1, a2, a3 := shard("a1", "slurm", slurm("4")), shard("a2", "slurm", slurm("6")), shard("a3", "indexed/3", map[string]string{"JOB_COMPLETION_INDEX": "2"})
	merged3 := filepath.Join(tmp, "merged3")
	mustRun(t, "curves", "merge", "--out", merged3, a1, a2, a3)
	if got := curveValues(t, merged3); got != want {
		t.Errorf("three shards merged differ from one eval's")
	}

	other := filepath.Join(tmp, "other")
	env = nil
	mustRun(t, append(append([]string(nil), base...), "--iters", "5", "--shard", "2/2", "--out", other)...)
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"missing":  {[]string{a1, a3}, "shards missing: 2/3"},
		"repeated": {[]string{s1, s1, s2}, "shards given twice: 1/2"},
		"mixed":    {[]string{s1, a2}, "merge the shards of one split"},
		"settings": {[]string{s1, other}, "differ in their settings"},
		"whole":    {[]string{s1, whole}, "not a shard"},
	} {
		var out, errb bytes.Buffer
		args := append([]string{"curves", "merge", "--out", filepath.Join(tmp, "m-"+name)}, tc.args...)
		if code := Main(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%s: exit %d, %q; want exit 2 saying %q", name, code, errb.String(), tc.want)
		}
	}
}

// TestShardFlagRefused: a bad --shard, or scheduler variables that are
// missing or inconsistent, end with exit 2 before anything is built.
func TestShardFlagRefused(t *testing.T) {
	env := map[string]string{}
	getenv = func(k string) string { return env[k] }
	defer func() { getenv = os.Getenv }()
	for flag, tc := range map[string]struct {
		vars map[string]string
		want string
	}{
		"3/2":       {nil, "1 ≤ i ≤ n"},
		"slurm":     {nil, "SLURM_ARRAY_TASK_ID is not set"},
		"indexed/4": {map[string]string{"JOB_COMPLETION_INDEX": "4"}, "not below the 4 completions"},
		"indexed/x": {nil, "give indexed/N"},
	} {
		env = tc.vars
		var out, errb bytes.Buffer
		args := []string{"eval", "--methods", "gd", "--n-test", "2", "--iters", "2", "--shard", flag, "--out", filepath.Join(t.TempDir(), "e")}
		if code := Main(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("--shard %s: exit %d, %q; want exit 2 saying %q", flag, code, errb.String(), tc.want)
		}
	}
	env = map[string]string{"SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "4", "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": "3"}
	if _, err := resolveShard("slurm", getenv); err == nil {
		t.Error("Slurm task 7 of 4, 6, 8 accepted")
	}
}

// TestApplyShard: apply --shard 2/2 of 3 test functions saves the iterates
// of functions 1 and 2, bitwise those one apply on all 3 saves, named after
// their images.
func TestApplyShard(t *testing.T) {
	tmp := t.TempDir()
	ck := trainSmall(t, filepath.Join(tmp, "run"))
	base := []string{"apply", "--params", ck, "--n-test", "3", "--iters", "4", "--save-at", "final"}
	mustRun(t, append(base, "--out", filepath.Join(tmp, "whole"))...)
	mustRun(t, append(base, "--shard", "2/2", "--out", filepath.Join(tmp, "s2"))...)
	whole, err := checkpoint.ReadNPY(filepath.Join(tmp, "whole", "x_t0004.npy"), 3*8*8)
	if err != nil {
		t.Fatal(err)
	}
	part, err := checkpoint.ReadNPY(filepath.Join(tmp, "s2", "x_t0004.npy"), 2*8*8)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range part {
		if math.Float64bits(v) != math.Float64bits(whole[64+i]) {
			t.Fatalf("shard 2/2, value %d: %v, want %v (function %d of one apply)", i, v, whole[64+i], 1+i/64)
		}
	}
	var saved, savedWhole []struct{ Images []string }
	for dir, v := range map[string]*[]struct{ Images []string }{"s2": &saved, "whole": &savedWhole} {
		b, err := os.ReadFile(filepath.Join(tmp, dir, "saved.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	if len(saved) != 1 || strings.Join(saved[0].Images, ",") != strings.Join(savedWhole[0].Images[1:], ",") {
		t.Errorf("shard 2/2 names its images %v, want %v", saved, savedWhole[0].Images[1:])
	}
}

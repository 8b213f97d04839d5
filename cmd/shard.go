package cmd

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/spf13/pflag"
)

// shardHelp documents --shard.
const shardHelp = "evaluate only block i of n of the test functions (contiguous, fixed by the functions), for job arrays; merge the folders with 'l2o curves merge'. i/n (from 1), slurm (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_STEP, SLURM_ARRAY_TASK_COUNT) or indexed/N (a Kubernetes Indexed Job of N completions: JOB_COMPLETION_INDEX, from 0)"

// addShardFlag declares --shard.
func addShardFlag(fs *pflag.FlagSet) *string {
	return fs.String("shard", "", shardHelp)
}

// resolveShard reads --shard: "" is the whole set; getenv reads the
// schedulers' variables.
func resolveShard(v string, getenv func(string) string) (eval.Shard, error) {
	v = strings.TrimSpace(v)
	switch {
	case v == "":
		return eval.Shard{}, nil
	case v == "slurm":
		return slurmShard(getenv)
	case strings.HasPrefix(v, "indexed/"):
		n, err := strconv.Atoi(strings.TrimPrefix(v, "indexed/"))
		if err != nil || n < 1 {
			return eval.Shard{}, usagef("--shard %s: give indexed/N with N the Job's completions", v)
		}
		idx, err := envInt(getenv, "JOB_COMPLETION_INDEX", "--shard indexed/N runs in a Kubernetes Indexed Job")
		if err != nil {
			return eval.Shard{}, err
		}
		if idx < 0 || idx >= n {
			return eval.Shard{}, usagef("--shard %s: JOB_COMPLETION_INDEX=%d is not below the %d completions", v, idx, n)
		}
		return eval.Shard{Index: idx + 1, Count: n}, nil
	}
	s, err := eval.ParseShard(v)
	if err != nil {
		return eval.Shard{}, usagef("--shard: %v", err)
	}
	return s, nil
}

// slurmShard is the shard of a Slurm array task: its place among the
// array's tasks (IDs MIN, MIN+STEP, …; COUNT of them).
func slurmShard(getenv func(string) string) (eval.Shard, error) {
	const why = "--shard slurm runs in a Slurm job array (sbatch --array)"
	id, err := envInt(getenv, "SLURM_ARRAY_TASK_ID", why)
	if err != nil {
		return eval.Shard{}, err
	}
	lo, err := envInt(getenv, "SLURM_ARRAY_TASK_MIN", why)
	if err != nil {
		return eval.Shard{}, err
	}
	n, err := envInt(getenv, "SLURM_ARRAY_TASK_COUNT", why)
	if err != nil {
		return eval.Shard{}, err
	}
	step := 1
	if getenv("SLURM_ARRAY_TASK_STEP") != "" {
		if step, err = envInt(getenv, "SLURM_ARRAY_TASK_STEP", why); err != nil {
			return eval.Shard{}, err
		}
	}
	if step < 1 || id < lo || (id-lo)%step != 0 || (id-lo)/step >= n {
		return eval.Shard{}, usagef("--shard slurm: task %d is not one of %d tasks from %d by %d (SLURM_ARRAY_TASK_ID, _MIN, _COUNT, _STEP): give --array=A-B[:S], or --shard i/n", id, n, lo, step)
	}
	return eval.Shard{Index: (id-lo)/step + 1, Count: n}, nil
}

func envInt(getenv func(string) string, name, why string) (int, error) {
	v := getenv(name)
	if v == "" {
		return 0, usagef("%s is not set: %s", name, why)
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, usagef("%s=%q is not an integer", name, v)
	}
	return n, nil
}

// shardOf returns the functions of shard s of test, and the part record
// its curves carry; test itself for the whole set.
func shardOf(test *problem.Objective, s eval.Shard) (*problem.Objective, *eval.Part, error) {
	if s.Whole() {
		return test, nil, nil
	}
	if s.Count > test.N {
		return nil, nil, usagef("--shard %s: %d shards of %d test functions: give at most %d shards", s, s.Count, test.N, test.N)
	}
	idx := s.Indices(test.N)
	sub, err := test.Subset(idx)
	if err != nil {
		return nil, nil, err
	}
	return sub, &eval.Part{Shard: s, First: idx[0], Total: test.N}, nil
}

// getenv is os.Getenv (the schedulers' variables).
var getenv = os.Getenv

// shardNote says which functions a shard run takes.
func shardNote(p *eval.Part, n int) string {
	return fmt.Sprintf("shard %s: test functions %d to %d of %d", p.Shard, p.First, p.First+n-1, p.Total)
}

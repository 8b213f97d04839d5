package cmd

import (
	"bytes"
	"fmt"
	"io"

	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/greedy"
	"github.com/greedyl2o/greedyl2o/mpi"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/provenance"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// worldCommands are the commands that split their work over the ranks of
// an MPI run (bin/l2o-mpi under mpirun); any other refuses to run on more
// than one rank, where every rank would repeat it.
var worldCommands = map[string]bool{"eval": true, "apply": true, "train greedy": true, "version": true}

// MainInWorld is Main in an MPI world: it starts MPI (bin/l2o-mpi; one
// process otherwise), runs the command on every rank, rank 0 alone printing
// to stdout, and ends MPI; a rank that fails takes every rank down with its
// exit status (MPI_Abort). A binary without MPI started by mpirun on more
// than one process refuses to run.
func MainInWorld(args []string, stdout, stderr io.Writer) int {
	if !mpi.Enabled {
		if n := mpi.Launched(); n > 1 {
			fmt.Fprintf(stderr, "l2o: started as one of %d processes (mpirun), but this l2o has no MPI: build bin/l2o-mpi (make build-mpi), or run one process\n", n)
			return 2
		}
		return Main(args, stdout, stderr)
	}
	if _, err := mpi.Init(mpi.ThreadSerialized); err != nil {
		fmt.Fprintln(stderr, "l2o:", err)
		return 1
	}
	size, rank := mpi.Size(), mpi.Rank()
	if size > 1 {
		if c, _ := lookup(args); c != nil && !worldCommands[c.Name] {
			if rank == 0 {
				fmt.Fprintf(stderr, "l2o %s: does not split its work over MPI ranks (only train greedy, eval and apply do): run it as one process, not under mpirun -np %d\n", c.Name, size)
			}
			mpi.Finalize()
			return 2
		}
		if rank > 0 {
			stdout = io.Discard
		}
	}
	code := Main(args, stdout, stderr)
	if code != 0 && size > 1 {
		fmt.Fprintf(stderr, "l2o: rank %d of %d failed (exit status %d): ending every rank\n", rank, size, code)
		mpi.Abort(code)
	}
	if err := mpi.Finalize(); err != nil && code == 0 {
		fmt.Fprintln(stderr, "l2o:", err)
		code = 1
	}
	return code
}

// noteRankDevice says, under mpirun with --device, which device this rank
// runs on (the GPU of its local rank modulo the machine's: gpu.LocalRank).
func noteRankDevice(env *Env, pf *problemFlags) {
	d, ok := pf.target.Device.(interface{ Name() string })
	if mpi.Size() <= 1 || !ok {
		return
	}
	fmt.Fprintf(env.Stderr, "note: rank %d of %d (local rank %d) runs on device %s\n", mpi.Rank(), mpi.Size(), gpu.LocalRank(), d.Name())
}

// worldShard is this rank's block of the functions in an MPI run of more
// than one rank (the zero Shard otherwise).
func worldShard() eval.Shard {
	if mpi.Size() <= 1 {
		return eval.Shard{}
	}
	return eval.Shard{Index: mpi.Rank() + 1, Count: mpi.Size()}
}

// gatherCurves sends every rank's curves (measured on its shard) to rank
// 0 as their JSON file, which merges them in function order as curves
// merge does; ranks other than 0 get nil.
func gatherCurves(curves []*eval.Curve, prov *provenance.Record) ([]*eval.Curve, *provenance.Record, error) {
	var b bytes.Buffer
	if err := eval.WriteJSONWith(&b, curves, prov); err != nil {
		return nil, nil, err
	}
	files, err := mpi.GatherBytes(b.Bytes(), 0)
	if err != nil || mpi.Rank() != 0 {
		return nil, nil, err
	}
	runs := make([]shardRun, len(files))
	for r, f := range files {
		if runs[r], err = decodeShardRun(fmt.Sprintf("rank %d", r), f); err != nil {
			return nil, nil, err
		}
	}
	merged, mprov, err := mergeShardRuns(runs)
	if err != nil {
		return nil, nil, err
	}
	mprov.Invocation = prov.Invocation
	return merged, mprov, nil
}

// divideTraining divides the training over the ranks of an MPI run
// (greedy.Divide over mpi.Chain): rank r holds block r of the training
// functions (steploss.GroupBlocks: whole groups of an operator that
// applies images together) and of the validation functions (held: the
// blocks it built alone) and does their per-step work; the sums over the
// functions pass along the chain, and only rank 0 writes the checkpoint
// and reports.
func divideTraining(cfg *greedy.Config, train *problem.Objective, held *heldBlock) error {
	size, rank, n := mpi.Size(), mpi.Rank(), train.N
	if held != nil {
		n = held.total
	}
	if size <= 1 {
		return nil
	}
	g := train.BatchGroup()
	if groups := (n + g - 1) / g; size > groups {
		if g > 1 {
			return usagef("mpirun -np %d on %d training functions whose operator applies %d images together: give at most %d ranks, one group each at least", size, n, g, groups)
		}
		return usagef("mpirun -np %d on %d training functions: give at most %d ranks, one function each at least", size, n, n)
	}
	blk := steploss.GroupBlocks(n, size, g)[rank]
	cfg.Method.Divide = &greedy.Divide{Lo: blk[0], Hi: blk[1], Link: mpi.Chain{Tag: 10}}
	if held != nil { // the rank built its blocks alone (heldBlock.instantiate)
		cfg.Method.Divide = &greedy.Divide{Lo: held.lo, Hi: held.hi, Link: mpi.Chain{Tag: 10}, Total: n, Family: held.family,
			ValLo: held.valLo, ValHi: held.valHi, ValTotal: held.valTotal}
	}
	// An interrupt would reach the ranks between different evaluations:
	// mpirun ends them all instead.
	cfg.Stop.Interrupt = nil
	if rank > 0 {
		// Only rank 0 writes; a resume reads the checkpoint on every rank.
		cfg.Record.InnerProgress, cfg.Record.Progress = nil, nil
		if cfg.Store.Resume {
			cfg.Store.ReadOnly = true
		} else {
			cfg.Store.Dir = ""
		}
	}
	return nil
}

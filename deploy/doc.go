// Package deploy holds the deployment examples, run by its tests on one
// machine with the schedulers' variables set by hand:
//
//   - slurm-array.sbatch: a Slurm job array, one block of the test
//     functions per task (l2o eval --shard slurm), merged by l2o curves
//     merge;
//   - k8s-indexed-job.yaml: the same as a Kubernetes Indexed Job (--shard
//     indexed/N, JOB_COMPLETION_INDEX);
//   - slurm-mpi.sbatch: one evaluation over the MPI ranks of a Slurm job
//     (mpirun bin/l2o-mpi, make build-mpi).
//
// The tests check that each gives curves whose values equal one l2o eval's
// bit for bit; the MPI ones need Open MPI (mpirun and libopenmpi-dev) and
// skip, saying so, without it.
package deploy

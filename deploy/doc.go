// Package deploy holds the deployment examples, run by its tests on one
// machine with the schedulers' variables set by hand:
//
//   - slurm-array.sbatch: a Slurm job array, one block of the test
//     functions per task (l2o eval --shard slurm), merged by l2o curves
//     merge;
//   - k8s-indexed-job.yaml: the same as a Kubernetes Indexed Job (--shard
//     indexed/N, JOB_COMPLETION_INDEX);
//   - slurm-mpi.sbatch: one evaluation over the MPI ranks of a Slurm job
//     (mpirun bin/l2o-mpi, make build-mpi);
//   - mpi-cuda-emu.sh: greedy training with --device cuda on 1 and 2 ranks
//     (bin/l2o-mpi-cuda, make build-mpi-cuda) on the CPU emulation of the
//     CUDA driver (scripts/cuda-emu).
//
// The tests check that each gives curves whose values equal one l2o eval's
// bit for bit, that each rank reads only its block's images, and that the
// ranks on the emulated GPU give the single process's checkpoint (bitwise
// on one rank, to float32 rounding on two); the MPI ones need Open MPI
// (mpirun and libopenmpi-dev) and skip, saying so, without it, and the GPU
// one g++ and the CUDA headers (.ci/cuda.sh).
package deploy

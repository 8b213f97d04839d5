package gpu

import (
	"os"
	"strconv"
)

// localRankVars are the launchers' variables for a process's rank among
// those of its job on one machine: Open MPI's, MPICH's, Slurm's.
var localRankVars = []string{"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}

// LocalRank is this process's rank among the processes of a parallel job
// on its machine, from the launcher's environment (localRankVars), or 0
// outside one. A backend with several devices picks its device by it
// (modulo their number), so that each rank of `mpirun -np K` on a machine
// takes a GPU of its own.
func LocalRank() int { return localRank(os.Getenv) }

func localRank(env func(string) string) int {
	for _, k := range localRankVars {
		if n, err := strconv.Atoi(env(k)); err == nil && n >= 0 {
			return n
		}
	}
	return 0
}

package gpu

import "testing"

// TestLocalRank reads the launchers' variables in order, ignoring what is
// not a rank.
func TestLocalRank(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want int
	}{
		{nil, 0},
		{map[string]string{"OMPI_COMM_WORLD_LOCAL_RANK": "3"}, 3},
		{map[string]string{"MPI_LOCALRANKID": "2", "SLURM_LOCALID": "5"}, 2},
		{map[string]string{"OMPI_COMM_WORLD_LOCAL_RANK": "x", "SLURM_LOCALID": "1"}, 1},
		{map[string]string{"SLURM_LOCALID": "-1"}, 0},
	} {
		if got := localRank(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: local rank %d, want %d", c.env, got, c.want)
		}
	}
}

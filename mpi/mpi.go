package mpi

import (
	"fmt"
	"os"
	"strconv"
)

// ThreadLevel is MPI's thread support level.
type ThreadLevel int

// The MPI thread levels, from least to most support.
const (
	ThreadSingle ThreadLevel = iota
	ThreadFunneled
	ThreadSerialized
	ThreadMultiple
)

// String names the level as MPI does.
func (l ThreadLevel) String() string {
	switch l {
	case ThreadSingle:
		return "MPI_THREAD_SINGLE"
	case ThreadFunneled:
		return "MPI_THREAD_FUNNELED"
	case ThreadSerialized:
		return "MPI_THREAD_SERIALIZED"
	case ThreadMultiple:
		return "MPI_THREAD_MULTIPLE"
	}
	return "MPI_THREAD_" + strconv.Itoa(int(l))
}

// Launched returns the number of processes the launcher started this one
// among (Open MPI's OMPI_COMM_WORLD_SIZE, or PMI_SIZE, PMIX_SIZE under
// Slurm's srun), or 1 outside a launcher.
func Launched() int {
	for _, v := range []string{"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"} {
		if n, err := strconv.Atoi(os.Getenv(v)); err == nil && n > 0 {
			return n
		}
	}
	return 1
}

// GatherBytes sends b from every rank to root, which receives them in rank
// order (its own first when it is rank 0); other ranks get nil. Built on
// Allgather (the lengths) and Send/Recv.
func GatherBytes(b []byte, root int) ([][]byte, error) {
	size, rank := Size(), Rank()
	lens := make([]float64, size)
	if err := Allgather([]float64{float64(len(b))}, lens); err != nil {
		return nil, err
	}
	const tag = 1
	if rank != root {
		if len(b) == 0 {
			return nil, nil
		}
		return nil, SendBytes(b, root, tag)
	}
	out := make([][]byte, size)
	for r := range size {
		if r == root {
			out[r] = append([]byte(nil), b...)
			continue
		}
		out[r] = make([]byte, int(lens[r]))
		if len(out[r]) == 0 {
			continue
		}
		n, err := RecvBytes(out[r], r, tag)
		if err != nil {
			return nil, err
		}
		if n != len(out[r]) {
			return nil, fmt.Errorf("mpi: rank %d sent %d bytes, announced %d", r, n, len(out[r]))
		}
	}
	return out, nil
}

// Gather sends v from every rank to root, which receives them in rank
// order; other ranks get nil. The ranks may send different lengths.
func Gather(v []float64, root int) ([][]float64, error) {
	size, rank := Size(), Rank()
	lens := make([]float64, size)
	if err := Allgather([]float64{float64(len(v))}, lens); err != nil {
		return nil, err
	}
	const tag = 2
	if rank != root {
		if len(v) == 0 {
			return nil, nil
		}
		return nil, Send(v, root, tag)
	}
	out := make([][]float64, size)
	for r := range size {
		if r == root {
			out[r] = append([]float64(nil), v...)
			continue
		}
		out[r] = make([]float64, int(lens[r]))
		if len(out[r]) == 0 {
			continue
		}
		n, err := Recv(out[r], r, tag)
		if err != nil {
			return nil, err
		}
		if n != len(out[r]) {
			return nil, fmt.Errorf("mpi: rank %d sent %d values, announced %d", r, n, len(out[r]))
		}
	}
	return out, nil
}

// Chain passes running sums through the ranks in rank order, then gives
// every rank the last rank's: Before receives from rank r−1 (rank 0 keeps
// its zeros), After sends to rank r+1 and then broadcasts from the last
// rank. It is the Link of steploss.NewStepLossBlock over MPI: each rank
// adds its block of functions to the sums in function order, so every rank
// ends with the sums of one process holding every function, bit for bit.
// Tag tells its messages apart from others'.
type Chain struct{ Tag int }

// Before fills sums with the running sums of the ranks before this one.
func (c Chain) Before(sums []float64) error {
	r := Rank()
	if r == 0 {
		return nil
	}
	n, err := Recv(sums, r-1, c.Tag)
	if err == nil && n != len(sums) {
		err = fmt.Errorf("mpi: rank %d passed %d running sums, rank %d holds %d", r-1, n, r, len(sums))
	}
	return err
}

// After passes sums on to the next rank and leaves in sums the last rank's.
func (c Chain) After(sums []float64) error {
	r, size := Rank(), Size()
	if r < size-1 {
		if err := Send(sums, r+1, c.Tag); err != nil {
			return err
		}
	}
	return Bcast(sums, size-1)
}

// Gather implements steploss.Gatherer: every rank's local values, in rank
// order, on every rank (the lengths may differ from rank to rank), and
// where this rank's begin. Two Allgathers: the lengths, then the values
// padded to the longest.
func (c Chain) Gather(local []float64) ([]float64, int, error) {
	size, rank := Size(), Rank()
	lens := make([]float64, size)
	if err := Allgather([]float64{float64(len(local))}, lens); err != nil {
		return nil, 0, err
	}
	longest := 0
	for _, n := range lens {
		longest = max(longest, int(n))
	}
	pad := make([]float64, longest)
	copy(pad, local)
	recv := make([]float64, size*longest)
	if err := Allgather(pad, recv); err != nil {
		return nil, 0, err
	}
	var all []float64
	at := 0
	for r, n := range lens {
		if r == rank {
			at = len(all)
		}
		all = append(all, recv[r*longest:r*longest+int(n)]...)
	}
	return all, at, nil
}

// GatherRoot implements greedy.RootGatherer: every rank's local values,
// in rank order, on rank 0 alone (nil elsewhere).
func (c Chain) GatherRoot(local []float64) ([]float64, error) {
	parts, err := Gather(local, 0)
	if err != nil || Rank() != 0 {
		return nil, err
	}
	var all []float64
	for _, p := range parts {
		all = append(all, p...)
	}
	return all, nil
}

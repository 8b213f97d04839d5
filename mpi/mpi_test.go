package mpi

import (
	"fmt"
	"os"
	"testing"
)

// The tests run in every process of a run: one without the mpi tag, or
// mpirun -np K bin/mpi.test with it (make build-mpi writes the binary;
// .ci/run runs it for K = 1, 2, 3).
func TestMain(m *testing.M) {
	if _, err := Init(ThreadSerialized); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	code := m.Run()
	if err := Finalize(); err != nil && code == 0 {
		code = 1
	}
	os.Exit(code)
}

// TestAllgatherRankOrder: every rank ends with every rank's values in rank
// order.
func TestAllgatherRankOrder(t *testing.T) {
	size, rank := Size(), Rank()
	if rank < 0 || rank >= size {
		t.Fatalf("rank %d of %d", rank, size)
	}
	if Enabled && size != Launched() {
		t.Fatalf("MPI says %d processes, the launcher started %d", size, Launched())
	}
	send := []float64{float64(rank), 0.1 * float64(rank)}
	recv := make([]float64, 2*size)
	if err := Allgather(send, recv); err != nil {
		t.Fatal(err)
	}
	for r := range size {
		if recv[2*r] != float64(r) || recv[2*r+1] != 0.1*float64(r) {
			t.Fatalf("rank %d: gathered %v, rank %d's values out of place", rank, recv, r)
		}
	}
}

// TestSendRecvRing passes a value around the ranks: each adds its rank, so
// rank 0 receives 0+1+…+(size−1); a single process has no one to send to.
func TestSendRecvRing(t *testing.T) {
	size, rank := Size(), Rank()
	if size == 1 {
		if err := Send([]float64{1}, 0, 0); err == nil && !Enabled {
			t.Fatal("a single process sent to itself")
		}
		return
	}
	v := []float64{0}
	next, prev := (rank+1)%size, (rank+size-1)%size
	if rank == 0 {
		if err := Send(v, next, 7); err != nil {
			t.Fatal(err)
		}
		if _, err := Recv(v, prev, 7); err != nil {
			t.Fatal(err)
		}
		if want := float64(size*(size-1)) / 2; v[0] != want {
			t.Fatalf("the ring brought back %v, want %v", v[0], want)
		}
		return
	}
	if n, err := Recv(v, prev, 7); err != nil || n != 1 {
		t.Fatalf("received %d values: %v", n, err)
	}
	v[0] += float64(rank)
	if err := Send(v, next, 7); err != nil {
		t.Fatal(err)
	}
}

// TestBcastAndGatherBytes: rank 0's values reach every rank; rank 0
// receives every rank's bytes, of different lengths, in rank order.
func TestBcastAndGatherBytes(t *testing.T) {
	size, rank := Size(), Rank()
	v := []float64{-1, -1}
	if rank == 0 {
		v = []float64{3.5, 1e-300}
	}
	if err := Bcast(v, 0); err != nil {
		t.Fatal(err)
	}
	if v[0] != 3.5 || v[1] != 1e-300 {
		t.Fatalf("rank %d got %v from rank 0", rank, v)
	}
	got, err := GatherBytes([]byte(fmt.Sprintf("rank %d%s", rank, make([]byte, rank))), 0)
	if err != nil {
		t.Fatal(err)
	}
	if rank != 0 {
		if got != nil {
			t.Fatalf("rank %d received the gather", rank)
		}
		return
	}
	for r := range size {
		if want := fmt.Sprintf("rank %d%s", r, make([]byte, r)); string(got[r]) != want {
			t.Fatalf("from rank %d: %q, want %q", r, got[r], want)
		}
	}
}

// TestGather: rank 0 receives rank r's r+1 values in rank order.
func TestGather(t *testing.T) {
	size, rank := Size(), Rank()
	v := make([]float64, rank+1)
	for i := range v {
		v[i] = float64(10*rank + i)
	}
	got, err := Gather(v, 0)
	if err != nil || rank != 0 {
		if err != nil || got != nil {
			t.Fatalf("rank %d: %v, %v", rank, got, err)
		}
		return
	}
	for r := range size {
		if len(got[r]) != r+1 || got[r][r] != float64(10*r+r) {
			t.Fatalf("from rank %d: %v", r, got[r])
		}
	}
}

//go:build !mpi

package mpi

import (
	"errors"
	"os"
)

// Enabled reports whether the binary was built with MPI (tag mpi).
const Enabled = false

var errAlone = errors.New("mpi: a single process (built without the mpi tag) has no other rank to exchange with")

// Init starts MPI with the thread level wanted and returns the level
// given; a single process gives any.
func Init(want ThreadLevel) (ThreadLevel, error) { return want, nil }

// Rank is this process's rank in the world communicator.
func Rank() int { return 0 }

// Size is the number of processes in the world communicator.
func Size() int { return 1 }

// Send sends v to rank dest with tag.
func Send(v []float64, dest, tag int) error { return errAlone }

// SendBytes sends b to rank dest with tag.
func SendBytes(b []byte, dest, tag int) error { return errAlone }

// Recv receives into v from rank src with tag and returns the number of
// values received.
func Recv(v []float64, src, tag int) (int, error) { return 0, errAlone }

// RecvBytes receives into b from rank src with tag and returns the number
// of bytes received.
func RecvBytes(b []byte, src, tag int) (int, error) { return 0, errAlone }

// Allgather gathers len(send) values from every rank into recv, rank by
// rank (len(recv) = Size()·len(send)), on every rank.
func Allgather(send, recv []float64) error {
	if len(recv) != len(send) {
		return errors.New("mpi: Allgather: recv must hold Size()·len(send) values")
	}
	copy(recv, send)
	return nil
}

// Bcast broadcasts v from rank root to every rank.
func Bcast(v []float64, root int) error {
	if root != 0 {
		return errAlone
	}
	return nil
}

// BcastBytes broadcasts b from rank root to every rank.
func BcastBytes(b []byte, root int) error { return Bcast(nil, root) }

// Abort ends every process of the run with code.
func Abort(code int) { os.Exit(code) }

// Finalize ends MPI.
func Finalize() error { return nil }

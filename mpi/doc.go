// Package mpi is a thin binding to the MPI C API (Open MPI), for runs that
// span processes: the world communicator's rank and size, blocking send and
// receive, allgather, broadcast, abort and finalize, on float64 and byte
// buffers.
//
// Built with the tag mpi (make build-mpi, which needs Open MPI's headers and
// library: Debian's libopenmpi-dev), the functions call MPI through cgo.
// Without it they are a single process's: Size is 1, Rank 0, Allgather and
// Bcast copy, and Send and Recv, having no other rank to talk to, return an
// error. A program written against the package runs unchanged either way;
// a binary without MPI started by mpirun with more than one process says so
// (Launched) instead of running the same work several times.
//
// Every call is made from one goroutine at a time: Init asks MPI for
// MPI_THREAD_SERIALIZED (Go moves goroutines between threads) and fails if
// the library gives less. Errors are returned, not fatal (MPI_ERRORS_RETURN
// on the world communicator), so the caller can Abort with its own message.
package mpi

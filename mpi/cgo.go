//go:build mpi

package mpi

/*
#cgo pkg-config: ompi
#include <stdlib.h>
#include <mpi.h>

// Open MPI's handles are macros over global objects: wrapped for cgo.
static MPI_Datatype l2o_type(int bytes) { return bytes ? MPI_BYTE : MPI_DOUBLE; }
static int l2o_init(int want, int *given) { return MPI_Init_thread(NULL, NULL, want, given); }
static int l2o_errors_return(void) { return MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); }
static int l2o_rank(int *r) { return MPI_Comm_rank(MPI_COMM_WORLD, r); }
static int l2o_size(int *s) { return MPI_Comm_size(MPI_COMM_WORLD, s); }
static int l2o_send(void *buf, int n, int bytes, int dest, int tag) {
	return MPI_Send(buf, n, l2o_type(bytes), dest, tag, MPI_COMM_WORLD);
}
static int l2o_recv(void *buf, int n, int bytes, int src, int tag, int *count) {
	MPI_Status st;
	int rc = MPI_Recv(buf, n, l2o_type(bytes), src, tag, MPI_COMM_WORLD, &st);
	if (rc == MPI_SUCCESS) rc = MPI_Get_count(&st, l2o_type(bytes), count);
	return rc;
}
static int l2o_allgather(void *send, int n, void *recv) {
	return MPI_Allgather(send, n, MPI_DOUBLE, recv, n, MPI_DOUBLE, MPI_COMM_WORLD);
}
static int l2o_bcast(void *buf, int n, int bytes, int root) {
	return MPI_Bcast(buf, n, l2o_type(bytes), root, MPI_COMM_WORLD);
}
static int l2o_abort(int code) { return MPI_Abort(MPI_COMM_WORLD, code); }
static int l2o_finalize(void) { return MPI_Finalize(); }
static int l2o_error_string(int code, char *s, int *n) { return MPI_Error_string(code, s, n); }
static int l2o_max_error_string(void) { return MPI_MAX_ERROR_STRING; }
static int l2o_level(int l) {
	switch (l) {
	case 0: return MPI_THREAD_SINGLE;
	case 1: return MPI_THREAD_FUNNELED;
	case 2: return MPI_THREAD_SERIALIZED;
	default: return MPI_THREAD_MULTIPLE;
	}
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Enabled reports whether the binary was built with MPI (tag mpi).
const Enabled = true

var rank, size = 0, 1

// check turns an MPI return code into an error naming the call.
func check(call string, rc C.int) error {
	if rc == 0 {
		return nil
	}
	buf := make([]byte, int(C.l2o_max_error_string()))
	var n C.int
	C.l2o_error_string(rc, (*C.char)(unsafe.Pointer(&buf[0])), &n)
	return fmt.Errorf("mpi: %s: %s (code %d)", call, buf[:n], int(rc))
}

// Init starts MPI asking for thread level want and returns the level the
// library gives; it fails if that is below want.
func Init(want ThreadLevel) (ThreadLevel, error) {
	var given C.int
	if err := check("MPI_Init_thread", C.l2o_init(C.l2o_level(C.int(want)), &given)); err != nil {
		return 0, err
	}
	got := ThreadMultiple
	for l := ThreadSingle; l <= ThreadMultiple; l++ {
		if C.l2o_level(C.int(l)) == given {
			got = l
		}
	}
	if err := check("MPI_Comm_set_errhandler", C.l2o_errors_return()); err != nil {
		return got, err
	}
	var r, s C.int
	if err := check("MPI_Comm_rank", C.l2o_rank(&r)); err != nil {
		return got, err
	}
	if err := check("MPI_Comm_size", C.l2o_size(&s)); err != nil {
		return got, err
	}
	rank, size = int(r), int(s)
	if got < want {
		return got, fmt.Errorf("mpi: the library gives thread level %s, below %s", got, want)
	}
	return got, nil
}

// Rank is this process's rank in the world communicator.
func Rank() int { return rank }

// Size is the number of processes in the world communicator.
func Size() int { return size }

func ptr[T any](v []T) unsafe.Pointer {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Pointer(&v[0])
}

// Send sends v to rank dest with tag.
func Send(v []float64, dest, tag int) error {
	return check("MPI_Send", C.l2o_send(ptr(v), C.int(len(v)), 0, C.int(dest), C.int(tag)))
}

// SendBytes sends b to rank dest with tag.
func SendBytes(b []byte, dest, tag int) error {
	return check("MPI_Send", C.l2o_send(ptr(b), C.int(len(b)), 1, C.int(dest), C.int(tag)))
}

// Recv receives into v from rank src with tag and returns the number of
// values received.
func Recv(v []float64, src, tag int) (int, error) {
	var n C.int
	err := check("MPI_Recv", C.l2o_recv(ptr(v), C.int(len(v)), 0, C.int(src), C.int(tag), &n))
	return int(n), err
}

// RecvBytes receives into b from rank src with tag and returns the number
// of bytes received.
func RecvBytes(b []byte, src, tag int) (int, error) {
	var n C.int
	err := check("MPI_Recv", C.l2o_recv(ptr(b), C.int(len(b)), 1, C.int(src), C.int(tag), &n))
	return int(n), err
}

// Allgather gathers len(send) values from every rank into recv, rank by
// rank (len(recv) = Size()·len(send)), on every rank.
func Allgather(send, recv []float64) error {
	if len(recv) != size*len(send) {
		return fmt.Errorf("mpi: Allgather: recv holds %d values, want %d·%d", len(recv), size, len(send))
	}
	return check("MPI_Allgather", C.l2o_allgather(ptr(send), C.int(len(send)), ptr(recv)))
}

// Bcast broadcasts v from rank root to every rank.
func Bcast(v []float64, root int) error {
	return check("MPI_Bcast", C.l2o_bcast(ptr(v), C.int(len(v)), 0, C.int(root)))
}

// BcastBytes broadcasts b from rank root to every rank.
func BcastBytes(b []byte, root int) error {
	return check("MPI_Bcast", C.l2o_bcast(ptr(b), C.int(len(b)), 1, C.int(root)))
}

// Abort ends every process of the run with code.
func Abort(code int) { C.l2o_abort(C.int(code)) }

// Finalize ends MPI.
func Finalize() error { return check("MPI_Finalize", C.l2o_finalize()) }

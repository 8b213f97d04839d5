//go:build l2ocuda

package cufft

/*
#cgo LDFLAGS: -ldl
#include <cufft.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

// The cuFFT entry points, resolved with dlopen/dlsym on first use so that
// a binary starts without libcufft and works with any cuFFT whose ABI for
// these functions is the one of cufft.h (all releases since CUDA 10).
static void *l2o_lib;
static cufftResult (*p_create)(cufftHandle *);
static cufftResult (*p_set_auto)(cufftHandle, int);
static cufftResult (*p_make_many)(cufftHandle, int, int *, int *, int, int, int *, int, int, cufftType, int, size_t *);
static cufftResult (*p_set_work)(cufftHandle, void *);
static cufftResult (*p_r2c)(cufftHandle, cufftReal *, cufftComplex *);
static cufftResult (*p_c2r)(cufftHandle, cufftComplex *, cufftReal *);
static cufftResult (*p_destroy)(cufftHandle);
static cufftResult (*p_set_stream)(cufftHandle, void *);

// l2o_open loads the library at path; it returns NULL or dlerror's message.
static const char *l2o_open(const char *path) {
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) return dlerror();
	void *f[8];
	const char *names[8] = {"cufftCreate", "cufftSetAutoAllocation", "cufftMakePlanMany",
		"cufftSetWorkArea", "cufftExecR2C", "cufftExecC2R", "cufftDestroy", "cufftSetStream"};
	for (int i = 0; i < 8; i++) {
		f[i] = dlsym(lib, names[i]);
		if (!f[i]) { dlclose(lib); return names[i]; }
	}
	p_create = f[0]; p_set_auto = f[1]; p_make_many = f[2]; p_set_work = f[3];
	p_r2c = f[4]; p_c2r = f[5]; p_destroy = f[6]; p_set_stream = f[7];
	l2o_lib = lib;
	return NULL;
}

// A plan without its own work area: the caller allocates *work bytes and
// passes them with l2o_set_work_area, so that its allocator counts them.
static cufftResult l2o_plan(cufftHandle *plan, int h, int w, int batch, int inverse, size_t *work) {
	int n[2] = {h, w};
	cufftResult r = p_create(plan);
	if (r != CUFFT_SUCCESS) return r;
	r = p_set_auto(*plan, 0);
	if (r != CUFFT_SUCCESS) { p_destroy(*plan); return r; }
	r = p_make_many(*plan, 2, n, NULL, 1, 0, NULL, 1, 0, inverse ? CUFFT_C2R : CUFFT_R2C, batch, work);
	if (r != CUFFT_SUCCESS) p_destroy(*plan);
	return r;
}

static cufftResult l2o_set_work_area(cufftHandle plan, uintptr_t area) { return p_set_work(plan, (void *)area); }
static cufftResult l2o_r2c(cufftHandle plan, uintptr_t in, uintptr_t out) { return p_r2c(plan, (cufftReal *)in, (cufftComplex *)out); }
static cufftResult l2o_c2r(cufftHandle plan, uintptr_t in, uintptr_t out) { return p_c2r(plan, (cufftComplex *)in, (cufftReal *)out); }
static cufftResult l2o_destroy(cufftHandle plan) { return p_destroy(plan); }
static cufftResult l2o_set_stream(cufftHandle plan, uintptr_t stream) { return p_set_stream(plan, (void *)stream); }
*/
import "C"

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"
)

// Direction says which way a Plan transforms.
type Direction int

// The directions.
const (
	Forward Direction = iota // real images → spectra (R2C)
	Inverse                  // spectra → real images (C2R, unnormalised; overwrites its input)
)

// Plan is a cuFFT plan for N transforms of H×W images in one direction.
// It has no work area of its own: allocate WorkSize bytes of device memory
// and pass them to SetWorkArea before Exec.
type Plan struct {
	handle    C.cufftHandle
	N, H, W   int
	Direction Direction
	// WorkSize is the number of bytes of work area the plan needs.
	WorkSize int64
}

var (
	loadOnce sync.Once
	loadErr  error
	loaded   string
)

// Candidates are the libraries Load tries, in order, after $L2O_CUFFT: the
// unversioned name, the sonames of CUDA 13 to 11 (libcufft.so.12 to .10),
// and the copies pip's nvidia-cufft packages install.
func Candidates() []string {
	c := []string{"libcufft.so", "libcufft.so.12", "libcufft.so.11", "libcufft.so.10"}
	for _, pattern := range []string{
		"/usr/local/lib/python3*/dist-packages/nvidia/cufft*/lib/libcufft.so*",
		"/usr/local/lib/python3*/site-packages/nvidia/cufft*/lib/libcufft.so*",
		"/usr/lib/python3*/dist-packages/nvidia/cufft*/lib/libcufft.so*",
		"/usr/local/cuda/lib64/libcufft.so*",
	} {
		m, _ := filepath.Glob(pattern)
		c = append(c, m...)
	}
	return c
}

// Load finds and loads cuFFT (once): $L2O_CUFFT if set, else the first of
// Candidates that loads. It returns the library's path.
func Load() (string, error) {
	loadOnce.Do(func() {
		paths := Candidates()
		if p := os.Getenv("L2O_CUFFT"); p != "" {
			paths = []string{p}
		}
		var msgs []string
		for _, p := range paths {
			cp := C.CString(p)
			msg := C.l2o_open(cp)
			C.free(unsafe.Pointer(cp))
			if msg == nil {
				loaded = p
				return
			}
			msgs = append(msgs, p+": "+C.GoString(msg))
		}
		loadErr = fmt.Errorf("cufft: no usable cuFFT library (install Debian's nvidia-cuda-dev or pip's nvidia-cufft, or set L2O_CUFFT to libcufft.so's path): %s", strings.Join(msgs, "; "))
	})
	return loaded, loadErr
}

// NewPlan makes a plan. It must be called where the CUDA context that will
// run it is current.
func NewPlan(n, h, w int, dir Direction) (*Plan, error) {
	if n < 1 || h < 1 || w < 1 {
		return nil, fmt.Errorf("cufft: plan for %d images of %d×%d: sizes must be positive", n, h, w)
	}
	if _, err := Load(); err != nil {
		return nil, err
	}
	p := &Plan{N: n, H: h, W: w, Direction: dir}
	inv := C.int(0)
	if dir == Inverse {
		inv = 1
	}
	var work C.size_t
	if r := C.l2o_plan(&p.handle, C.int(h), C.int(w), C.int(n), inv, &work); r != C.CUFFT_SUCCESS {
		return nil, fmt.Errorf("cufft: plan for %d images of %d×%d: %s", n, h, w, result(r))
	}
	p.WorkSize = int64(work)
	return p, nil
}

// SetWorkArea gives the plan its work area: WorkSize bytes of device memory
// at address area, which must outlive the plan's use.
func (p *Plan) SetWorkArea(area uintptr) error {
	if r := C.l2o_set_work_area(p.handle, C.uintptr_t(area)); r != C.CUFFT_SUCCESS {
		return fmt.Errorf("cufft: work area: %s", result(r))
	}
	return nil
}

// SetStream makes the plan's transforms queue on the CUDA stream at address
// stream (a CUstream; 0: the legacy default stream, where a new plan
// queues).
func (p *Plan) SetStream(stream uintptr) error {
	if r := C.l2o_set_stream(p.handle, C.uintptr_t(stream)); r != C.CUFFT_SUCCESS {
		return fmt.Errorf("cufft: set stream: %s", result(r))
	}
	return nil
}

// Exec transforms the buffer at device address in into the buffer at out:
// N·H·W float32 values and N·H·(W/2+1) complex values (forward; the reverse
// for Inverse).
func (p *Plan) Exec(in, out uintptr) error {
	var r C.cufftResult
	if p.Direction == Forward {
		r = C.l2o_r2c(p.handle, C.uintptr_t(in), C.uintptr_t(out))
	} else {
		r = C.l2o_c2r(p.handle, C.uintptr_t(in), C.uintptr_t(out))
	}
	if r != C.CUFFT_SUCCESS {
		return fmt.Errorf("cufft: %d transforms of %d×%d: %s", p.N, p.H, p.W, result(r))
	}
	return nil
}

// Destroy releases the plan.
func (p *Plan) Destroy() error {
	if r := C.l2o_destroy(p.handle); r != C.CUFFT_SUCCESS {
		return fmt.Errorf("cufft: destroy plan: %s", result(r))
	}
	return nil
}

// errNames names cuFFT statuses.
var errNames = map[C.cufftResult]string{
	C.CUFFT_INVALID_PLAN: "invalid plan", C.CUFFT_ALLOC_FAILED: "allocation failed",
	C.CUFFT_INVALID_TYPE: "invalid type", C.CUFFT_INVALID_VALUE: "invalid value",
	C.CUFFT_INTERNAL_ERROR: "internal error", C.CUFFT_EXEC_FAILED: "execution failed",
	C.CUFFT_SETUP_FAILED: "setup failed (no CUDA context?)", C.CUFFT_INVALID_SIZE: "invalid size",
}

// result names a cuFFT status.
func result(r C.cufftResult) string {
	if s, ok := errNames[r]; ok {
		return s
	}
	return fmt.Sprintf("status %d", int(r))
}

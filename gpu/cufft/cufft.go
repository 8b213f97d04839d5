//go:build l2ocuda

package cufft

/*
#cgo LDFLAGS: -lcufft
#include <cufft.h>
#include <stdint.h>

// A plan without its own work area: the caller allocates *work bytes and
// passes them with l2o_set_work_area, so that its allocator counts them.
static cufftResult l2o_plan(cufftHandle *plan, int h, int w, int batch, int inverse, size_t *work) {
	int n[2] = {h, w};
	cufftResult r = cufftCreate(plan);
	if (r != CUFFT_SUCCESS) return r;
	r = cufftSetAutoAllocation(*plan, 0);
	if (r != CUFFT_SUCCESS) { cufftDestroy(*plan); return r; }
	r = cufftMakePlanMany(*plan, 2, n, NULL, 1, 0, NULL, 1, 0, inverse ? CUFFT_C2R : CUFFT_R2C, batch, work);
	if (r != CUFFT_SUCCESS) cufftDestroy(*plan);
	return r;
}

static cufftResult l2o_set_work_area(cufftHandle plan, uintptr_t area) {
	return cufftSetWorkArea(plan, (void *)area);
}

static cufftResult l2o_r2c(cufftHandle plan, uintptr_t in, uintptr_t out) {
	return cufftExecR2C(plan, (cufftReal *)in, (cufftComplex *)out);
}

static cufftResult l2o_c2r(cufftHandle plan, uintptr_t in, uintptr_t out) {
	return cufftExecC2R(plan, (cufftComplex *)in, (cufftReal *)out);
}
*/
import "C"

import "fmt"

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

// NewPlan makes a plan. It must be called where the CUDA context that will
// run it is current.
func NewPlan(n, h, w int, dir Direction) (*Plan, error) {
	if n < 1 || h < 1 || w < 1 {
		return nil, fmt.Errorf("cufft: plan for %d images of %d×%d: sizes must be positive", n, h, w)
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
	if r := C.cufftDestroy(p.handle); r != C.CUFFT_SUCCESS {
		return fmt.Errorf("cufft: destroy plan: %s", result(r))
	}
	return nil
}

// result names a cuFFT status.
func result(r C.cufftResult) string {
	names := map[C.cufftResult]string{
		C.CUFFT_INVALID_PLAN: "invalid plan", C.CUFFT_ALLOC_FAILED: "allocation failed",
		C.CUFFT_INVALID_TYPE: "invalid type", C.CUFFT_INVALID_VALUE: "invalid value",
		C.CUFFT_INTERNAL_ERROR: "internal error", C.CUFFT_EXEC_FAILED: "execution failed",
		C.CUFFT_SETUP_FAILED: "setup failed (no CUDA context?)", C.CUFFT_INVALID_SIZE: "invalid size",
	}
	if s, ok := names[r]; ok {
		return s
	}
	return fmt.Sprintf("status %d", int(r))
}

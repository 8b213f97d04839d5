// A CPU emulation of the CUDA driver API functions that gorgonia.org/cu (as
// used by gpu/cuda) calls: one device, "device memory" in host memory, the
// kernels of gpu/cudasrc compiled for the CPU (kernels.cpp, generated) and
// launched one at a time, each checked against the limits of an sm_52 GPU
// with the kernel's registers and shared memory from ptxas (as a driver
// refuses a launch that does not fit) and, with L2O_EMU_LAUNCH_LOG=FILE,
// recorded there (one line a launch: kernel, grid, block, dynamic shared
// memory). With L2O_EMU_CALL_LOG=FILE every launch, copy and synchronisation
// is recorded there in order (one line a call: what, then the kernel or the
// bytes), to count what a computation asks of the driver. With
// L2O_EMU_NOEXEC=1 launches are checked but not run (and cuFFT's transforms
// not computed): the results are meaningless, the time is the host's own
// (Go, cgo, the driver calls), to measure what a GPU cannot hide. Every other driver function the binaries import is a stub that
// stops the process with its name (stubs.cpp, generated): a code path that
// needs one fails loudly instead of receiving an error code it may ignore.
// Fibers switch stacks with _longjmp, which glibc's fortified longjmp
// check rejects ("longjmp causes uninitialized stack frame").
#undef _FORTIFY_SOURCE
#include "prelude.h"
#include <algorithm>
#include <random>
#include <unordered_map>
#include <stdio.h>
#include <stdlib.h>
#include <mutex>
#include <setjmp.h>
#include <ucontext.h>
#include <vector>

l2o_dim3 threadIdx, blockIdx, blockDim, gridDim;

static std::mutex mu;          // one driver call at a time
static size_t in_use;          // bytes allocated
static std::unordered_map<uintptr_t, size_t> sizes; // live allocations
static const size_t total = (size_t)16 << 30;
static int context_token;

typedef unsigned long long devptr;

// call_log records one driver call in L2O_EMU_CALL_LOG, when it is set.
static void call_log(const char *what, const char *name, size_t n) {
	if (const char *log = getenv("L2O_EMU_CALL_LOG")) {
		if (FILE *fp = fopen(log, "a")) {
			fprintf(fp, "%s %s %zu\n", what, name, n);
			fclose(fp);
		}
	}
}

extern "C" {
int cuInit(unsigned flags) { return 0; }
int cuDriverGetVersion(int *v) { *v = 12000; return 0; }
int cuDeviceGetCount(int *n) { *n = 1; return 0; }
int cuDeviceGet(int *d, int ordinal) { if (ordinal != 0) return 101; *d = 0; return 0; }
int cuDeviceGetName(char *name, int len, int dev) { snprintf(name, len, "CPU emulation (scripts/cuda-emu)"); return 0; }
// l2o_emu_unimplemented stops the process: the binary called a driver
// function (or asked for a device attribute) that the emulation does not
// implement.
extern "C" void l2o_emu_unimplemented(const char *what) {
	fprintf(stderr, "cuda-emu: %s is not implemented by the CPU emulation (scripts/cuda-emu/driver.cpp): implement it there\n", what);
	fflush(stderr);
	abort();
}

// The limits of an sm_52 GPU (gpu/launch.Targets), which the emulated
// device reports being.
static const unsigned max_threads_per_block = 1024, max_grid_x = 2147483647u, regs_per_block = 65536,
	reg_alloc_unit = 256, shared_per_block = 48 << 10;

int cuDeviceGetAttribute(int *v, int attrib, int dev) {
	switch (attrib) {
	case 75: *v = 5; break; // compute capability major
	case 76: *v = 2; break; // minor
	case 1: *v = max_threads_per_block; break; // max threads per block
	case 2: *v = max_threads_per_block; break; // max block x
	case 5: *v = max_grid_x; break; // max grid x
	case 8: *v = shared_per_block; break; // max shared memory per block
	case 10: *v = 32; break; // warp size
	case 12: *v = regs_per_block; break; // max registers per block
	default: {
		char what[64];
		snprintf(what, sizeof what, "cuDeviceGetAttribute(%d)", attrib);
		l2o_emu_unimplemented(what);
	}
	}
	return 0;
}
int cuDeviceTotalMem_v2(size_t *b, int dev) { *b = total; return 0; }
int cuCtxCreate_v2(void **ctx, unsigned flags, int dev) { *ctx = &context_token; return 0; }
int cuCtxDestroy_v2(void *ctx) { return 0; }
int cuCtxSetCurrent(void *ctx) { return 0; }
int cuCtxGetCurrent(void **ctx) { *ctx = &context_token; return 0; }
int cuCtxPushCurrent_v2(void *ctx) { return 0; }
int cuCtxPopCurrent_v2(void **ctx) { if (ctx) *ctx = &context_token; return 0; }
int cuCtxGetDevice(int *d) { *d = 0; return 0; }
int cuCtxSynchronize(void) { call_log("sync", "-", 0); return 0; }
int cuMemAlloc_v2(devptr *p, size_t n) {
	call_log("alloc", "-", n);
	std::lock_guard<std::mutex> g(mu);
	void *m = calloc(n ? n : 1, 1);
	if (!m) return 2; // CUDA_ERROR_OUT_OF_MEMORY
	*p = (devptr)(uintptr_t)m;
	sizes[(uintptr_t)m] = n;
	in_use += n;
	return 0;
}
int cuMemFree_v2(devptr p) {
	call_log("free", "-", 0);
	std::lock_guard<std::mutex> g(mu);
	auto it = sizes.find((uintptr_t)p);
	if (it == sizes.end()) return 1; // CUDA_ERROR_INVALID_VALUE: not allocated, or freed twice
	in_use -= it->second;
	sizes.erase(it);
	free((void *)(uintptr_t)p);
	return 0;
}
int cuMemsetD8_v2(devptr p, unsigned char v, size_t n) { memset((void *)(uintptr_t)p, v, n); return 0; }
int cuMemcpyHtoD_v2(devptr dst, const void *src, size_t n) { call_log("htod", "-", n); memcpy((void *)(uintptr_t)dst, src, n); return 0; }
int cuMemcpyDtoH_v2(void *dst, devptr src, size_t n) { call_log("dtoh", "-", n); memcpy(dst, (const void *)(uintptr_t)src, n); return 0; }
int cuMemcpyDtoD_v2(devptr dst, devptr src, size_t n) { call_log("dtod", "-", n); memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n); return 0; }
int cuMemGetInfo_v2(size_t *free_, size_t *total_) { *free_ = total - in_use; *total_ = total; return 0; }
int cuModuleLoadData(void **mod, const void *image) { *mod = (void *)l2o_emu_kernels; return 0; }
int cuModuleUnload(void *mod) { return 0; }
int cuModuleGetFunction(void **fn, void *mod, const char *name) {
	for (const l2o_emu_kernel *k = l2o_emu_kernels; k->name; k++) {
		if (strcmp(k->name, name) == 0) {
			*fn = (void *)k;
			return 0;
		}
	}
	return 500; // CUDA_ERROR_NOT_FOUND
}
int cuGetErrorString(int e, const char **s) { *s = e == 801 ? "not supported by the CPU emulation" : "error in the CPU emulation"; return 0; }
int cuGetErrorName(int e, const char **s) { *s = "CUDA_ERROR_EMULATION"; return 0; }

// The fibers of one block: the scheduler runs each until it reaches
// __syncthreads (or finishes), then the next, and starts a new round when
// all have: the CUDA semantics of a barrier. A fiber starts on its own stack
// with makecontext/swapcontext; every later switch is a _setjmp/_longjmp
// pair (no system call), and a finished fiber jumps back to the scheduler.
static ucontext_t scheduler;
static jmp_buf scheduler_jb;
static std::vector<ucontext_t> fibers;
struct saved_point { jmp_buf jb; };
static std::vector<saved_point> fiber_jb;
static std::vector<char> stacks;
static std::vector<char> started, done;
static const size_t stack_size = 64 << 10;
static const l2o_emu_kernel *fiber_kernel;
static void **fiber_params;
static bool in_fibers;

// The order in which a launch runs its blocks and a block its threads:
// L2O_EMU_ORDER=forward (default), reverse or shuffle (seed L2O_EMU_SEED).
// A kernel whose result depends on the order has a race on a GPU.
static std::vector<unsigned> order(unsigned n) {
	std::vector<unsigned> o(n);
	for (unsigned i = 0; i < n; i++) o[i] = i;
	const char *mode = getenv("L2O_EMU_ORDER");
	if (mode && strcmp(mode, "reverse") == 0) std::reverse(o.begin(), o.end());
	if (mode && strcmp(mode, "shuffle") == 0) {
		static std::mt19937 rng(getenv("L2O_EMU_SEED") ? atoi(getenv("L2O_EMU_SEED")) : 1);
		std::shuffle(o.begin(), o.end(), rng);
	}
	return o;
}

void l2o_emu_sync(void) {
	if (!in_fibers) {
		fprintf(stderr, "cuda-emu: __syncthreads in %s, which the generator did not mark as synchronising\n", fiber_kernel ? fiber_kernel->name : "a kernel");
		abort();
	}
	asm volatile("" ::: "memory");
	if (!_setjmp(fiber_jb[threadIdx.x].jb)) _longjmp(scheduler_jb, 1);
	asm volatile("" ::: "memory");
}

static void fiber_main(unsigned t) {
	fiber_kernel->call(fiber_params);
	done[t] = 1;
	_longjmp(scheduler_jb, 1);
}

static int run_block(unsigned bx) {
	if (fibers.size() < bx) {
		fibers.resize(bx);
		fiber_jb.resize(bx);
		stacks.resize(bx * stack_size);
		started.resize(bx);
		done.resize(bx);
		for (unsigned t = 0; t < bx; t++)
			if (getcontext(&fibers[t]) != 0) return 999;
	}
	for (unsigned t = 0; t < bx; t++) started[t] = done[t] = 0;
	const std::vector<unsigned> threads = order(bx);
	for (;;) {
		unsigned running = 0;
		for (unsigned t : threads) {
			if (done[t]) continue;
			threadIdx = {t, 0, 0};
			if (!_setjmp(scheduler_jb)) {
				if (!started[t]) {
					started[t] = 1;
					fibers[t].uc_stack.ss_sp = &stacks[t * stack_size];
					fibers[t].uc_stack.ss_size = stack_size;
					fibers[t].uc_link = 0;
					makecontext(&fibers[t], (void (*)())fiber_main, 1, t);
					swapcontext(&scheduler, &fibers[t]);
				} else {
					_longjmp(fiber_jb[t].jb, 1);
				}
			}
			running += !done[t];
		}
		if (running == 0) return 0;
		if (running != bx) return 998; // some threads finished before a barrier the others reached
	}
}

// launch_error reports a launch an sm_52 GPU would refuse and returns err.
static int launch_error(const l2o_emu_kernel *k, unsigned gx, unsigned bx, unsigned shmem, const char *why, int err) {
	fprintf(stderr, "cuda-emu: launch of %s<<<%u, %u, %u>>> refused as on an sm_52 GPU: %s\n", k->name, gx, bx, shmem, why);
	return err;
}

int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
		unsigned shmem, void *stream, void **params, void **extra) {
	if (gy != 1 || gz != 1 || by != 1 || bz != 1 || bx == 0) return 1; // CUDA_ERROR_INVALID_VALUE
	std::lock_guard<std::mutex> g(mu);
	const l2o_emu_kernel *k = (const l2o_emu_kernel *)f;
	call_log("launch", k->name, (size_t)gx * bx);
	if (const char *log = getenv("L2O_EMU_LAUNCH_LOG")) {
		if (FILE *fp = fopen(log, "a")) {
			fprintf(fp, "%s %u %u %u\n", k->name, gx, bx, shmem);
			fclose(fp);
		}
	}
	// The driver's checks (CUDA_ERROR_INVALID_VALUE = 1,
	// CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701), with ptxas's resources.
	if (bx > max_threads_per_block) return launch_error(k, gx, bx, shmem, "more threads per block than 1024", 1);
	if (gx == 0 || gx > max_grid_x) return launch_error(k, gx, bx, shmem, "grid x outside [1, 2^31-1]", 1);
	if ((size_t)k->smem + shmem > shared_per_block) return launch_error(k, gx, bx, shmem, "more than 48 KiB of shared memory per block", 1);
	unsigned warps = (bx + 31) / 32, per_warp = (k->regs * 32 + reg_alloc_unit - 1) / reg_alloc_unit * reg_alloc_unit;
	if ((size_t)warps * per_warp > regs_per_block) return launch_error(k, gx, bx, shmem, "more registers per block than 65536", 701);
	// The kernels' contract (gpu/cudasrc): a block that reduces with
	// l2o_block_sum has L2O_BLOCK (256) threads; on a GPU another size
	// would give a wrong sum without an error.
	if (k->sync && bx != 256) return launch_error(k, gx, bx, shmem, "a reducing kernel needs blocks of 256 threads (cudasrc.BlockSize)", 1);
	static const bool noexec = getenv("L2O_EMU_NOEXEC") != nullptr;
	if (noexec) return 0;
	gridDim = {gx, 1, 1};
	blockDim = {bx, 1, 1};
	fiber_kernel = k;
	const std::vector<unsigned> blocks = order(gx);
	if (!k->sync) {
		const std::vector<unsigned> threads = order(bx);
		for (unsigned b : blocks) {
			blockIdx = {b, 0, 0};
			for (unsigned t : threads) {
				threadIdx = {t, 0, 0};
				k->call(params);
			}
		}
		return 0;
	}
	fiber_params = params;
	in_fibers = true;
	for (unsigned b : blocks) {
		blockIdx = {b, 0, 0};
		if (int r = run_block(bx)) {
			in_fibers = false;
			return r;
		}
	}
	in_fibers = false;
	return 0;
}
} // extern "C"

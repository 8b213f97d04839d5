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
// not computed, copies and memsets on the device and copies to it not made)
// and every copy to the host reads 1.0f in each float32 (about
// 0.0078 in a double), so that a training neither stops nor divides by
// zero: the results are meaningless, the time is the host's own (Go, cgo,
// the driver calls), to measure what a GPU cannot hide (make gpu-budget).
// With L2O_EMU_WORK_LOG=FILE every piece of device work is recorded there
// as it runs (a kernel with its arguments' bytes, a transform, a copy or a
// memset on the device), whether issued alone or replayed from a graph.
//
// Streams and CUDA graphs: work queued on a created stream (cuStreamCreate)
// while it captures (cuStreamBeginCapture ... cuStreamEndCapture) is
// recorded, kernels with a copy of their parameters, not run; a graph
// instantiated from it (cuGraphInstantiateWithFlags) runs its work in the
// recorded order at every cuGraphLaunch. As with the thread-local capture
// mode of a driver, any synchronous call during a capture (an allocation, a
// free, a synchronous copy or memset, a synchronisation, work on the legacy
// stream) fails with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidates
// the capture (cuStreamEndCapture then fails).
//
// Faults (L2O_EMU_FAULT): alloc:K fails the K-th cuMemAlloc with
// CUDA_ERROR_OUT_OF_MEMORY (later ones succeed); launch:K lets the K-th
// kernel launch fail as a faulting kernel does (it is not run, and every
// later call returns CUDA_ERROR_LAUNCH_FAILED: the context is unusable);
// lost:K loses the context at the K-th launch (it and every later call
// return CUDA_ERROR_CONTEXT_IS_DESTROYED). Launches count those issued
// alone and those captured, from 1.
//
// Every other driver function the binaries import is a stub that
// stops the process with its name (stubs.cpp, generated): a code path that
// needs one fails loudly instead of receiving an error code it may ignore.
// Fibers switch stacks with _longjmp, which glibc's fortified longjmp
// check rejects ("longjmp causes uninitialized stack frame").
#undef _FORTIFY_SOURCE
#include "prelude.h"
#include <algorithm>
#include <random>
#include <string>
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

// A log file named by an environment variable, kept open while the
// variable names it (a test may change it, or truncate the file: the lines
// are appended, each written out at once), so that logging costs a write a
// line, not an open and a close: make gpu-budget's host time includes it.
struct env_log {
	const char *var;
	std::string path;
	FILE *fp = nullptr;
	std::mutex m;
	// file returns the open log, or null when the variable is not set.
	FILE *file() {
		const char *p = getenv(var);
		if (!p) return nullptr;
		if (!fp || path != p) {
			if (fp) fclose(fp);
			path = p;
			fp = fopen(p, "a");
			if (fp) setvbuf(fp, nullptr, _IOLBF, 0);
		}
		return fp;
	}
};
static env_log calls_log{"L2O_EMU_CALL_LOG"}, works_log{"L2O_EMU_WORK_LOG"};

// call_log records one driver call in L2O_EMU_CALL_LOG, when it is set.
static void call_log(const char *what, const char *name, size_t n) {
	std::lock_guard<std::mutex> g(calls_log.m);
	if (FILE *fp = calls_log.file()) fprintf(fp, "%s %s %zu\n", what, name, n);
}

static bool noexec() {
	static const bool on = getenv("L2O_EMU_NOEXEC") != nullptr;
	return on;
}

// The injected fault (L2O_EMU_FAULT=alloc:K, launch:K or lost:K) and the
// error every call returns once a launch has failed or the context is lost.
static struct {
	char kind; // 'a', 'l' (launch), 'x' (lost), 0: none
	long at, count;
} fault;
static int sticky;

static void parse_fault() {
	static bool parsed;
	if (parsed) return;
	parsed = true;
	const char *f = getenv("L2O_EMU_FAULT");
	if (!f || !*f) return;
	char kind[16];
	long k;
	if (sscanf(f, "%15[a-z]:%ld", kind, &k) != 2 || k < 1 ||
			(strcmp(kind, "alloc") != 0 && strcmp(kind, "launch") != 0 && strcmp(kind, "lost") != 0)) {
		fprintf(stderr, "cuda-emu: L2O_EMU_FAULT=%s: want alloc:K, launch:K or lost:K with K >= 1\n", f);
		abort();
	}
	fault.kind = strcmp(kind, "alloc") == 0 ? 'a' : strcmp(kind, "launch") == 0 ? 'l' : 'x';
	fault.at = k;
}

// One piece of recorded device work: a kernel with a copy of its
// parameters, or a function of the emulation (a transform, a copy, a
// memset) with a copy of its data.
struct emu_node {
	const l2o_emu_kernel *k = nullptr;
	unsigned gx = 0, bx = 0, shmem = 0;
	std::vector<unsigned char> args; // kernels: each parameter in an 8-byte-aligned slot
	void (*fn)(const void *) = nullptr;
	std::vector<unsigned char> data;
	std::string desc; // the work log's line for a function
};
struct emu_graph {
	std::vector<emu_node> nodes;
};
struct emu_stream {
	emu_graph *capture = nullptr;
	bool invalid = false;
};
static emu_stream *capturing; // the stream that captures, if any

// fault_or_capture is the start of every synchronous call: the sticky
// error of a failed launch or a lost context, or, during a capture, the
// refusal that invalidates it.
static int fault_or_capture(const char *what) {
	parse_fault();
	if (sticky) return sticky;
	if (capturing) {
		capturing->invalid = true;
		return 900; // CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
	}
	return 0;
}

// work_log records one piece of device work as it runs, in
// L2O_EMU_WORK_LOG, when it is set.
static void work_log(const std::string &line) {
	std::lock_guard<std::mutex> g(works_log.m);
	if (FILE *fp = works_log.file()) fprintf(fp, "%s\n", line.c_str());
}

// work_logging says whether L2O_EMU_WORK_LOG is set (a kernel's line is
// made only then).
static bool work_logging() { return getenv("L2O_EMU_WORK_LOG") != nullptr; }

static std::string hex(devptr p) {
	char b[32];
	snprintf(b, sizeof b, "%llx", p);
	return b;
}

static std::string kernel_line(const l2o_emu_kernel *k, unsigned gx, unsigned bx, unsigned shmem, void **params) {
	std::string line = std::string("kernel ") + k->name + " " + std::to_string(gx) + " " + std::to_string(bx) + " " + std::to_string(shmem);
	for (int i = 0; i < k->nparams; i++) {
		line += i == 0 ? " " : ",";
		const unsigned char *b = (const unsigned char *)params[i];
		char hex[3];
		for (unsigned j = k->sizes[i]; j-- > 0;) {
			snprintf(hex, sizeof hex, "%02x", b[j]);
			line += hex;
		}
	}
	return line;
}

// Copies from page-locked host memory (cuMemAllocHost) to the device are
// queued (cuMemcpyHtoDAsync_v2): the emulation runs them at once, and keeps
// the values each read until the next call that waits for the queued work
// (a synchronisation, a copy to the host), which checks that the host did
// not change them meanwhile, as a GPU may read them any time until then;
// changed values, or a free of the memory first, stop the process.
struct pending_upload {
	const unsigned char *src;
	std::vector<unsigned char> data;
};
static std::vector<pending_upload> pending_uploads;
static std::unordered_map<uintptr_t, size_t> host_sizes; // live page-locked allocations

// uploads_done is called by every call that waits for the queued work.
static void uploads_done(const char *by) {
	std::lock_guard<std::mutex> g(mu);
	for (const pending_upload &u : pending_uploads) {
		if (memcmp(u.src, u.data.data(), u.data.size()) != 0) {
			fprintf(stderr, "cuda-emu: the host changed %zu bytes of page-locked memory queued for a copy to the device before %s waited for it\n", u.data.size(), by);
			abort();
		}
	}
	pending_uploads.clear();
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
int cuCtxSynchronize(void) {
	call_log("sync", "-", 0);
	if (int e = fault_or_capture("cuCtxSynchronize")) return e;
	uploads_done("cuCtxSynchronize");
	return 0;
}
int cuMemAlloc_v2(devptr *p, size_t n) {
	call_log("alloc", "-", n);
	if (int e = fault_or_capture("cuMemAlloc")) return e;
	std::lock_guard<std::mutex> g(mu);
	if (fault.kind == 'a' && ++fault.count == fault.at) return 2; // CUDA_ERROR_OUT_OF_MEMORY, injected
	void *m = calloc(n ? n : 1, 1);
	if (!m) return 2; // CUDA_ERROR_OUT_OF_MEMORY
	*p = (devptr)(uintptr_t)m;
	sizes[(uintptr_t)m] = n;
	in_use += n;
	return 0;
}
int cuMemFree_v2(devptr p) {
	call_log("free", "-", 0);
	if (int e = fault_or_capture("cuMemFree")) return e;
	std::lock_guard<std::mutex> g(mu);
	auto it = sizes.find((uintptr_t)p);
	if (it == sizes.end()) return 1; // CUDA_ERROR_INVALID_VALUE: not allocated, or freed twice
	in_use -= it->second;
	sizes.erase(it);
	free((void *)(uintptr_t)p);
	return 0;
}
int cuMemsetD8_v2(devptr p, unsigned char v, size_t n) {
	call_log("memset", "-", n);
	if (int e = fault_or_capture("cuMemsetD8")) return e;
	work_log("memset " + hex(p) + " " + std::to_string(v) + " " + std::to_string(n));
	if (!noexec()) memset((void *)(uintptr_t)p, v, n);
	return 0;
}
int cuMemcpyHtoD_v2(devptr dst, const void *src, size_t n) {
	call_log("htod", "-", n);
	if (int e = fault_or_capture("cuMemcpyHtoD")) return e;
	memcpy((void *)(uintptr_t)dst, src, n);
	return 0;
}
int cuMemcpyDtoH_v2(void *dst, devptr src, size_t n) {
	call_log("dtoh", "-", n);
	if (int e = fault_or_capture("cuMemcpyDtoH")) return e;
	uploads_done("cuMemcpyDtoH");
	if (noexec()) {
		// The kernels did not run: read 1.0f in every float32, finite and
		// non-zero as a double too, so that no caller stops or divides by 0.
		const float one = 1;
		for (size_t i = 0; i + 4 <= n; i += 4) memcpy((char *)dst + i, &one, 4);
		return 0;
	}
	memcpy(dst, (const void *)(uintptr_t)src, n);
	return 0;
}
int cuMemcpyDtoD_v2(devptr dst, devptr src, size_t n) {
	call_log("dtod", "-", n);
	if (int e = fault_or_capture("cuMemcpyDtoD")) return e;
	work_log("dtod " + hex(dst) + " " + hex(src) + " " + std::to_string(n));
	if (!noexec()) memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
	return 0;
}
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

// run_kernel runs k on a 1-D grid in the chosen order; mu is held.
static int run_kernel(const l2o_emu_kernel *k, unsigned gx, unsigned bx, void **params) {
	if (noexec()) return 0;
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

// run_node runs one recorded piece of work; mu is held.
static int run_node(emu_node &n) {
	if (!n.k) {
		if (!n.desc.empty()) work_log(n.desc); // copies from the host are not logged
		n.fn(n.data.data());
		return 0;
	}
	std::vector<void *> params(n.k->nparams);
	for (int i = 0; i < n.k->nparams; i++) params[i] = &n.args[8 * i];
	if (work_logging()) work_log(kernel_line(n.k, n.gx, n.bx, n.shmem, params.data()));
	return run_kernel(n.k, n.gx, n.bx, params.data());
}

int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
		unsigned shmem, void *stream, void **params, void **extra) {
	if (gy != 1 || gz != 1 || by != 1 || bz != 1 || bx == 0) return 1; // CUDA_ERROR_INVALID_VALUE
	const l2o_emu_kernel *k = (const l2o_emu_kernel *)f;
	emu_stream *st = (emu_stream *)stream;
	const bool capture = st && st->capture;
	call_log(capture ? "capture" : "launch", k->name, (size_t)gx * bx);
	parse_fault();
	if (sticky) return sticky;
	if (!st && capturing) {
		capturing->invalid = true;
		return 900; // work on the legacy stream during a capture
	}
	std::lock_guard<std::mutex> g(mu);
	if ((fault.kind == 'l' || fault.kind == 'x') && ++fault.count == fault.at) {
		if (fault.kind == 'x') return sticky = 709; // CUDA_ERROR_CONTEXT_IS_DESTROYED
		sticky = 719; // CUDA_ERROR_LAUNCH_FAILED, from the next call on
		return 0;
	}
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
	emu_node n;
	n.k = k;
	n.gx = gx;
	n.bx = bx;
	n.shmem = shmem;
	n.args.resize(8 * (size_t)k->nparams);
	for (int i = 0; i < k->nparams; i++) memcpy(&n.args[8 * i], params[i], k->sizes[i]);
	if (capture) {
		st->capture->nodes.push_back(std::move(n));
		return 0;
	}
	return run_node(n);
}

// l2o_emu_work queues a function of the emulation (cuFFT's transforms, the
// driver's asynchronous copies and memsets) on stream: run now, or
// recorded when the stream captures. data (size bytes) is copied.
int l2o_emu_work(void *stream, void (*fn)(const void *), const void *data, size_t size, const char *what,
		const char *name, size_t count, const char *desc) {
	emu_stream *st = (emu_stream *)stream;
	const bool capture = st && st->capture;
	call_log(capture ? "capture" : what, capture ? what : name, count);
	parse_fault();
	if (sticky) return sticky;
	if (!st && capturing) {
		capturing->invalid = true;
		return 900;
	}
	std::lock_guard<std::mutex> g(mu);
	emu_node n;
	n.fn = fn;
	n.data.assign((const unsigned char *)data, (const unsigned char *)data + size);
	n.desc = desc;
	if (capture) {
		st->capture->nodes.push_back(std::move(n));
		return 0;
	}
	return run_node(n);
}

struct copy_job {
	devptr dst, src;
	size_t n;
};
static void run_copy(const void *p) {
	const copy_job *j = (const copy_job *)p;
	if (!noexec()) memmove((void *)(uintptr_t)j->dst, (const void *)(uintptr_t)j->src, j->n);
}
static void run_memset(const void *p) {
	const copy_job *j = (const copy_job *)p;
	if (!noexec()) memset((void *)(uintptr_t)j->dst, (int)j->src, j->n);
}
int cuMemcpyDtoDAsync_v2(devptr dst, devptr src, size_t n, void *stream) {
	copy_job j{dst, src, n};
	return l2o_emu_work(stream, run_copy, &j, sizeof j, "dtod", "-", n, ("dtod " + hex(dst) + " " + hex(src) + " " + std::to_string(n)).c_str());
}
int cuMemAllocHost_v2(void **p, size_t n) {
	if (int e = fault_or_capture("cuMemAllocHost")) return e;
	std::lock_guard<std::mutex> g(mu);
	void *m = calloc(n ? n : 1, 1);
	if (!m) return 2;
	host_sizes[(uintptr_t)m] = n;
	*p = m;
	return 0;
}
int cuMemFreeHost(void *p) {
	if (int e = fault_or_capture("cuMemFreeHost")) return e;
	std::lock_guard<std::mutex> g(mu);
	auto it = host_sizes.find((uintptr_t)p);
	if (it == host_sizes.end()) return 1;
	for (const pending_upload &u : pending_uploads) {
		if (u.src >= (const unsigned char *)p && u.src < (const unsigned char *)p + it->second) {
			fprintf(stderr, "cuda-emu: page-locked memory freed while a copy from it to the device is queued\n");
			abort();
		}
	}
	host_sizes.erase(it);
	free(p);
	return 0;
}
int cuMemcpyHtoDAsync_v2(devptr dst, const void *src, size_t n, void *stream) {
	{
		std::lock_guard<std::mutex> g(mu);
		bool pinned = false;
		for (const auto &h : host_sizes)
			pinned = pinned || ((uintptr_t)src >= h.first && (uintptr_t)src + n <= h.first + h.second);
		if (!pinned) {
			fprintf(stderr, "cuda-emu: cuMemcpyHtoDAsync from memory not allocated by cuMemAllocHost (a GPU would wait: pageable memory)\n");
			abort();
		}
	}
	copy_job j{dst, (devptr)(uintptr_t)src, n};
	int e = l2o_emu_work(stream, run_copy, &j, sizeof j, "htod-async", "-", n, "");
	if (e == 0 && !noexec() && !(stream && ((emu_stream *)stream)->capture)) {
		std::lock_guard<std::mutex> g(mu);
		pending_uploads.push_back({(const unsigned char *)src, std::vector<unsigned char>((const unsigned char *)src, (const unsigned char *)src + n)});
	}
	return e;
}
int cuMemsetD8Async(devptr dst, unsigned char v, size_t n, void *stream) {
	copy_job j{dst, v, n};
	return l2o_emu_work(stream, run_memset, &j, sizeof j, "memset", "-", n, ("memset " + hex(dst) + " " + std::to_string(v) + " " + std::to_string(n)).c_str());
}

int cuStreamCreate(void **stream, unsigned flags) {
	if (int e = fault_or_capture("cuStreamCreate")) return e;
	*stream = new emu_stream;
	return 0;
}
int cuStreamDestroy_v2(void *stream) {
	emu_stream *st = (emu_stream *)stream;
	if (!st || st->capture) return 401; // CUDA_ERROR_ILLEGAL_STATE
	delete st;
	return 0;
}
int cuStreamSynchronize(void *stream) {
	call_log("sync", "stream", 0);
	uploads_done("cuStreamSynchronize");
	emu_stream *st = (emu_stream *)stream;
	if (st && st->capture) {
		st->invalid = true;
		return 900;
	}
	return fault_or_capture("cuStreamSynchronize");
}
int cuStreamBeginCapture_v2(void *stream, int mode) {
	parse_fault();
	if (sticky) return sticky;
	emu_stream *st = (emu_stream *)stream;
	if (!st) return 900; // the legacy stream cannot capture
	std::lock_guard<std::mutex> g(mu);
	if (capturing) return 401; // one capture at a time in the emulation
	st->capture = new emu_graph;
	st->invalid = false;
	capturing = st;
	call_log("capture-begin", "-", 0);
	return 0;
}
int cuStreamEndCapture(void *stream, void **graph) {
	emu_stream *st = (emu_stream *)stream;
	std::lock_guard<std::mutex> g(mu);
	if (!st || !st->capture || capturing != st) return 401;
	emu_graph *gr = st->capture;
	st->capture = nullptr;
	capturing = nullptr;
	call_log("capture-end", "-", gr->nodes.size());
	if (st->invalid) {
		delete gr;
		*graph = nullptr;
		return 901; // CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
	}
	if (sticky) {
		delete gr;
		*graph = nullptr;
		return sticky;
	}
	*graph = gr;
	return 0;
}
int cuGraphDestroy(void *graph) {
	delete (emu_graph *)graph;
	return 0;
}
int cuGraphInstantiateWithFlags(void **exec, void *graph, unsigned long long flags) {
	if (int e = fault_or_capture("cuGraphInstantiate")) return e;
	if (!graph) return 1;
	*exec = new emu_graph(*(emu_graph *)graph);
	return 0;
}
int cuGraphExecDestroy(void *exec) {
	delete (emu_graph *)exec;
	return 0;
}
int cuGraphLaunch(void *exec, void *stream) {
	emu_graph *gr = (emu_graph *)exec;
	call_log("graph", "-", gr ? gr->nodes.size() : 0);
	if (int e = fault_or_capture("cuGraphLaunch")) return e;
	if (!gr) return 1;
	std::lock_guard<std::mutex> g(mu);
	for (emu_node &n : gr->nodes)
		if (int r = run_node(n)) return r;
	return 0;
}
} // extern "C"

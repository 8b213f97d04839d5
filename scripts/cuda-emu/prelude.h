// The CUDA C dialect of gpu/cudasrc on the CPU: one launch at a time; a
// kernel that synchronises its block runs its CUDA threads as fibers
// (ucontext) that switch to the block's scheduler at __syncthreads, so that
// every thread of the block has reached the barrier before any goes on;
// other kernels run their threads in a loop.
#pragma once
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct l2o_dim3 { unsigned x, y, z; };
extern l2o_dim3 threadIdx, blockIdx, blockDim, gridDim;
extern "C" void l2o_emu_sync(void);

#define __global__ static
#define __device__ static
#define __forceinline__ inline
#define __shared__ static
#define __syncthreads() l2o_emu_sync()

/* __dadd_rn and __dmul_rn round each operation on their own: a GPU never
   fuses them into a multiply-add, so neither may the compiler here when the
   kernels are built with -ffp-contract=fast (the empty asm hides the value
   from contraction). */
#if defined(__x86_64__)
#define L2O_EMU_ROUNDED(r) __asm__("" : "+x"(r))
#else
#define L2O_EMU_ROUNDED(r) __asm__("" : "+m"(r))
#endif
static inline double __dadd_rn(double a, double b) {
	double r = a + b;
	L2O_EMU_ROUNDED(r);
	return r;
}
static inline double __dmul_rn(double a, double b) {
	double r = a * b;
	L2O_EMU_ROUNDED(r);
	return r;
}

static inline float atomicAdd(float *p, float v) {
	uint32_t *q = (uint32_t *)p, old = __atomic_load_n(q, __ATOMIC_RELAXED), next;
	float f;
	do {
		memcpy(&f, &old, 4);
		f += v;
		memcpy(&next, &f, 4);
	} while (!__atomic_compare_exchange_n(q, &old, next, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
	memcpy(&f, &old, 4);
	return f;
}

static inline unsigned int atomicAdd(unsigned int *p, unsigned int v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }

/* Blocks run one at a time: a fence orders nothing more than the program
   order, but is kept as a compiler and CPU barrier. */
static inline void __threadfence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

struct l2o_emu_kernel {
	const char *name;
	void (*call)(void **params);
	bool sync;
	int regs; /* registers per thread on sm_52 (gpu/cudasrc/resources.tsv) */
	int smem; /* bytes of static shared memory on sm_52 */
	int nparams; /* the kernel's parameters */
	const unsigned *sizes; /* the size of each, as the driver copies them */
};
extern const l2o_emu_kernel l2o_emu_kernels[];

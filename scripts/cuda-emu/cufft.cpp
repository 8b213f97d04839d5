// A CPU emulation of the cuFFT functions gpu/cufft loads: batched 2-D
// real-to-complex (unnormalised forward) and complex-to-real (unnormalised
// inverse, the imaginary parts of the DC and Nyquist columns ignored)
// transforms in cuFFT's layouts, by direct DFTs in double. A transform is
// queued on the plan's stream (cufftSetStream) through the driver's
// emulation (l2o_emu_work in driver.cpp), so that a capturing stream
// records it in its graph and a failed context fails it.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <complex>
#include <dlfcn.h>
#include <string>
#include <mutex>
#include <vector>

typedef std::complex<double> cd;

struct plan {
	int h = 0, w = 0, batch = 0, inverse = 0, live = 0;
	void *work = 0;
	void *stream = 0;
};
static std::vector<plan> plans;
static std::mutex mu;

extern "C" {
int cufftCreate(int *handle) {
	std::lock_guard<std::mutex> g(mu);
	plans.push_back(plan{});
	plans.back().live = 1;
	*handle = (int)plans.size() - 1;
	return 0;
}
int cufftSetAutoAllocation(int handle, int on) { return 0; }
int cufftMakePlanMany(int handle, int rank, int *n, int *inembed, int istride, int idist, int *onembed, int ostride,
		int odist, int type, int batch, size_t *work) {
	std::lock_guard<std::mutex> g(mu);
	if (rank != 2 || inembed || onembed || istride != 1 || ostride != 1 || (type != 0x2a && type != 0x2c)) return 9; // CUFFT_NOT_SUPPORTED
	plan &p = plans[handle];
	p.h = n[0];
	p.w = n[1];
	p.batch = batch;
	p.inverse = type == 0x2c;
	*work = 4096; // a work area, to exercise the caller's allocation of it
	return 0;
}
int cufftSetWorkArea(int handle, void *area) {
	std::lock_guard<std::mutex> g(mu);
	plans[handle].work = area;
	return 0;
}
int cufftDestroy(int handle) {
	std::lock_guard<std::mutex> g(mu);
	plans[handle].live = 0;
	return 0;
}

int cufftSetStream(int handle, void *stream) {
	std::lock_guard<std::mutex> g(mu);
	plans[handle].stream = stream;
	return 0;
}

static plan get(int handle) {
	std::lock_guard<std::mutex> g(mu);
	return plans[handle];
}

// A transform as the driver's emulation queues it.
struct job {
	plan p;
	float *in, *out;
};

static void run_r2c(const void *data) {
	const job *j = (const job *)data;
	if (getenv("L2O_EMU_NOEXEC")) return;
	const plan &p = j->p;
	const float *in = j->in;
	float *out = j->out;
	int h = p.h, w = p.w, wc = w / 2 + 1;
	std::vector<cd> rows(h * wc);
	for (int b = 0; b < p.batch; b++) {
		const float *x = in + (size_t)b * h * w;
		for (int i = 0; i < h; i++)
			for (int k = 0; k < wc; k++) {
				cd s = 0;
				for (int j = 0; j < w; j++) s += (double)x[i * w + j] * std::polar(1.0, -2 * M_PI * k * j / w);
				rows[i * wc + k] = s;
			}
		float *y = out + (size_t)b * h * wc * 2;
		for (int k1 = 0; k1 < h; k1++)
			for (int k = 0; k < wc; k++) {
				cd s = 0;
				for (int i = 0; i < h; i++) s += rows[i * wc + k] * std::polar(1.0, -2 * M_PI * k1 * i / h);
				y[2 * (k1 * wc + k)] = (float)s.real();
				y[2 * (k1 * wc + k) + 1] = (float)s.imag();
			}
	}
}

static void run_c2r(const void *data) {
	const job *j = (const job *)data;
	if (getenv("L2O_EMU_NOEXEC")) return;
	const plan &p = j->p;
	float *in = j->in, *out = j->out;
	int h = p.h, w = p.w, wc = w / 2 + 1;
	std::vector<cd> cols(h * wc);
	for (int b = 0; b < p.batch; b++) {
		const float *y = in + (size_t)b * h * wc * 2;
		for (int i = 0; i < h; i++)
			for (int k = 0; k < wc; k++) {
				cd s = 0;
				for (int k1 = 0; k1 < h; k1++)
					s += cd(y[2 * (k1 * wc + k)], y[2 * (k1 * wc + k) + 1]) * std::polar(1.0, 2 * M_PI * k1 * i / h);
				cols[i * wc + k] = s;
			}
		float *x = out + (size_t)b * h * w;
		for (int i = 0; i < h; i++)
			for (int j = 0; j < w; j++) {
				double s = cols[i * wc].real();
				for (int k = 1; k < wc; k++) {
					cd t = cols[i * wc + k] * std::polar(1.0, 2 * M_PI * k * j / w);
					s += (w % 2 == 0 && k == w / 2) ? t.real() : 2 * t.real();
				}
				x[i * w + j] = (float)s;
			}
		// cuFFT's C2R may overwrite its input: do so, so that callers that
		// rely on it being kept are caught.
		memset((void *)y, 0xff, sizeof(float) * 2 * h * wc);
	}
}

typedef int (*work_fn)(void *, void (*)(const void *), const void *, size_t, const char *, const char *, size_t, const char *);

// enqueue hands a transform to the driver's emulation (l2o_emu_work).
static int enqueue(const plan &p, void (*fn)(const void *), float *in, float *out, const char *what) {
	static work_fn work = (work_fn)dlsym(RTLD_DEFAULT, "l2o_emu_work");
	if (!work) {
		fprintf(stderr, "cuda-emu: libcufft's emulation needs the driver's (l2o_emu_work in libcuda.so.1)\n");
		abort();
	}
	job j{p, in, out};
	char name[32], desc[128];
	snprintf(name, sizeof name, "%dx%d", p.h, p.w);
	snprintf(desc, sizeof desc, "%s %dx%dx%d %llx %llx", what, p.h, p.w, p.batch, (unsigned long long)(uintptr_t)in, (unsigned long long)(uintptr_t)out);
	return work(p.stream, fn, &j, sizeof j, what, name, p.batch, desc) ? 5 : 0; // CUFFT_EXEC_FAILED
}

int cufftExecR2C(int handle, float *in, float *out) {
	const plan p = get(handle);
	if ((void *)in == (void *)out) return 9; // in place: not how the device calls it
	if (!p.live || p.inverse || !p.work) return 5; // CUFFT_EXEC_FAILED
	return enqueue(p, run_r2c, in, out, "fft");
}

int cufftExecC2R(int handle, float *in, float *out) {
	const plan p = get(handle);
	if ((void *)in == (void *)out) return 9;
	if (!p.live || !p.inverse || !p.work) return 5;
	return enqueue(p, run_c2r, in, out, "ifft");
}
} // extern "C"

GO ?= go

.PHONY: all build build-mpi build-simd build-cuda test test-simd test-python test-cuda test-cuda-emu gpu-check gpu-budget bench lint fuzz demo

all: lint test

# -buildvcs=true stamps the VCS revision that every output records
# (provenance), whatever GOFLAGS says.
build:
	$(GO) build -buildvcs=true -o bin/l2o ./cmd/l2o

# The MPI build (package mpi, tag mpi, cgo against Open MPI: Debian's
# libopenmpi-dev and openmpi-bin): mpirun -np K bin/l2o-mpi eval … splits
# the test functions over K ranks; without mpirun it is one process, as
# bin/l2o is. bin/mpi.test is the binding's test, to run under mpirun.
build-mpi:
	$(GO) build -buildvcs=true -tags mpi -o bin/l2o-mpi ./cmd/l2o
	$(GO) test -c -tags mpi -o bin/mpi.test ./mpi

# The float32 vector kernels (problem/vector_amd64.go) need Go's experimental
# simd/archsimd: GOEXPERIMENT=simd, amd64 with AVX2. Without it the scalar
# loops run; results are the same (gradients bitwise, see test-simd).
build-simd:
	GOEXPERIMENT=simd $(GO) build -buildvcs=true -o bin/l2o-simd ./cmd/l2o

# The test command CI runs (README): every package, the float32 paths again
# with the vector kernels compiled in, and the Python reader.
test: test-simd test-python
	$(GO) test -count=1 ./...

# The Python reader (python/greedyl2o) against `l2o apply`: Debian's python3
# with python3-numpy (the python3 first on PATH may lack numpy).
PYTHON ?= /usr/bin/python3
test-python:
	$(PYTHON) python/tests/test_apply.py

# The tests of the vector kernels skip, saying "AVX2", on a machine or in a
# build without them; test-simd lists those skipped, and fails when any was
# with REQUIRE_SIMD=1 (CI: .ci/run), so that a run without them is not
# taken for one that checked them.
SIMD_RUN = Vector|Float32|InPrecision|Precision|Dot|PlainLoop
SIMD_PKGS = ./kernels ./problem ./greedy ./steploss ./mconv
test-simd:
	@log=$$(mktemp); GOEXPERIMENT=simd $(GO) test -count=1 -v -run '$(SIMD_RUN)' $(SIMD_PKGS) >$$log 2>&1; rc=$$?; \
	grep -E '^(ok|FAIL|panic:|--- FAIL)' $$log; \
	if [ $$rc -ne 0 ]; then cat $$log; rm -f $$log; exit $$rc; fi; \
	ran=$$(grep -c -- '^--- PASS: Test.*Vector' $$log); \
	awk '/^--- SKIP/ && prev ~ /AVX2/ {print "test-simd: skipped without vector kernels: " $$3} {prev = $$0}' $$log >$$log.skip; \
	skipped=$$(wc -l <$$log.skip); cat $$log.skip; rm -f $$log.skip; \
	rm -f $$log; echo "test-simd: $$ran vector tests ran, $$skipped skipped for want of AVX2 or GOEXPERIMENT=simd"; \
	if [ -n "$(REQUIRE_SIMD)" ] && { [ $$skipped -gt 0 ] || [ $$ran -eq 0 ]; }; then \
		echo "test-simd: REQUIRE_SIMD is set and the vector kernels were not all tested on this machine"; exit 1; fi

# CPU-against-CUDA agreement tests: run on a machine with a GPU.
test-cuda:
	$(GO) test -count=1 -tags l2ocuda ./gpu/...

# The CUDA tests and the tagged binary on a CPU emulation of the driver and
# cuFFT, without a GPU (needs g++ and the CUDA headers; scripts/cuda-emu/run.sh):
# in three thread orders, then with fused multiply-adds, every launch checked
# against an sm_52 GPU's limits.
test-cuda-emu:
	./scripts/cuda-emu/run.sh

# The CUDA binaries for a GPU machine without Go or network (scripts/gpu-check.sh
# uses them, with bin/l2o from make build, when there is no Go): they need only
# the driver's libcuda at start and load cuFFT with dlopen (L2O_CUFFT,
# libcufft.so*, pip's nvidia-cufft).
build-cuda:
	$(GO) build -buildvcs=true -tags l2ocuda -ldflags '-s -w' -o bin/l2o-cuda ./cmd/l2o
	$(GO) test -c -tags l2ocuda -ldflags '-s -w' -o bin/cuda.test ./gpu/cuda
	$(GO) test -c -tags l2ocuda -ldflags '-s -w' -o bin/steploss-cuda.test ./steploss
	$(GO) build -ldflags '-s -w' -o bin/gpucheck ./gpu/gpucheck

# Everything to run the first time a GPU is at hand, from a fresh clone:
# the CUDA tests at the paper's sizes, bench memory on the device, the
# greedy, unrolled and Banert steps timed against the CPU build, one
# markdown table (runs/gpu-check-*/gpu-check.md); non-zero on any failure
# or disagreement (scripts/gpu-check.sh).
gpu-check:
	./scripts/gpu-check.sh

# What the CUDA device's trainers ask of the host per evaluation (launches,
# graphs, transforms, waits, copies to the host, host CPU ms), measured
# without a GPU on the CPU emulation with the kernels not run: a greedy M-PC
# evaluation (96², N = 25, 2 steps), an Algorithm 2 iteration, an unrolled
# Adam step and a Banert step (scripts/cuda-emu/budget.sh, gpu/gpubudget;
# docs/gpu-budget.md).
gpu-budget:
	./scripts/cuda-emu/budget.sh

bench:
	$(GO) test -run '^$$' -bench . -benchtime 10x ./kernels ./graph ./problem ./models ./greedy ./steploss ./wcrr ./tomo

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt wants to change:"; echo "$$out"; exit 1; fi
	$(GO) mod tidy -diff
	$(GO) vet ./...
	GOEXPERIMENT=simd $(GO) vet ./kernels ./problem ./greedy ./steploss ./tomo

# Every reader of an input file, one fuzz target each (seed corpora in each
# package's testdata/fuzz). FUZZTIME is a duration (30s) or an execution count
# (1000000x, the goal per target); -fuzzminimizetime 0 keeps the engine from
# spending the budget minimising large inputs.
FUZZTIME ?= 1000000x
FUZZ_TARGETS = data:FuzzReadPGM data:FuzzReadPNG data:FuzzReadSTL10 \
	checkpoint:FuzzDecodeNPY checkpoint:FuzzParseManifest unroll:FuzzParseState \
	banert:FuzzParseManifest wcrr:FuzzParseWeights eval:FuzzReadJSON

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t#*:}; \
		echo "== $$pkg $$fn ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 0 ./$$pkg; \
	done

demo: build
	./bin/l2o demo

#!/usr/bin/env bash
# scripts/gpu-check.sh (make gpu-check): everything to run the first time a
# GPU is at hand (issue 30), from a fresh clone. It needs Go 1.26 and
# Debian's CUDA packages (nvidia-cuda-dev: the headers, libnvrtc and
# libcufft that .ci/cuda.sh installs; nvidia-cuda-toolkit for ptxas) besides
# the NVIDIA driver. Without Go it uses prebuilt bin/l2o-cuda, bin/cuda.test,
# bin/steploss-cuda.test, bin/gpucheck and bin/l2o (make build-cuda build;
# carried from a machine that has Go).
#
# It builds the CUDA binary, its test binary and the CPU binary from this
# tree, then runs, each into its own fresh folder under $OUT (default
# runs/gpu-check-<UTC time>):
#   test-launch.txt   go test -v ./gpu/launch: the embedded PTX assembled by
#                     ptxas for sm_52/70/80/90, the resource table current, the
#                     launch limits at the paper's sizes (skipped without Go)
#   test-cuda.txt     every CUDA test at the paper's sizes (96×96 and, with
#                     L2O_CUDA_PAPER=1, 256×256; N = 25): every kernel against
#                     the CPU, gpu.CheckOps/CheckNetOps/CheckRidge/CheckRay/
#                     CheckMat, the greedy step losses and Banert's loss against
#                     the CPU in float64, the objective at 256×256
#   bench-steploss.txt  one evaluation of the M-PS and M-PC step losses with
#                     their gradients, N = 25 of 96×96, on the GPU
#                     (BenchmarkStepLossCUDA) and the CPU's fused float64 path
#   memory-cuda/      bench memory --device cuda --T 1,10,50,100 (greedy,
#                     unrolled and Banert training, the device allocator)
#   greedy-{cuda,cpu}/  greedy M-PC, 25 functions of 96×96, NAG with a fixed
#                     budget, on the GPU and with the CPU build
#   ct-{cuda,cpu}/    the same on ct-small (25 functions of 40×40)
#   unroll-{cuda,cpu}/  unrolled M-PC, T = 10, batch 4, 2 epochs (Adam steps)
#   banert-{cuda,cpu}/  Banert, T = 10, 5 functions, 2 epochs
#   greedy-mpi2/      greedy-cuda's training on 2 MPI ranks (where mpirun is)
#   greedy-{cuda,cpu}.pprof  the host's CPU profile of the greedy runs
#                     (L2O_CPUPROFILE; go tool pprof -top BINARY FILE)
#   profile-kernels.txt  Nsight Compute's GPU time per kernel over a short
#                     greedy M-PC training (PROFILE=1, where ncu is)
# and writes gpu-check.md: one markdown table of every check, the GPU's
# times against the CPU's, and the losses' agreement (go run ./gpu/gpucheck,
# which states the tolerances). It exits non-zero when a test fails, a
# command fails or the GPU disagrees with the CPU beyond the tolerances.
# Put the table in docs/benchmarks.md with the GPU's name, and the date and
# GPU in docs/devices.md's table of what has been verified where.
#
# Settings (environment): OUT; SIZE (96), N (25), T (10), STEPS (3), NAG (100
# iterations a block, one round), PAPER (1: the 256×256 tests; 0 skips them),
# TRAINERS (bench memory's: greedy,unrolled,banert), MEMORY (1; 0 skips bench
# memory, whose device counts do not depend on the GPU), BENCH (200: the step
# loss benchmarks' evaluations; 0 skips them), PROFILE (1: the kernel profile
# where ncu is; 0 skips it), PROFILE_LAUNCHES (5000: the launches ncu
# measures, from the first); on a lent machine with
# minutes counted: TEST_TIMEOUT (the CUDA tests' -test.timeout, 60m),
# STEP_TIMEOUT (every other command, in seconds; none by default: a step
# past it is killed and recorded as failed, exit 124), PREBUILT=1 (use bin/
# even where Go is installed), COMMIT (the revision, where no .git travels).
# To try the script without a GPU, run it on the CPU emulation of the driver
# (small sizes; scripts/cuda-emu/run.sh leaves the libraries in its OUT):
#   LD_LIBRARY_PATH=$EMU L2O_CUFFT=$EMU/libcufft.so SIZE=16 N=3 T=2 STEPS=2 NAG=10 \
#     PAPER=0 TRAINERS=greedy,unrolled scripts/gpu-check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-runs/gpu-check-$(date -u +%Y%m%dT%H%M%SZ)}
SIZE=${SIZE:-96} N=${N:-25} T=${T:-10} STEPS=${STEPS:-3} NAG=${NAG:-100} PAPER=${PAPER:-1}
TRAINERS=${TRAINERS:-greedy,unrolled,banert} MEMORY=${MEMORY:-1} BENCH=${BENCH:-200}
PROFILE=${PROFILE:-1} PROFILE_LAUNCHES=${PROFILE_LAUNCHES:-5000}
TEST_TIMEOUT=${TEST_TIMEOUT:-60m} STEP_TIMEOUT=${STEP_TIMEOUT:-} PREBUILT=${PREBUILT:-0}
COMMIT=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with local changes)')}
HAVE_GO=0
[ "$PREBUILT" != 1 ] && command -v go >/dev/null && HAVE_GO=1
if [ -e "$OUT" ] && [ -n "$(ls -A "$OUT" 2>/dev/null)" ]; then
	echo "gpu-check: $OUT holds results: choose another OUT or remove it" >&2
	exit 2
fi
mkdir -p "$OUT"
: > "$OUT/status.txt"
# step NAME CMD...: runs CMD with its output in $OUT/NAME.txt (and on the
# terminal) and records its exit status.
step() {
	local name=$1
	shift
	echo "== $name: $*"
	local guard=()
	[ -n "$STEP_TIMEOUT" ] && [ "$name" != test-cuda ] && guard=(timeout -k 10 "$STEP_TIMEOUT")
	"${guard[@]}" "$@" 2>&1 | tee "$OUT/$name.txt"
	local code=${PIPESTATUS[0]}
	echo "$name $code" >> "$OUT/status.txt"
	[ "$code" = 0 ] || echo "gpu-check: $name exited $code (see $OUT/$name.txt)" >&2
	return 0
}

# The machine.
{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "commit: $COMMIT"
	if command -v nvidia-smi >/dev/null; then
		echo "GPU: $(nvidia-smi --query-gpu=name,compute_cap,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -n1 || echo unknown)"
	else
		echo "GPU: no nvidia-smi on this machine"
	fi
	echo "CPU: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //'), $(nproc 2>/dev/null) cores"
	[ "$HAVE_GO" = 1 ] && echo "Go: $(go version)"
	echo "sizes: $N functions of ${SIZE}×${SIZE}, T = $T, $STEPS greedy steps of NAG with $NAG iterations, 256×256 tests: $([ "$PAPER" = 1 ] && echo yes || echo no)"
} > "$OUT/env.txt"
cat "$OUT/env.txt"

# The binaries: built from this tree when Go is here (never stale ones).
BIN="$OUT/bin"
mkdir -p "$BIN"
if [ "$HAVE_GO" = 1 ]; then
	step build-cuda go build -tags l2ocuda -o "$BIN/l2o-cuda" ./cmd/l2o
	step build-cuda-test go test -c -tags l2ocuda -o "$BIN/cuda.test" ./gpu/cuda
	step build-cpu go build -o "$BIN/l2o" ./cmd/l2o
	step build-steploss-test go test -c -tags l2ocuda -o "$BIN/steploss-cuda.test" ./steploss
	step test-launch go test -count=1 -v ./gpu/launch
else
	for b in l2o-cuda cuda.test steploss-cuda.test l2o; do
		[ -x "bin/$b" ] || { echo "gpu-check: no Go and no prebuilt bin/$b (make build-cuda build on a machine with Go)" >&2; exit 2; }
		cp "bin/$b" "$BIN/$b"
	done
fi
if [ -z "${L2O_CUFFT:-}" ] && command -v python3 >/dev/null; then
	lib=$(python3 -c 'import glob, nvidia.cufft as m, os; print((sorted(glob.glob(os.path.join(list(m.__path__)[0], "lib", "libcufft.so*"))) or [""])[0])' 2>/dev/null || true)
	[ -n "$lib" ] && export L2O_CUFFT=$lib && echo "cuFFT: $lib" | tee -a "$OUT/env.txt"
fi
CUDA="$BIN/l2o-cuda" CPU="$BIN/l2o"

# Every CUDA test. Without a usable GPU they skip, saying so: stop there.
paper=()
[ "$PAPER" = 1 ] && paper=(env L2O_CUDA_PAPER=1)
step test-cuda "${paper[@]}" "$BIN/cuda.test" -test.v -test.count=1 -test.timeout "$TEST_TIMEOUT"
if grep -q 'no CUDA GPU on this machine' "$OUT/test-cuda.txt"; then
	echo "gpu-check: the CUDA tests found no usable GPU (see $OUT/test-cuda.txt)" >&2
	exit 1
fi

# The step losses alone, on the GPU and on the CPU (fused float64).
[ "$BENCH" -gt 0 ] && step bench-steploss "$BIN/steploss-cuda.test" -test.run '^$' \
	-test.bench 'StepLossCUDA|StepLossMPS$|StepLossMPC$' -test.benchtime "${BENCH}x"

# Memory against T, one meter: the device allocator.
[ "$MEMORY" = 1 ] && step memory-cuda "$CUDA" bench memory --device cuda --trainers "$TRAINERS" --size "$SIZE" --n-train "$N" --T 1,10,50,100 \
	--out "$OUT/memory-cuda" --force

# The same trainings on the GPU and with the CPU build, each into a fresh
# folder.
for dev in cuda cpu; do
	bin=$CUDA
	[ "$dev" = cpu ] && bin=$CPU
	step "greedy-$dev" env L2O_CPUPROFILE="$OUT/greedy-$dev.pprof" "$bin" train greedy --param m-pc --size "$SIZE" --n-train "$N" --seed 1 --max-steps "$STEPS" --tol-rel 0 \
		--inner nag --nag-iters "$NAG" --nag-rounds 1 --device "$dev" --out "$OUT/greedy-$dev"
	step "ct-$dev" "$bin" train greedy --problem ct-small --param m-pc --n-train "$N" --seed 1 --max-steps "$STEPS" --tol-rel 0 \
		--inner nag --nag-iters "$NAG" --nag-rounds 1 --device "$dev" --out "$OUT/ct-$dev"
	step "unroll-$dev" "$bin" train unroll --param m-pc --size "$SIZE" --n-train "$N" --seed 1 --T "$T" --batch $((N < 4 ? N : 4)) --epochs 2 \
		--device "$dev" --out "$OUT/unroll-$dev"
	step "banert-$dev" "$bin" train banert --size "$SIZE" --n-train 5 --seed 1 --T "$T" --epochs 2 \
		--device "$dev" --out "$OUT/banert-$dev"
done

# The greedy M-PC training above on 2 MPI ranks (bin/l2o-mpi-cuda: make
# build-mpi-cuda), each on the GPU of its local rank modulo the machine's
# (both on one GPU when there is one; each rank names its device in
# greedy-mpi2.txt): its steps against greedy-cuda's agree to float32
# rounding, not bitwise (each rank sums its block on its GPU). Skipped,
# saying so, without mpirun or an MPI binary.
mpibin=""
if ! command -v mpirun >/dev/null; then
	echo "gpu-check: no mpirun on this machine (Debian's openmpi-bin): the 2-rank training is skipped" | tee "$OUT/greedy-mpi2.txt"
elif [ "$HAVE_GO" = 1 ] && pkg-config --exists ompi 2>/dev/null; then
	step build-mpi-cuda go build -tags mpi,l2ocuda -o "$BIN/l2o-mpi-cuda" ./cmd/l2o
	mpibin="$BIN/l2o-mpi-cuda"
elif [ -x bin/l2o-mpi-cuda ]; then
	cp bin/l2o-mpi-cuda "$BIN/" && mpibin="$BIN/l2o-mpi-cuda"
else
	echo "gpu-check: no bin/l2o-mpi-cuda (make build-mpi-cuda) and no Open MPI headers to build it: the 2-rank training is skipped" | tee "$OUT/greedy-mpi2.txt"
fi
if [ -n "$mpibin" ]; then
	step greedy-mpi2 env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np 2 \
		"$mpibin" train greedy --param m-pc --size "$SIZE" --n-train "$N" --seed 1 --max-steps "$STEPS" --tol-rel 0 \
		--inner nag --nag-iters "$NAG" --nag-rounds 1 --device cuda --out "$OUT/greedy-mpi2"
fi

# Where a greedy step's time goes on the GPU (PROFILE=1, where Nsight
# Compute is): the GPU time of every kernel launch of a short greedy M-PC
# training (2 steps, NAG 20), summed per kernel. With greedy-cuda.pprof (the
# host's side of the timed run above: the driver calls and the waits in the
# copies back, under runtime.cgocall; read here with go tool pprof -top
# bin/l2o-cuda FILE) it splits the step's wall time into the GPU's work and
# the host's. A failure here is reported, not counted as a failed check.
ncu=$(command -v ncu || { [ -x /usr/local/cuda/bin/ncu ] && echo /usr/local/cuda/bin/ncu; } || true)
if [ "$PROFILE" = 1 ] && [ -n "$ncu" ]; then
	step profile-kernels "$ncu" --metrics gpu__time_duration.sum --print-summary per-kernel --launch-count "$PROFILE_LAUNCHES" \
		"$CUDA" train greedy --param m-pc --size "$SIZE" --n-train "$N" --seed 1 --max-steps 2 --tol-rel 0 \
		--inner nag --nag-iters 20 --nag-rounds 1 --device cuda --out "$OUT/profile-kernels"
elif [ "$PROFILE" = 1 ]; then
	echo "gpu-check: no ncu (Nsight Compute) on this machine: the kernel profile is skipped" | tee "$OUT/profile-kernels.txt"
fi

# The table; its exit status is the script's.
if [ "$HAVE_GO" = 1 ]; then
	go run ./gpu/gpucheck "$OUT"
elif [ -x bin/gpucheck ]; then
	bin/gpucheck "$OUT"
else
	echo "gpu-check: no Go and no bin/gpucheck (make build-cuda): the table is not written; the results are in $OUT" >&2
	cat "$OUT/status.txt"
	! grep -qv ' 0$' "$OUT/status.txt"
fi

#!/usr/bin/env bash
# deploy/mpi-cuda-emu.sh: mpirun -np 1 and 2 bin/l2o-mpi-cuda train greedy
# --device cuda on the CPU emulation of the CUDA driver and cuFFT
# (scripts/cuda-emu: one emulated device, so both ranks open it, local rank
# modulo the device count), against the single-process --device cuda run.
#
# Compared, and why:
#   np 1: every file of the checkpoint byte for byte (provenance aside): one
#         rank sums every function on its device as one process does;
#   np 2: the data and observations hashes and the images' records byte for
#         byte (built a block a rank, on the host), and the parameters to
#         float32 rounding: each rank sums its block on its device in
#         float32 with float64 sums, and the blocks' sums are added on the
#         host, so the order of the additions is not one process's.
# Each rank says on stderr which device it runs on.
#
# Needs mpirun (openmpi-bin, libopenmpi-dev), g++, nm and the CUDA headers of
# the tagged build (.ci/cuda.sh). OUT (default: a temporary directory)
# receives the libraries, binaries, checkpoints and logs.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
EMU=scripts/cuda-emu
. $EMU/lib.sh
emu_binaries
go build -tags mpi,l2ocuda -o "$OUT/l2o-mpi-cuda" ./cmd/l2o
emu_libs "$OUT" -ffp-contract=off
export LD_LIBRARY_PATH="$OUT${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" L2O_CUFFT="$OUT/libcufft.so"
export GOMAXPROCS=1
train=(train greedy --size 16 --n-train 5 --param m-pc --max-steps 2 --tol-rel 0 --inner nag --nag-iters 10 --nag-rounds 1 --device cuda)
"$OUT/l2o-cuda" "${train[@]}" --out "$OUT/one" > "$OUT/one.log" 2>&1 || { cat "$OUT/one.log"; exit 1; }
for np in 1 2; do
	mpirun ${MPIRUN_FLAGS:---oversubscribe} -np $np -x LD_LIBRARY_PATH -x L2O_CUFFT -x GOMAXPROCS \
		"$OUT/l2o-mpi-cuda" "${train[@]}" --out "$OUT/np$np" > "$OUT/np$np.log" 2>&1 || { cat "$OUT/np$np.log"; exit 1; }
done
echo "mpi-cuda-emu: checkpoints in $OUT/one, $OUT/np1, $OUT/np2 (deploy TestRanksOnEmulatedGPU compares them)"

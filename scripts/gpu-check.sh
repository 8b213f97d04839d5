#!/usr/bin/env bash
# scripts/gpu-check.sh: issue 14's checks on a machine with an NVIDIA GPU, from
# a fresh clone. It needs Go 1.26 and Debian's nvidia-cuda-dev (the CUDA
# headers, libnvrtc and libcufft that .ci/cuda.sh installs) besides the
# NVIDIA driver; with a prebuilt bin/l2o-cuda and bin/cuda.test (carried from
# a machine that has them) it skips the build.
#
# It writes everything under $OUT (default runs/gpu-check):
#   gpu.txt             nvidia-smi's GPU list
#   test-cuda.txt       the CUDA tests: every kernel against the CPU, gpu.CheckOps
#                       (adjoint pairs, cuFFT round trip and spectral convolution) up
#                       to 96×96, gpu.CheckNetOps (Banert's network operations) at
#                       32 channels of 96×96, the greedy step loss at the paper's size
#                       (N = 25, 96×96) and Banert's unrolled loss (T = 10, 96×96)
#                       against the CPU in float64
#   memory-cuda/        bench memory --device cuda: greedy, unrolled and Banert training
#                       with the device allocator as the one meter, cuMemGetInfo
#   memory-host/        greedy and unrolled on the CPU's array operations (float64), one
#                       meter (Banert's host rows take minutes per T: see docs/benchmarks.md)
#   greedy-{cuda,cpu}.txt   a greedy M-PC training of 5 steps on 25 96×96 images
#   unroll-{cuda,host,cpu}.txt  2 epochs of unrolled M-PC, T = 10 (cpu: the graph)
#   banert-{cuda,cpu}.txt       1 epoch of Banert training on 5 functions, T = 10
#   ct-{cuda,cpu}.txt           greedy M-PC on ct-small (25 functions of 40×40), 5 steps
# and prints the per-step times to compare (goal: the greedy step ≥ 20× faster
# on the GPU than on this project's 2-core CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-runs/gpu-check}
mkdir -p "$OUT" bin
nvidia-smi -L | tee "$OUT/gpu.txt"
if [ ! -x bin/l2o-cuda ] || [ ! -x bin/cuda.test ]; then
	go build -tags l2ocuda -o bin/l2o-cuda ./cmd/l2o
	go test -c -tags l2ocuda -o bin/cuda.test ./gpu/cuda
fi
L2O=bin/l2o-cuda
if [ -z "${L2O_CUFFT:-}" ] && command -v python3 >/dev/null; then
	lib=$(python3 -c 'import glob, nvidia.cufft as m, os; print((sorted(glob.glob(os.path.join(list(m.__path__)[0], "lib", "libcufft.so*"))) or [""])[0])' 2>/dev/null || true)
	[ -n "$lib" ] && export L2O_CUFFT=$lib && echo "cuFFT: $lib"
fi

echo "== CUDA tests"
bin/cuda.test -test.v -test.count=1 2>&1 | tee "$OUT/test-cuda.txt"
grep -q '^--- SKIP' "$OUT/test-cuda.txt" && { echo "gpu-check: CUDA tests skipped: no usable GPU" >&2; exit 1; }

echo "== memory against T (one meter: the device allocator)"
$L2O bench memory --device cuda --size 96 --n-train 25 --T 1,10,50,100,200 --out "$OUT/memory-cuda" | tee "$OUT/memory-cuda.txt"
$L2O bench memory --device host --trainers greedy,unrolled --size 96 --n-train 25 --T 1,10,50,100,200 --out "$OUT/memory-host" | tee "$OUT/memory-host.txt"

echo "== greedy M-PC step and unrolled Adam step, GPU against CPU"
common=(--param m-pc --size 96 --n-train 25 --seed 1)
for dev in cuda cpu; do
	rm -rf "$OUT/greedy-$dev"
	$L2O train greedy "${common[@]}" --max-steps 5 --tol-rel 0 --device "$dev" --out "$OUT/greedy-$dev" | tee "$OUT/greedy-$dev.txt"
done
for dev in cuda host cpu; do
	rm -rf "$OUT/unroll-$dev"
	$L2O train unroll "${common[@]}" --T 10 --batch 4 --epochs 2 --device "$dev" --out "$OUT/unroll-$dev" | tee "$OUT/unroll-$dev.txt"
done
for dev in cuda cpu; do
	rm -rf "$OUT/banert-$dev"
	$L2O train banert --size 96 --n-train 5 --seed 1 --T 10 --epochs 1 --device "$dev" --out "$OUT/banert-$dev" | tee "$OUT/banert-$dev.txt"
done
for dev in cuda cpu; do
	rm -rf "$OUT/ct-$dev"
	$L2O train greedy --problem ct-small --param m-pc --n-train 25 --seed 1 --max-steps 5 --tol-rel 0 --device "$dev" --out "$OUT/ct-$dev" | tee "$OUT/ct-$dev.txt"
done
echo "gpu-check: done; results in $OUT"

#!/usr/bin/env bash
# scripts/cuda-emu/budget.sh (make gpu-budget): what the CUDA device's
# trainers ask of the host per evaluation, measured without a GPU on the CPU
# emulation of the driver with the kernels not executed (gpu/gpubudget says
# what each count is). It prints the date, the revision and the command,
# then one line per workload:
#   m-pc evaluation: launches=L graphs=G transforms=F waits=W copies_to_host=C host_ms=H
# and the same for an Algorithm 2 iteration, an unrolled Adam step and a
# Banert step. OUT (default: a temporary folder) receives the emulation,
# the binaries and the runs (budget.json: every count and repetition).
# Extra arguments go to gpubudget (for example --reps 5).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
EMU=scripts/cuda-emu
. $EMU/lib.sh
emu_binaries
emu_libs "$OUT" -ffp-contract=off
go build -o "$OUT/gpubudget" ./gpu/gpubudget
echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
echo "revision: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo ' (with uncommitted changes)')"
echo "command: make gpu-budget (scripts/cuda-emu/budget.sh $*)"
echo "machine: $(nproc) cores, $(uname -m); CPU time of each run, the median of the repetitions"
rm -rf "$OUT/runs"
LD_LIBRARY_PATH="$OUT${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" L2O_CUFFT="$OUT/libcufft.so" \
	"$OUT/gpubudget" --l2o "$OUT/l2o-cuda" --out "$OUT/runs" "$@"

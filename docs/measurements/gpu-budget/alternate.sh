#!/usr/bin/env bash
# docs/measurements/gpu-budget/alternate.sh OLD [ROUNDS]: make gpu-budget's
# M-PC line (gpubudget --only-mpc --reps 3) for the CUDA build of revision
# OLD and of the working tree, alternated for ROUNDS rounds (default 2) so
# that both see the same load. Each build runs on the emulation of its own
# revision's kernels (scripts/cuda-emu/lib.sh there); gpubudget is the
# working tree's. It prints the revisions, the command and, per round and
# build, the load average and the line. OUT (default: a temporary folder)
# keeps the binaries and the runs.
set -euo pipefail
old=$1
rounds=${2:-2}
cd "$(git rev-parse --show-toplevel)"
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
# build DIR: the tagged l2o and the emulation of the source tree here into DIR.
build() {
	(OUT=$1 EMU=scripts/cuda-emu && . $EMU/lib.sh && emu_binaries && emu_libs "$OUT" -ffp-contract=off)
}
build "$OUT/new"
go build -o "$OUT/gpubudget" ./gpu/gpubudget
src="$OUT/old-src"
git worktree add -q --detach "$src" "$old"
(cd "$src" && build "$OUT/old")
git worktree remove --force "$src"
new=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo '+changes')
echo "# make gpu-budget's M-PC line, $(git rev-parse --short "$old") (old) against $new (new), alternated"
echo "# command: docs/measurements/gpu-budget/alternate.sh $*; each line: gpubudget --l2o BIN --only-mpc --reps 3,"
echo "#   each build on its revision's emulation (scripts/cuda-emu/lib.sh, -ffp-contract=off)"
echo "# machine: $(nproc) cores, $(uname -m); date: $(date -u +%Y-%m-%dT%H:%MZ)"
for r in $(seq "$rounds"); do
	for b in old new; do
		echo "## round $r, $b, load average $(cut -d' ' -f1-3 /proc/loadavg)"
		LD_LIBRARY_PATH="$OUT/$b${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" L2O_CUFFT="$OUT/$b/libcufft.so" \
			"$OUT/gpubudget" --l2o "$OUT/$b/l2o-cuda" --out "$OUT/runs-$r-$b" --only-mpc --reps 3 | grep '^m-pc'
	done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

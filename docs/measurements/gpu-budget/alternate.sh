#!/usr/bin/env bash
# docs/measurements/gpu-budget/alternate.sh OLD [ROUNDS]: make gpu-budget's
# M-PC line (gpubudget --only-mpc --reps 3) for the CUDA build of revision
# OLD and of the working tree, alternated for ROUNDS rounds (default 2) so
# that both see the same load; the emulation and gpubudget are the working
# tree's. It prints the revisions, the command and, per round and build,
# the load average and the line. OUT (default: a temporary folder) keeps
# the binaries and the runs.
set -euo pipefail
old=$1
rounds=${2:-2}
cd "$(git rev-parse --show-toplevel)"
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
EMU=scripts/cuda-emu
. $EMU/lib.sh
emu_binaries
emu_libs "$OUT" -ffp-contract=off
go build -o "$OUT/gpubudget" ./gpu/gpubudget
cp "$OUT/l2o-cuda" "$OUT/l2o-new"
src="$OUT/old-src"
git worktree add -q --detach "$src" "$old"
(cd "$src" && go build -tags l2ocuda -o "$OUT/l2o-old" ./cmd/l2o)
git worktree remove --force "$src"
new=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo '+changes')
echo "# make gpu-budget's M-PC line, $(git rev-parse --short "$old") (old) against $new (new), alternated"
echo "# command: docs/measurements/gpu-budget/alternate.sh $*; each line: gpubudget --l2o BIN --only-mpc --reps 3"
echo "# machine: $(nproc) cores, $(uname -m); date: $(date -u +%Y-%m-%dT%H:%MZ)"
for r in $(seq "$rounds"); do
	for b in old new; do
		echo "## round $r, $b, load average $(cut -d' ' -f1-3 /proc/loadavg)"
		LD_LIBRARY_PATH="$OUT${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" L2O_CUFFT="$OUT/libcufft.so" \
			"$OUT/gpubudget" --l2o "$OUT/l2o-$b" --out "$OUT/runs-$r-$b" --only-mpc --reps 3 | grep '^m-pc'
	done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/usr/bin/env bash
# Times and sizes an evaluation under mpirun: CT 256² (synthetic phantoms,
# N test functions), gradient descent for a few iterations with f* from a
# few L-BFGS iterations, so that the run is mostly its setup: each rank
# selects the test set, builds its functions (as the binary divides them),
# finds their f* and iterates them. 1 rank × 2 threads against 2 ranks × 1
# thread, alternated REPS times; each rank's wall and CPU seconds and peak
# resident memory (GNU time). The curves' values (curves.csv without the
# seconds) of every setup must agree. BIN (default bin/l2o-mpi) and KS
# (default "1 2") choose the binary and the numbers of ranks, LABEL names
# the binary in the table, CSV the file; EVAL (the l2o arguments but --out)
# measures another run. Run from the repository root after make build-mpi.
set -euo pipefail
OUT=${OUT:-docs/measurements/scale-out}
REPS=${REPS:-2}
N=${N:-8}
BIN=${BIN:-bin/l2o-mpi}
KS=${KS:-1 2}
LABEL=${LABEL:-$(git rev-parse --short HEAD)}
CSV=${CSV:-eval-memory-ct256.csv}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
read -r -a ARGS <<< "${EVAL:-eval --problem ct --data synthetic --n-test $N --methods gd --iters 1 --fstar-method lbfgs --fstar-iters 3 --recon-at none --break-even-at 0}"
timed() { # K THREADS DIR: every rank under GNU time, one file a rank
	mpirun --oversubscribe --bind-to none -np "$1" -x GOMAXPROCS="$2" sh -c \
		'exec /usr/bin/time -o "$0.$OMPI_COMM_WORLD_RANK" -f "%e %U %S %M" "$@"' "$W/t$3" "$BIN" "${ARGS[@]}" --cache "$W/cache-$3" --out "$W/$3" > /dev/null 2>&1
}
{
	echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD) $(nproc) cores; ${ARGS[*]}"
	echo "run,binary,setup,rank,wall_s,user_s,sys_s,max_rss_kB,load1_before"
	for r in $(seq "$REPS"); do
		for k in $KS; do
			l=$(cut -d' ' -f1 /proc/loadavg)
			timed "$k" $((3 - k)) "k$k-$r"
			for rank in $(seq 0 $((k - 1))); do
				read -r s u y m < "$W/tk$k-$r.$rank"
				echo "$r,$LABEL,$k ranks x $((3 - k)) threads,$rank,$s,$u,$y,$m,$l"
			done
		done
		for k in $KS; do
			grep -v '^#' "$W/k$k-$r/curves.csv" | cut -d, -f1,2,4- > "$W/c$k"
			cmp -s "$W/c$k" "$W/c${KS%% *}" || echo "# run $r: the curves of $k ranks differ"
		done
	done
} | tee "$OUT/$CSV"

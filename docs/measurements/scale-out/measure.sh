#!/usr/bin/env bash
# Times one evaluation of Problem 1 (96² deblurring, 16 test functions, 200
# iterations of gd, nag and lbfgs; f* cached beforehand) as 1 process × 2
# threads (bin/l2o, GOMAXPROCS=2) and 2 ranks × 1 thread (mpirun -np 2
# bin/l2o-mpi, GOMAXPROCS=1, --bind-to none), alternated REPS times, and
# checks that the curves agree. /usr/bin/time's user and sys include the
# ranks (children of mpirun). Run from the repository root after make
# build build-mpi; writes into OUT (default: this folder).
set -euo pipefail
OUT=${OUT:-docs/measurements/scale-out}
REPS=${REPS:-3}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ARGS=(eval --problem deblur --size 96 --methods gd,nag,lbfgs --n-test 16 --iters 200 --fstar-iters 300 --cache "$W/cache" --recon-at '' --force)
# f* cached for both (one process's for all functions, each rank's for its block).
bin/l2o "${ARGS[@]}" --out "$W/warm" > /dev/null 2>&1
mpirun --oversubscribe -np 2 bin/l2o-mpi "${ARGS[@]}" --out "$W/warm2" > /dev/null 2>&1
{
	echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD) $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "run,setup,wall_s,user_s,sys_s,load1_before"
	for r in $(seq "$REPS"); do
		l=$(cut -d' ' -f1 /proc/loadavg)
		/usr/bin/time -o "$W/t" -f "%e,%U,%S" env GOMAXPROCS=2 bin/l2o "${ARGS[@]}" --out "$W/one" > /dev/null 2>&1
		echo "$r,1 process x 2 threads,$(cat "$W/t"),$l"
		l=$(cut -d' ' -f1 /proc/loadavg)
		/usr/bin/time -o "$W/t" -f "%e,%U,%S" mpirun --oversubscribe --bind-to none -np 2 -x GOMAXPROCS=1 bin/l2o-mpi "${ARGS[@]}" --out "$W/two" > /dev/null 2>&1
		echo "$r,2 ranks x 1 thread,$(cat "$W/t"),$l"
	done
} | tee "$OUT/eval-p1-96.csv"
cp "$W/one/curves.csv" "$OUT/curves-1x2.csv"
cp "$W/two/curves.csv" "$OUT/curves-2x1.csv"
# The values (all but the comments and the seconds column) agree:
diff <(grep -v '^#' "$OUT/curves-1x2.csv" | cut -d, -f1,2,4-) <(grep -v '^#' "$OUT/curves-2x1.csv" | cut -d, -f1,2,4-) && echo "curves agree" | tee -a "$OUT/eval-p1-96.csv"

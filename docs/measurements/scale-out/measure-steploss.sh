#!/usr/bin/env bash
# Times one evaluation of the M-PC step loss (25 functions of 96×96, value
# and gradient; mpi's BenchmarkStepLossOverRanks) as 1 process × 2 threads
# and as 2 ranks × 1 thread joined by mpi.Chain (mpirun -np 2, GOMAXPROCS=1,
# --bind-to none), alternated REPS times, 200 evaluations each. Run from the
# repository root after make build-mpi (bin/mpi.test).
set -euo pipefail
OUT=${OUT:-docs/measurements/scale-out}
REPS=${REPS:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=(-test.run '^$' -test.bench StepLossOverRanks -test.benchtime 200x)
{
	echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD) $(nproc) cores"
	echo "run,setup,rank,ns_per_evaluation,load1_before"
	for r in $(seq "$REPS"); do
		l=$(cut -d' ' -f1 /proc/loadavg)
		GOMAXPROCS=2 bin/mpi.test "${B[@]}" | awk -v r="$r" -v l="$l" '/ns\/op/ {print r ",1 process x 2 threads,0," $3 "," l}'
		l=$(cut -d' ' -f1 /proc/loadavg)
		mpirun --oversubscribe --bind-to none -np 2 -x GOMAXPROCS=1 --tag-output bin/mpi.test "${B[@]}" |
			sed -nE "s/.*\[1,([0-9]+)\]<stdout>:[[:space:]]+[0-9]+[[:space:]]+([0-9]+) ns\/op.*/$r,2 ranks x 1 thread,\1,\2,$l/p"
	done
} | tee "$OUT/steploss-mpc96.csv"

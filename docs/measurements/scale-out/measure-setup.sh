#!/usr/bin/env bash
# Times and sizes the setup of greedy training under mpirun: CT 256²
# (synthetic phantoms, N functions), a run that stops before its first step
# (--tol-rel 0.5 holds at the start), so each rank builds the functions
# (its blocks, as the binary divides them: projected, noised, its starting
# points checked), evaluates the start's gradients and stops. 1 rank × 2
# threads against 2 ranks × 1 thread, alternated REPS times; each rank's
# wall and CPU seconds and peak resident memory (GNU time). The
# checkpoints' data and observation hashes must agree. BIN (default
# bin/l2o-mpi) and KS (default "1 2") choose the binary and the numbers of
# ranks, LABEL names the binary in the table, CSV the file; TRAIN (the l2o
# arguments but --out) measures another run, e.g. TRAIN="train greedy
# --problem deblur --size 96 --param m-pc --n-train 25 --max-steps 2"
# CSV=rss-mpc96.csv for two steps of P1 M-PC. Run from the repository root
# after make build-mpi.
set -euo pipefail
OUT=${OUT:-docs/measurements/scale-out}
REPS=${REPS:-2}
N=${N:-50}
BIN=${BIN:-bin/l2o-mpi}
KS=${KS:-1 2}
LABEL=${LABEL:-$(git rev-parse --short HEAD)}
CSV=${CSV:-rank-memory-ct256.csv}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
read -r -a ARGS <<< "${TRAIN:-train greedy --problem ct --data synthetic --param m-pc --n-train $N --tol-rel 0.5}"
timed() { # K THREADS DIR: every rank under GNU time, one file a rank
	mpirun --oversubscribe --bind-to none -np "$1" -x GOMAXPROCS="$2" sh -c \
		'exec /usr/bin/time -o "$0.$OMPI_COMM_WORLD_RANK" -f "%e %U %S %M" "$@"' "$W/t$3" "$BIN" "${ARGS[@]}" --out "$W/$3" > /dev/null 2>&1
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
			grep '"data_hash"\|"observations_hash"' "$W/k$k-$r/manifest.json" > "$W/m$k"
			cmp -s "$W/m$k" "$W/m${KS%% *}" || echo "# run $r: the data or observations of $k ranks differ"
		done
	done
} | tee "$OUT/$CSV"

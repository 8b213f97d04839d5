#!/usr/bin/env bash
# Times greedy training steps of P1 M-PC (96², 25 training functions, 2
# steps, the default NAG inner solver) as 1 process × 2 threads (bin/l2o,
# GOMAXPROCS=2) and 2 ranks × 1 thread (mpirun -np 2 bin/l2o-mpi,
# GOMAXPROCS=1, --bind-to none), alternated REPS times; the seconds of each
# step are the manifest's, and the checkpoints must agree byte for byte.
# TRAIN (the l2o arguments, default P1 M-PC as above) and CSV (default
# train-mpc96.csv) measure another training, e.g. TRAIN="train greedy
# --problem ct-small --param pf --n-train 25 --max-steps 2" CSV=train-ct-small-pf.csv.
# Run from the repository root after make build build-mpi.
set -euo pipefail
OUT=${OUT:-docs/measurements/scale-out}
REPS=${REPS:-2}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
read -r -a ARGS <<< "${TRAIN:-train greedy --problem deblur --size 96 --param m-pc --n-train 25 --max-steps 2}"
CSV=${CSV:-train-mpc96.csv}
steps() { grep -o '"seconds": *[0-9.e+-]*' "$1/manifest.json" | cut -d: -f2 | tr -d ' ' | paste -sd' '; }
{
	echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD) $(nproc) cores: l2o ${ARGS[*]}"
	echo "run,setup,step_seconds,wall_s,load1_before"
	for r in $(seq "$REPS"); do
		l=$(cut -d' ' -f1 /proc/loadavg)
		/usr/bin/time -o "$W/t" -f "%e" env GOMAXPROCS=2 bin/l2o "${ARGS[@]}" --out "$W/one$r" > /dev/null 2>&1
		echo "$r,1 process x 2 threads,$(steps "$W/one$r"),$(cat "$W/t"),$l"
		l=$(cut -d' ' -f1 /proc/loadavg)
		/usr/bin/time -o "$W/t" -f "%e" mpirun --oversubscribe --bind-to none -np 2 -x GOMAXPROCS=1 bin/l2o-mpi "${ARGS[@]}" --out "$W/two$r" > /dev/null 2>&1
		echo "$r,2 ranks x 1 thread,$(steps "$W/two$r"),$(cat "$W/t"),$l"
		for f in $(cd "$W/one$r" && find . -name '*.npy'); do cmp -s "$W/one$r/$f" "$W/two$r/$f" || echo "# $f differs"; done
	done
} | tee "$OUT/$CSV"

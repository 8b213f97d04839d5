#!/usr/bin/env bash
# Times and sizes the setup of greedy training under mpirun: CT 256²
# (synthetic phantoms, N functions), a run that stops before its first step
# (--tol-rel 0.5 holds at the start), so each rank builds the functions
# (its block: projected, noised, its starting points checked; then the
# blocks gathered), evaluates the start's gradients and stops. 1 rank × 2
# threads against 2 ranks × 1 thread, alternated REPS times; each rank's
# wall seconds and peak resident memory (GNU time). The checkpoints'
# manifests must agree but for times. Run from the repository root after
# make build-mpi.
set -euo pipefail
OUT=${OUT:-docs/measurements/scale-out}
REPS=${REPS:-2}
N=${N:-50}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ARGS=(train greedy --problem ct --data synthetic --param m-pc --n-train "$N" --tol-rel 0.5)
timed() { # K THREADS DIR: every rank under GNU time, one file a rank
	mpirun --oversubscribe --bind-to none -np "$1" -x GOMAXPROCS="$2" sh -c \
		'exec /usr/bin/time -o "$0.$OMPI_COMM_WORLD_RANK" -f "%e %M" "$@"' "$W/t$3" bin/l2o-mpi "${ARGS[@]}" --out "$W/$3" > /dev/null 2>&1
}
{
	echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD) $(nproc) cores; ${ARGS[*]}"
	echo "run,setup,rank,wall_s,max_rss_kB,load1_before"
	for r in $(seq "$REPS"); do
		for k in 1 2; do
			l=$(cut -d' ' -f1 /proc/loadavg)
			timed "$k" $((3 - k)) "k$k-$r"
			for rank in $(seq 0 $((k - 1))); do
				read -r s m < "$W/tk$k-$r.$rank"
				echo "$r,$k ranks x $((3 - k)) threads,$rank,$s,$m,$l"
			done
		done
		grep -v seconds "$W/k1-$r/manifest.json" | grep -v '"command"\|"args"\|"time"\|"revision"\|"host"' > "$W/m1"
		grep -v seconds "$W/k2-$r/manifest.json" | grep -v '"command"\|"args"\|"time"\|"revision"\|"host"' > "$W/m2"
		cmp -s "$W/m1" "$W/m2" || echo "# run $r: the manifests differ"
	done
} | tee "$OUT/setup-ct256.csv"

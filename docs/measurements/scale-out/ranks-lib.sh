# ranks-lib.sh: what measure-setup.sh and measure-eval.sh share, sourced by
# them after they set ARGS (the l2o arguments but --out and what runargs
# adds) and define runargs DIR (more arguments for the run in DIR) and agree
# DIR (what must be the same for every number of ranks). measure CSV WHAT
# runs 1 rank × 2 threads against 2 ranks × 1 thread (KS), alternated REPS
# times, each rank under GNU time (wall and CPU seconds, peak resident
# memory), writes the table to $OUT/CSV and says where WHAT differs.
OUT=${OUT:-docs/measurements/scale-out}
REPS=${REPS:-2}
BIN=${BIN:-bin/l2o-mpi}
KS=${KS:-1 2}
LABEL=${LABEL:-$(git rev-parse --short HEAD)}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# timed K THREADS DIR: every rank under GNU time, one file a rank.
timed() {
	# shellcheck disable=SC2046 # runargs prints words without spaces
	mpirun --oversubscribe --bind-to none -np "$1" -x GOMAXPROCS="$2" sh -c \
		'exec /usr/bin/time -o "$0.$OMPI_COMM_WORLD_RANK" -f "%e %U %S %M" "$@"' "$W/t$3" "$BIN" "${ARGS[@]}" $(runargs "$3") --out "$W/$3" > /dev/null 2>&1
}

measure() {
	local csv=$1 what=$2
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
				agree "$W/k$k-$r" > "$W/m$k"
				cmp -s "$W/m$k" "$W/m${KS%% *}" || echo "# run $r: the $what of $k ranks differ"
			done
		done
	} | tee "$OUT/$csv"
}

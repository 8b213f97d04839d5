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
N=${N:-50}
read -r -a ARGS <<< "${TRAIN:-train greedy --problem ct --data synthetic --param m-pc --n-train $N --tol-rel 0.5}"
runargs() { :; }
agree() { grep '"data_hash"\|"observations_hash"' "$1/manifest.json"; }
. "$(dirname "$0")/ranks-lib.sh"
measure "${CSV:-rank-memory-ct256.csv}" "data or observations"

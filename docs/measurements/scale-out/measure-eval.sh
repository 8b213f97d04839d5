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
N=${N:-8}
read -r -a ARGS <<< "${EVAL:-eval --problem ct --data synthetic --n-test $N --methods gd --iters 1 --fstar-method lbfgs --fstar-iters 3 --recon-at none --break-even-at 0}"
runargs() { echo --cache "$W/cache-$1"; }
agree() { grep -v '^#' "$1/curves.csv" | cut -d, -f1,2,4-; }
. "$(dirname "$0")/ranks-lib.sh"
measure "${CSV:-eval-memory-ct256.csv}" "curves"

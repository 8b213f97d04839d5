#!/usr/bin/env bash
# The benchmarks of issues 5, 6 and 7 (greedy against unrolled training and
# Banert et al. on STL-10 deblurring; CT at 256×256 and 40×40; the WCRR
# problem), as run for the figures in docs/benchmarks.md. Each block writes
# its checkpoints, logs and curves.csv under $OUT. Needs the fetched data (l2o data fetch; or
# DATA=...). Several hours on 2 cores; run one block with: bench-paper.sh stl10|ct256|ct40|ct40val|wcrr
set -euo pipefail
DATA=${DATA:-${L2O_DATA:-datasets}}
OUT=${OUT:-runs/paper}
L2O=${L2O:-go run ./cmd/l2o}
mkdir -p "$OUT"
what=${1:-all}

stl10() {
	local D="--problem deblur --data $DATA/stl10 --n-train 25"
	# greedy M-PC with relative penalties; training time is in the manifest
	$L2O train greedy $D --param m-pc --lambda rel:1e-2 --mu rel:1e-2 --max-steps 60 --out "$OUT/stl-greedy-mpc"
	# unrolled M-PC, T = 10, Adam 2e-5, batch 4, 20 minutes of training
	$L2O train unroll $D --param m-pc --T 10 --lr 2e-5 --batch 4 --epochs 100000 --max-minutes 20 --out "$OUT/stl-unroll-T10"
	# Banert et al., T = 10 and 50, 12 minutes each
	$L2O train banert $D --T 10 --epochs 1000 --max-minutes 12 --out "$OUT/stl-banert-T10"
	$L2O train banert $D --T 50 --epochs 1000 --max-minutes 12 --out "$OUT/stl-banert-T50"
	$L2O eval --problem deblur --data "$DATA/stl10" --n-test 100 --iters 100 --safeguard --methods nag,lbfgs \
		--params "$OUT/stl-greedy-mpc,$OUT/stl-unroll-T10,$OUT/stl-banert-T10,$OUT/stl-banert-T50" --out "$OUT/stl-eval"
}

ct256() {
	$L2O bench greedy --problem ct --data "$DATA/covid-ct/ct256" --n-train 25 --n-test 100 --params m-pc,m-ps --inner lbfgs \
		--max-steps 15 --lbfgs-max-evals 50 --lambda rel:1e-2 --mu rel:1e-2 --safeguard \
		--at 1,5,10,20,40,90 --iters 100 --fstar-method lbfgs --fstar-iters 80 --out "$OUT/ct256"
}

ct40() {
	local C="--problem ct-small --data $DATA/covid-ct/ct40 --n-train 25 --n-test 100 --at 10,20,40,90 --iters 200 --safeguard"
	$L2O bench greedy $C --params ps,pp,pc,m-ps,m-pc --max-steps 100 --out "$OUT/ct40-lambda0"
	$L2O bench greedy $C --params ps,pp,pc,m-ps,m-pc --max-steps 100 --lambda rel:1e-2 --mu rel:1e-2 --out "$OUT/ct40-rel"
	# PF with the paper's NAG inner solver (1,000 iterations a step), λ = 1e-10, to T = 101; the step is
	# solved in the N·HW coordinates of the gradients' span (models.Reducer), which makes this affordable.
	$L2O bench greedy $C --params pf --inner nag --nag-steps 0 --max-steps 101 --tol-rel 0 --lambda 1e-10 --out "$OUT/ct40-pf-nag"
	$L2O certify --params "$OUT/ct40-pf-nag/pf-nag"
}

wcrr() {
	local W="--problem deblur-wcrr --wcrr-weights $DATA/wcrr/wcrr_sigma18.json --data $DATA/stl10 --n-train 25 --n-test 100"
	local E="--inner lbfgs --lambda rel:1e-2 --mu rel:1e-2 --safeguard --at 1,10,20,40,60,100 --iters 100 --fstar-method lbfgs --fstar-iters 200 --target 1e-4"
	$L2O bench greedy $W --params m-pc --max-steps 30 --lbfgs-max-evals 60 $E --out "$OUT/wcrr-mpc100"
	$L2O bench greedy $W --params m-ps --max-steps 40 --lbfgs-max-evals 100 $E --out "$OUT/wcrr-mps100"
}

# Penalty scales chosen by validation (20 train + 5 validation functions), against the fixed rel:1e-2.
ct40val() {
	local C="--problem ct-small --data $DATA/covid-ct/ct40 --n-train 20 --n-val 5 --n-test 100 --params m-pc,m-ps --inner lbfgs --max-steps 100"
	C="$C --lambda rel:1e-2 --mu rel:1e-2 --safeguard --at 10,20,40,90 --iters 200"
	$L2O bench greedy $C --weight-scales 1 --out "$OUT/ct40-val-fixed"
	$L2O bench greedy $C --weight-scales 10,1,0.1,0 --out "$OUT/ct40-val"
	$L2O bench greedy $C --weight-scales 10,1,0.1,0 --val-lookahead 10 --max-steps 22 --out "$OUT/ct40-val-la10"
}

case $what in
all) stl10; ct256; ct40; ct40val; wcrr ;;
stl10 | ct256 | ct40 | ct40val | wcrr) $what ;;
*) echo "usage: $0 [all|stl10|ct256|ct40|ct40val|wcrr]" >&2; exit 2 ;;
esac

#!/bin/sh
# Bytes one rank passes on per evaluation of the step loss (mpi.Chain, the
# Link of steploss.NewStepLossBlock): the running sums, flattened as
# steploss's partialSums.flatten lays them out, in float64:
#   3 values (the loss and the two one-parameter dot products)
#   + 2·H·(W/2+1) for each spectral term (PC, and M-PC's second term)
#   + the gradient of each bound term (its parameter count).
# PF is reduced (θ = θ̃ + E z, z of H·W·r coordinates, r ≤ N): its z-gradient
# would pass as a bound term's, and its basis needs every function's g_k
# once per step (N·H·W values gathered). K ranks move 2(K−1) messages of
# this size per evaluation: K−1 hops along the chain, then the broadcast of
# the complete sums from the last rank to the K−1 others.
# Usage: docs/measurements/scale-out/bytes.sh > docs/measurements/scale-out/bytes.csv
N=${N:-25}
echo "family,size,N,values_per_message,bytes_per_message,bytes_per_evaluation_K2,bytes_per_evaluation_K8,basis_bytes_per_step"
for s in 96 256; do
	sl=$((s * (s / 2 + 1)))
	hw=$((s * s))
	for f in ps m-ps pc m-pc pf; do
		case $f in
		ps | m-ps) v=3 basis=0 ;;
		pc) v=$((3 + 2 * sl)) basis=0 ;;
		m-pc) v=$((3 + 4 * sl)) basis=0 ;;
		pf) v=$((3 + hw * N)) basis=$((8 * N * hw)) ;;
		esac
		echo "$f,${s}x$s,$N,$v,$((8 * v)),$((2 * 1 * 8 * v)),$((2 * 7 * 8 * v)),$basis"
	done
done

#!/usr/bin/env bash
# Checks the PyTorch references against the Go code: dumps the data, the
# parameters, the loss and its gradient of the step loss (M-PC, the data of
# BenchmarkStepLossPrecision) and of Banert's unrolled loss (the function and
# network of BenchmarkAdamStep96) from Go, then evaluates them with
# steploss.py --check and banert.py --check in float64 and float32.
#
#   bash bench/pytorch/check.sh
#
# The Go dumpers (godump/*.go.txt) are copied into their packages for the run
# and removed afterwards. PYTHON as in sidebyside.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/pytorch/python.sh
tmp=$(mktemp -d)
copies=(steploss/pytorch_dump_test.go baselines/banert/pytorch_dump_test.go)
for f in "${copies[@]}"; do
	if [[ -e $f ]]; then
		echo "check: $f exists: remove it first" >&2
		exit 2
	fi
done
trap 'rm -f "${copies[@]}"; rm -rf "$tmp"' EXIT
cp bench/pytorch/godump/steploss_dump_test.go.txt "${copies[0]}"
cp bench/pytorch/godump/banert_dump_test.go.txt "${copies[1]}"
echo "# PyTorch references against the Go code"
echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "revision: $(git rev-parse HEAD)"
echo "command: bash bench/pytorch/check.sh"
echo "python: $("$PYTHON" -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__)')"
L2O_DUMP=$tmp nice go test -count=1 -run '^TestPyTorchDump$' ./steploss ./baselines/banert
echo "## step loss, M-PC (loss and gradient in θ, φ; Go float64 and float32 engines)"
"$PYTHON" bench/pytorch/steploss.py --check "$tmp/steploss"
echo "## Banert, T = 10 (f(x^T) and its gradient in the network's parameters; Go float64 graph)"
"$PYTHON" bench/pytorch/banert.py --check "$tmp/banert"

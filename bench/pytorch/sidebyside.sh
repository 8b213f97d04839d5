#!/usr/bin/env bash
# Side by side: the Go benchmarks that issue 51's bar names and their PyTorch
# references, alternated for ROUNDS rounds (3) at 2 threads, then each
# round's times and the ratios (summary.py).
#
#   bash bench/pytorch/sidebyside.sh [--out FILE]
#
# PYTHON is a Python that imports torch (python.sh finds one); ROUNDS sets
# the rounds. Each PyTorch script runs twice a round, under OpenMP's default
# wait policy and OMP_WAIT_POLICY=passive, and the ratios take the faster:
# on a machine shared with other jobs, OpenMP threads that spin for work
# lose their time slices and the default can be many times slower.
# --out FILE also writes the whole output to FILE (refused if FILE exists;
# written at the end, atomically).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=""
if [[ $# -gt 0 ]]; then
	if [[ $1 != --out || $# -ne 2 ]]; then
		echo "usage: bash bench/pytorch/sidebyside.sh [--out FILE]" >&2
		exit 2
	fi
	out=$2
	if [[ -e $out ]]; then
		echo "sidebyside: $out exists: choose another name or remove it" >&2
		exit 2
	fi
	if [[ ! -d $(dirname "$out") ]]; then
		echo "sidebyside: the folder of $out does not exist: create it first" >&2
		exit 2
	fi
fi
ROUNDS=${ROUNDS:-3}
if ! [[ $ROUNDS =~ ^[1-9][0-9]*$ ]]; then
	echo "sidebyside: ROUNDS=$ROUNDS: give a positive whole number" >&2
	exit 2
fi
source bench/pytorch/python.sh
export OMP_NUM_THREADS=2 GOMAXPROCS=2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# omp POLICY CMD...: runs CMD under OpenMP's default wait policy or POLICY.
omp() {
	local policy=$1
	shift
	if [[ $policy == default ]]; then
		env -u OMP_WAIT_POLICY "$@"
	else
		OMP_WAIT_POLICY=$policy "$@"
	fi
}

omp_label() {
	if [[ $1 == default ]]; then echo "env -u OMP_WAIT_POLICY"; else echo "OMP_WAIT_POLICY=$1"; fi
}

run() {
	echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "\$ go test -run '^\$' -bench '^BenchmarkStepLossMPC\$' ./steploss"
	"$tmp/steploss.test" -test.run '^$' -test.bench '^BenchmarkStepLossMPC$' -test.benchmem
	echo "\$ go test -run '^\$' -bench '^BenchmarkStepLossPrecision\$/^m-pc\$/^float32\$' ./steploss"
	"$tmp/steploss.test" -test.run '^$' -test.bench '^BenchmarkStepLossPrecision$/^m-pc$/^float32$' -test.benchmem
	for policy in default passive; do
		echo "\$ $(omp_label "$policy") $PYTHON bench/pytorch/steploss.py"
		omp "$policy" "$PYTHON" bench/pytorch/steploss.py
	done
	echo "\$ go test -run '^\$' -bench '^BenchmarkAdamStep96\$' -benchtime 10x ./baselines/banert"
	"$tmp/banert.test" -test.run '^$' -test.bench '^BenchmarkAdamStep96$' -test.benchtime 10x
	for policy in default passive; do
		echo "\$ $(omp_label "$policy") $PYTHON bench/pytorch/banert.py"
		omp "$policy" "$PYTHON" bench/pytorch/banert.py
	done
}

measure() {
	echo "# side by side: Go benchmarks and their PyTorch references"
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "revision: $(git rev-parse HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo ' (with uncommitted changes)')"
	echo "command: bash bench/pytorch/sidebyside.sh${out:+ --out $out} (ROUNDS=$ROUNDS PYTHON=$PYTHON)"
	echo "machine: $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "go: $(go version), GOAMD64=$(go env GOAMD64), GOEXPERIMENT=$(go env GOEXPERIMENT), GOMAXPROCS=$GOMAXPROCS"
	echo "python: $("$PYTHON" -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__, "oneDNN", torch.backends.mkldnn.is_available())'), OMP_NUM_THREADS=$OMP_NUM_THREADS"
	nice go test -c -o "$tmp/steploss.test" ./steploss
	nice go test -c -o "$tmp/banert.test" ./baselines/banert
	for r in $(seq 1 "$ROUNDS"); do
		echo
		echo "## round $r"
		run
	done
	echo
	echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
}

measure 2>&1 | tee "$tmp/log"
"$PYTHON" bench/pytorch/summary.py "$tmp/log" | tee -a "$tmp/log"
if [[ -n $out ]]; then
	cp "$tmp/log" "$out.tmp"
	mv "$out.tmp" "$out"
	echo "sidebyside: wrote $out"
fi

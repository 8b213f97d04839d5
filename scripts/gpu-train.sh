#!/usr/bin/env bash
# scripts/gpu-train.sh: the paper's long trainings (ct256, wcrr) on a lent GPU
# machine that has no Go, no network and minutes counted, in three moves.
#
#   scripts/gpu-train.sh prepare [NAME…]    here: build bin/ (make build-cuda,
#        and the CPU binary for gpu-check) and pack it with the data the named
#        trainings read into .gpubin/ (ignored by git; name it in the device
#        call's carry)
#   scripts/gpu-train.sh run NAME…          there: unpack, then
#        DEVICE=cuda TRAIN_ONLY=1 scripts/reproduce.sh NAME default for each NAME
#        (ct256, wcrr, wcrrvariants, ctsmallpf; wcrrvariants:k5 sets WCRR_VARIANTS=k5) under a
#        time limit (LIMIT seconds, default 480; the training stops at a step's end;
#        PARALLEL=1 runs the NAMEs at once, for trainings of fixed steps whose small
#        launches leave the GPU idle, not for Banert's, which is given a time), then pack runs/reproduce/*-default-cuda
#        (gzip) into parts of at most 15 MiB in $OUT (the device tool returns 8
#        files of 16 MiB, 64 MiB in all: one experiment a call; P2's M-PC at
#        T = 40 is about 40 MiB of parameters and 26 MiB of state before gzip)
#   scripts/gpu-train.sh unpack DIR         here: unpack the parts the call
#        returned (DIR: its files_at) into runs/reproduce/; then
#        DEVICE=cuda scripts/reproduce.sh NAME default evaluates on the CPU in
#        float64 and publishes, and scripts/carry-runs.sh carries the checkpoints
#
# A checkpoint trained on the GPU resumes only on a GPU (its manifest records
# --device cuda); the parts carry its state so that the next lent machine can
# resume it. Run on an H200 (2026-11-27): `run ct256` (Banert
# T = 10, 332 s) and `PARALLEL=1 run wcrrvariants:k5 wcrrvariants:circ` (40 steps
# each, 254 s); the packing, parts and unpacking were first tried with a stand-in
# binary. P2's M-PC takes about 10 s a step (H100), P3's about 4 s (H200).
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DATA:-${L2O_DATA:-datasets}}
case ${1:-} in
prepare)
	# prepare [NAME…]: the data of the named trainings only (default: ct256 and
	# wcrr), and gpu-check's binaries too, so that one warm machine can run
	# PREBUILT=1 scripts/gpu-check.sh and the trainings.
	shift
	[ $# -gt 0 ] || set -- ct256 wcrr
	make build-cuda >/dev/null
	go build -ldflags '-s -w' -o bin/l2o ./cmd/l2o
	{ [ ! -d .gpubin ] || chmod -R u+w .gpubin; } && rm -rf .gpubin && mkdir -p .gpubin
	grep -qx '/.gpubin/' .git/info/exclude 2>/dev/null || echo /.gpubin/ >>.git/info/exclude
	# What travels is at most 64 MiB with the tracked tree (40 MB): xz -9's
	# 64 MiB window finds the code the binaries share (24 MB at -6, 12 at -9).
	XZ_OPT=-9 tar cJf .gpubin/bins.txz -C bin l2o-cuda l2o cuda.test steploss-cuda.test gpucheck
	local_data=()
	for name in "$@"; do
		case $name in
		ct256) local_data+=(covid-ct/ct256) ;;
		wcrr | wcrrvariants) local_data+=(stl10 wcrr) ;;
		ctsmallpf) local_data+=(covid-ct/ct40) ;; # trains on synthetic images; ct40 for the evaluation here
		*) echo "gpu-train: unknown training $name (ct256, wcrr, wcrrvariants, ctsmallpf)" >&2 && exit 2 ;;
		esac
	done
	mapfile -t local_data < <(printf '%s\n' "${local_data[@]}" | sort -u)
	XZ_OPT=-9 tar cJf .gpubin/data.txz -C "$DATA" "${local_data[@]}"
	# What travels: the tracked tree (untracked files that git does not ignore too) and .gpubin, 64 MiB at most.
	tracked=$(git ls-files -z --cached --others --exclude-standard | xargs -0 du -cb 2>/dev/null | awk '$2 == "total" {s += $1} END {print s}')
	bins=$(du -sb .gpubin | cut -f1)
	echo "gpu-train: .gpubin $((bins >> 20)) MiB + the working tree $((tracked >> 20)) MiB travel (a device call takes 64 MiB)"
	[ $((tracked + bins)) -lt $((62 << 20)) ] || echo "gpu-train: within 2 MiB of the device call's 64 MiB: take large result files out of git first" >&2
	;;
run)
	shift
	: "${OUT:?run it through the device tool, which sets OUT}"
	RET=$OUT # what comes back; reproduce.sh's own OUT is runs/reproduce
	mkdir -p bin && tar xJf .gpubin/bins.txz -C bin
	# The data where reproduce.sh expects it ($DATA, default datasets),
	# so that the CPU's evaluation here finds the same paths.
	mkdir -p "$DATA" && tar xJf .gpubin/data.txz -C "$DATA" --skip-old-files
	export L2O_CUFFT=${L2O_CUFFT:-$(ls /usr/local/cuda/lib64/libcufft.so.* 2>/dev/null | head -n 1)}
	{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || echo "no nvidia-smi"; } | tee "$RET/gpu.txt"
	stamp=$(mktemp) # the trainings' files are newer than it
	deadline=$(($(date +%s) + ${LIMIT:-480}))
	# train NAME[:VARIANTS]: one reproduce.sh training under what is left of LIMIT.
	train() {
		local name=${1%%:*} variants=${1#*:} left
		[ "$variants" != "$1" ] || variants=${WCRR_VARIANTS:-}
		left=$((deadline - $(date +%s)))
		[ "$left" -gt 20 ] || return 0
		# ctsmallpf's parameters (20 MB a step, 2 GB at T = 101) cannot come back: its certificate and its
		# evaluation (on this machine's CPU cores, float64) run here, and only their results return.
		local train_only=1
		[ "$name" != ctsmallpf ] || train_only=0
		# SIGINT ends the training at the end of its step, with its checkpoint.
		OUT=runs/reproduce DEVICE=cuda TRAIN_ONLY=$train_only L2O=bin/l2o-cuda WCRR_VARIANTS=$variants timeout -s INT -k 60 "$left" \
			scripts/reproduce.sh "$name" default >"$RET/${1//:/-}.log" 2>&1 || echo "$1: exit $?" | tee -a "$RET/gpu.txt"
	}
	for name in "$@"; do
		if [ "${PARALLEL:-0}" = 1 ]; then train "$name" & else train "$name"; fi
	done
	wait
	shopt -s nullglob
	# *-default-cuda and its variants (-cuda-sum under LOSS_REDUCTION=sum, which reproduce.sh inherits).
	runs=(runs/reproduce/*-default-cuda runs/reproduce/*-default-cuda-*)
	[ ${#runs[@]} -gt 0 ] || { echo "gpu-train: no runs/reproduce/*-default-cuda* to pack" >&2; exit 1; }
	# Only what this call wrote (newer than the stamp made before the trainings): the
	# finished runs that travelled with the tree are already on the machine that asked.
	# A finished checkpoint's state (the iterates after its last step, 26 MiB for
	# P2) is needed only to resume: leave it behind to stay within 64 MiB; and
	# ctsmallpf's parameters and state (evaluated here) always.
	skip=(-false -o -path 'runs/reproduce/ctsmallpf-*/pf-*/params/*' -o -path 'runs/reproduce/ctsmallpf-*/pf-*/state/*')
	for m in runs/reproduce/*-default-cuda/*/manifest.json runs/reproduce/*-default-cuda-*/*/manifest.json; do
		grep -q '"finished": true' "$m" && skip+=(-o -path "$(dirname "$m")/state/*")
	done
	find "${runs[@]}" -type f -newer "$stamp" ! \( "${skip[@]}" \) | sort >"$RET/.files"
	tar cf - -T "$RET/.files" | gzip -1 | split -b 15M - "$RET/runs.tgz."
	rm "$RET/.files"
	ls -l "$RET"
	;;
unpack)
	dir=${2:?usage: scripts/gpu-train.sh unpack DIR}
	cat "$dir"/runs.tgz.* | tar xzvf -
	;;
*)
	echo "usage: scripts/gpu-train.sh prepare | run NAME… | unpack DIR" >&2
	exit 2
	;;
esac

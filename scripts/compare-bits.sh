#!/bin/bash
# compare-bits.sh OLD_L2O NEW_L2O: trains small float64 runs with two l2o
# binaries at GOMAXPROCS=1 (and the new one at GOMAXPROCS=2) and prints,
# per run, a SHA-256 prefix of its .npy files (names and contents, in name
# order) and whether they agree. Needs the WCRR weights of ../shared/data
# (WCRR_WEIGHTS to override). Exit status 1 if any run differs.
set -u
old=$1 new=$2
weights=${WCRR_WEIGHTS:-$(dirname "$0")/../../shared/data/wcrr/wcrr_sigma18.json}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
hash() { (cd "$1" && find . -name '*.npy' | LC_ALL=C sort | while read -r f; do printf '%s' "$f"; cat "$f"; done | sha256sum | cut -c1-16); }
status=0
run() { # name args...
	local name=$1; shift
	local h=()
	for v in "old 1" "new 1" "new 2"; do
		set -- "$@"
		local bin=${v% *} procs=${v#* } out="$tmp/$name-${v// /-}"
		local b=$old; [ "$bin" = new ] && b=$new
		if ! GOMAXPROCS=$procs "$b" "$@" --out "$out" >/dev/null 2>"$out.err"; then
			h+=("exit:$(tail -1 "$out.err" | cut -c1-60)")
			continue
		fi
		h+=("$(hash "$out")")
	done
	local same=same; [ "${h[0]}" = "${h[1]}" ] && [ "${h[1]}" = "${h[2]}" ] || { same=DIFFERENT; status=1; }
	printf '%-22s old %s  new %s  new at 2 threads %s  %s\n' "$name" "${h[0]}" "${h[1]}" "${h[2]}" "$same"
}
g="train greedy --size 16 --n-train 3 --max-steps 3 --tol-rel 0"
for p in ps pp pc pf m-ps m-pp m-pc pc3 m-pc3 pc5-zero npoly2 m-npoly3 pc3:pc pf:ps pf:pp pc3:pp npoly2:pc; do
	run "deblur-$p" $g --param "$p"
done
c="train greedy --n-train 3 --max-steps 3 --tol-rel 0 --problem ct-small"
for p in m-pc pf npoly2; do run "ct-small-$p" $c --param "$p"; done
for p in m-pc m-ps; do run "wcrr-$p" $g --problem deblur-wcrr --wcrr-weights "$weights" --param "$p"; done
u="train unroll --size 16 --n-train 4 --T 3 --batch 2 --epochs 2"
for p in m-pc m-pc3 npoly2; do run "unroll-$p" $u --param "$p"; done
run banert train banert --size 16 --n-train 4 --T 3 --epochs 2
exit $status

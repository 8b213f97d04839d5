#!/usr/bin/env bash
# Carry long trainings from one machine to the next through the repository:
#
#   scripts/carry-runs.sh DIR...
#
# stages (git add -f; runs/ is ignored) every checkpoint found under the DIRs, so that a fresh
# clone running the same command (e.g. `scripts/reproduce.sh wcrr default`, whose OUT defaults to
# runs/reproduce inside the repository) skips the finished trainings and resumes the unfinished
# ones where they stopped: the manifest, the parameters of every step, the state after the last
# step (the training iterates, which --resume needs, also to extend a finished run with a larger
# --max-steps) and the training log of each. Deleted files (the state of an earlier step) are
# staged as deletions. It stages and prints; committing is left to you.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || {
	echo "usage: scripts/carry-runs.sh DIR... (checkpoint directories inside the repository, e.g. runs/reproduce/wcrr-default)" >&2
	exit 2
}
for top in "$@"; do
	[ -d "$top" ] || {
		echo "carry-runs: $top is not a directory" >&2
		exit 2
	}
	case $(realpath "$top")/ in
	"$(realpath .)"/*) ;;
	*)
		echo "carry-runs: $top is outside the repository; run the experiment with OUT inside it (the default runs/reproduce)" >&2
		exit 2
		;;
	esac
	find "$top" -name manifest.json | sort | while read -r man; do
		dir=$(dirname "$man")
		paths=("$man" "$dir/params")
		[ -d "$dir/state" ] && paths+=("$dir/state")
		[ -f "$dir.log" ] && paths+=("$dir.log")
		git add -f -A -- "${paths[@]}"
		steps=$(find "$dir/params" -name 'theta_*.npy' | wc -l)
		state=unfinished
		grep -q '"finished": true' "$man" && state=finished
		echo "$dir: $steps steps, $(du -sh "$dir" | cut -f1) ($state)"
	done
done
echo "staged; commit them with the results, and a fresh clone resumes the same command"

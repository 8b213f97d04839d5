#!/bin/bash
# The 4-step STL-10 M-PC training (N = 25, 96², --max-steps 4 --tol-rel 0) in float64 and float32,
# two binaries alternated, 3 rounds: wall and CPU seconds (GNU time) and a hash of every .npy written.
# Usage: OLD=path/to/l2o-old OLD32=path/to/l2o-old-float32-build NEW=bin/l2o DATA=datasets/stl10 train4.sh OUT
set -u
out=${1:?usage: OLD=… OLD32=… NEW=… DATA=… train4.sh OUT}
: "${OLD:?}" "${NEW:?}" "${DATA:?}"
OLD32=${OLD32:-$OLD}
tmp=$(mktemp -d)
echo "# $(date -u +%FT%TZ) $(uname -m) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); 4-step STL-10 M-PC, alternated; old=$OLD (float32: $OLD32), new=$NEW" > "$out"
for r in 1 2 3; do
 for prec in float64 float32; do
  for b in old new; do
   bin=$NEW; [ $b = old ] && bin=$OLD && [ $prec = float32 ] && bin=$OLD32
   o=$tmp/run-$b-$prec
   /usr/bin/time -f "%e %U %S" -o "$tmp/t" "$bin" train greedy --problem deblur --data "$DATA" --param m-pc --precision $prec --max-steps 4 --tol-rel 0 --out "$o" > /dev/null 2>&1
   rc=$?
   read -r e u s < "$tmp/t"
   h=$(cd "$o" && find . -name '*.npy' | sort | xargs sha256sum | sha256sum | cut -c1-16)
   echo "round $r $prec $b rc=$rc wall_s=$e cpu_s=$(echo "$u + $s" | bc) params=$h" >> "$out"
   rm -rf "$o"
  done
 done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out"
rm -rf "$tmp"

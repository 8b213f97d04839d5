#!/bin/bash
# alternated 4-step M-PC training on STL-10, old (0b63678) vs new, float64 and float32 (simd)
# /tmp/perf/old and /tmp/perf/new: git worktrees of 0b63678 and of the redesigned main;
# l2o-{old,new} built there with go build, l2o-{old,new}-simd with GOEXPERIMENT=simd go build.
cd /tmp/perf
for rep in 1 2 3; do
  for v in old new; do
    for p in float64 float32; do
      bin=/tmp/perf/l2o-$v; [ $p = float32 ] && bin=/tmp/perf/l2o-$v-simd
      out=/tmp/perf/runs/$v-$p-$rep; rm -rf $out
      export GOMAXPROCS=1; s=$(date +%s.%N)
      $bin train greedy --data datasets/stl10 --param m-pc --max-steps 4 --tol-rel 0 --precision $p --out $out > /dev/null 2>&1
      e=$(date +%s.%N)
      h=$(cat $out/params/*.npy | sha256sum | cut -c1-16)
      echo "$v $p $rep $(echo "$e - $s" | bc) $h"
    done
  done
done

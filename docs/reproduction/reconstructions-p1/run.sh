set -e
cd /work/main
L=/work/main/bin/l2o
time $L train greedy --problem deblur --data datasets/stl10 --param m-pc --out runs/p1r/mpc > runs/p1r/train.log 2>&1
time $L eval --params /tmp/p1r/mpc --n-test 100 --iters 100 --methods nag,lbfgs --out /tmp/p1r/eval > /tmp/p1r/eval.log 2>&1
$L report --curves /tmp/p1r/eval/curves.json --params /tmp/p1r/mpc --out /tmp/p1r/report --title "Problem 1 (STL-10): greedy M-PC, default command" > /tmp/p1r/report.log 2>&1
echo done

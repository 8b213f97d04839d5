set -x
cd /work/main
L2O=/work/main/bin/l2o
$L2O train greedy --data /tmp/bar/flat45 --n-train 25 --out /tmp/bar/mpc
$L2O eval --params /tmp/bar/mpc --n-test 10 --out /tmp/bar/eval
echo "second eval exit:"; $L2O eval --params /tmp/bar/mpc --n-test 10 --out /tmp/bar/eval; echo "exit $?"
$L2O runs show /tmp/bar/mpc /tmp/bar/eval

#!/bin/sh
# .ci/mpi.sh installs Open MPI from Debian (libopenmpi-dev, openmpi-bin and
# pkgconf for cgo: 25 MB to download; skipped when present), builds the MPI
# binary (make build-mpi: bin/l2o-mpi, bin/mpi.test), vets the mpi tag, and
# runs the binding's tests under mpirun --oversubscribe -np 1, 2 and 3 (as
# root, as CI runs). The evaluations under mpirun, the Slurm and Kubernetes
# examples run in make test (package deploy), which needs Open MPI present.
set -eu
cd "$(dirname "$0")/.."

if ! command -v mpirun >/dev/null || ! pkg-config --exists ompi 2>/dev/null; then
	echo "mpi.sh: installing libopenmpi-dev, openmpi-bin and pkgconf from Debian"
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libopenmpi-dev openmpi-bin pkgconf >/dev/null
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

echo "mpi.sh: make build-mpi"
make build-mpi
go vet -tags mpi ./mpi ./cmd/...
for np in 1 2 3; do
	echo "mpi.sh: mpirun --oversubscribe -np $np bin/mpi.test"
	mpirun --oversubscribe -np "$np" bin/mpi.test -test.count=1
done

#!/bin/sh
# .ci/cuda.sh checks the CUDA build of greedyl2o on a machine without a GPU.
#
# It installs Debian's CUDA headers and libraries (non-free nvidia-cuda-dev and
# libcuda1: 775 MB to download, 2.8 GB on disk, 3 min 17 s measured on a 2-core
# machine) and its toolkit for ptxas (nvidia-cuda-toolkit, CUDA 11.8: 132 MB
# more to download, 338 MB on disk, 14 s: the Debian package that ships
# ptxas; skipped when all are present), then
#   - assembles the embedded PTX with ptxas for sm_52, sm_70, sm_80 and sm_90
#     (an error or a warning fails), checks that gpu/cudasrc/resources.tsv
#     (each kernel's registers, shared memory and spills) is current and that
#     every launch the CUDA device makes fits each target's limits at the
#     paper's sizes (go test ./gpu/launch, with L2O_REQUIRE_PTXAS=1);
#   - builds and vets every package with the l2ocuda tag (the CUDA device on
#     gorgonia.org/cu and its agreement tests are compiled, not run);
#   - compiles every CUDA C kernel to PTX with NVRTC (go test -tags nvrtc),
#     which runs on the CPU and needs no GPU,
#     and checks that the PTX the CUDA device embeds is current;
#   - checks that the default build does not link gorgonia.org/cu, whose init
#     exits the process when no GPU is present;
#   - without a GPU, runs the CUDA tests and the tagged binary against a CPU
#     emulation of the driver and cuFFT (scripts/cuda-emu/run.sh; needs g++),
#     again with the kernels' C built with fused multiply-adds, and checks
#     that the launches are the ones gpu/launch's model checks, that a
#     captured CUDA graph replays the uncaptured sequence, that make
#     gpu-budget's line agrees with the driver's call log, and that an
#     injected out-of-memory, failing kernel and lost context each end a
#     greedy training with a clear error and a checkpoint that --resume
#     finishes bitwise.
#
# The tag is l2ocuda, not cuda: gorgonia's own "cuda" tag switches gorgonia to
# its cuDNN engine, and cuDNN cannot be installed from Debian.
set -eu
cd "$(dirname "$0")/.."

have_cuda() {
	[ -f /usr/include/cuda.h ] && [ -f /usr/include/nvrtc.h ] &&
		ldconfig -p | grep -q 'libcuda\.so ' && ldconfig -p | grep -q 'libnvrtc\.so '
}
have_ptxas() { [ -n "${L2O_PTXAS:-}" ] || command -v ptxas >/dev/null || [ -x /usr/lib/nvidia-cuda-toolkit/bin/ptxas ]; }

if ! have_cuda || ! have_ptxas; then
	echo "cuda.sh: installing nvidia-cuda-dev, nvidia-cuda-toolkit (ptxas) and libcuda1 from Debian non-free"
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	. /etc/os-release
	$sudo tee /etc/apt/sources.list.d/greedyl2o-nonfree.sources >/dev/null <<SRC
Types: deb
URIs: http://deb.debian.org/debian
Suites: ${VERSION_CODENAME}
Components: contrib non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends nvidia-cuda-dev nvidia-cuda-toolkit libcuda1 >/dev/null
	have_cuda || { echo "cuda.sh: CUDA headers or libraries still missing after install" >&2; exit 1; }
	have_ptxas || { echo "cuda.sh: ptxas still missing after installing nvidia-cuda-toolkit" >&2; exit 1; }
fi
# Every test below that can assemble PTX must: without ptxas it fails
# instead of skipping.
export L2O_REQUIRE_PTXAS=1

echo "cuda.sh: go build -tags l2ocuda ./..."
go build -tags l2ocuda ./...
echo "cuda.sh: go vet -tags l2ocuda ./..."
go vet -tags l2ocuda ./...
echo "cuda.sh: ptxas assembles the embedded PTX for sm_52, sm_70, sm_80 and sm_90 without an error or warning; the resource table is current; every launch fits every target"
go test -count=1 -v -run 'TestPTXAssemblesForEveryTarget|TestResourceTableIsCurrent|TestPaperWorkloadsFitEveryTarget|TestCheckCatchesOversizedConfigurations' ./gpu/launch |
	grep -E '^(--- |ok|FAIL|PASS)|at most|largest int' || true
go test -count=1 ./gpu/launch
echo "cuda.sh: NVRTC compiles every CUDA C kernel to PTX; the embedded PTX is current"
go test -count=1 -tags nvrtc ./gpu/...
echo "cuda.sh: the default build must not link gorgonia.org/cu"
if go list -deps ./... | grep -q '^gorgonia\.org/cu'; then
	echo "cuda.sh: the default (untagged) build imports gorgonia.org/cu" >&2
	exit 1
fi
echo "cuda.sh: a tagged binary runs without a GPU and refuses --device cuda with exit 2"
go build -tags l2ocuda -o /tmp/l2o-cuda ./cmd/l2o
/tmp/l2o-cuda problem list >/dev/null
if [ ! -e /dev/nvidia0 ]; then
	set +e
	for cmd in "bench memory" "train greedy --size 12 --n-train 2 --out /tmp/l2o-cuda-run" "train unroll --size 12 --n-train 2 --batch 2 --out /tmp/l2o-cuda-run"; do
		# shellcheck disable=SC2086
		/tmp/l2o-cuda $cmd --device cuda >/dev/null 2>&1
		code=$?
		[ "$code" = 2 ] || { echo "cuda.sh: $cmd --device cuda without a GPU exited $code, want 2" >&2; exit 1; }
	done
	set -e
fi
echo "cuda.sh: the CUDA tests (they skip, saying why, without a GPU)"
go test -count=1 -tags l2ocuda ./gpu/...
if [ ! -e /dev/nvidia0 ]; then
	if command -v g++ >/dev/null && command -v nm >/dev/null; then
		echo "cuda.sh: the CUDA tests and the tagged binary on a CPU emulation of the driver and cuFFT (scripts/cuda-emu)"
		OUT=$(mktemp -d) ./scripts/cuda-emu/run.sh
	else
		echo "cuda.sh: no g++ or nm: the CUDA emulation (scripts/cuda-emu/run.sh) was not run"
	fi
fi
echo "cuda.sh: ok"

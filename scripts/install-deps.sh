#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian 12 packages that hvdrun's build and tests need. Idempotent: when all are
# present it does nothing (no apt-get update, no root needed).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config      # toolchain
  libcli11-dev nlohmann-json3-dev libyaml-cpp-dev   # launcher
  libsodium-dev                                     # HMAC-SHA256 for the run secret's handshake
  libhwloc-dev hwloc                                # CPU/NUMA binding
  elfutils                                          # eu-stack: C/C++ ranks' stacks for hvdrun why
  libopenmpi-dev openmpi-bin libpmix-dev            # MPI and PMIx (controllers, tests, benchmark)
  slurm-wlm                                         # srun/sbatch, and the private test cluster
  iproute2                                          # ip and tc: the test cluster's own network
  libkainjow-mustache-dev                           # sbatch script templates
  doctest-dev                                       # unit tests
  clang libfuzzer-14-dev                            # fuzz targets (fuzz/, scripts/fuzz.sh)
  clang-tidy                                        # scripts/check-tidy.sh (.clang-tidy), in CI
  hyperfine                                         # benchmark helper (scripts/bench-launch.sh)
  python3-torch python3-numpy python3-mpi4py        # framework tests, hvd-train's PyTorch baseline
  python3-pytest                                    # hvdrun.torch's unit tests (tests/unit/python)
  python3-torchvision                               # scripts/bench-torch.sh: ResNet-18
  python3-jsonschema                                # tests/schema: --dry-run against its schema
  libtorch-dev pybind11-dev python3-dev             # hvdrun.torch, the PyTorch extension (python/)
  gnuplot-nox fonts-liberation                      # hvdrun report draws with it (and its fonts)
  libgloo-dev                                       # hvd-bench's Gloo peer (optional)
  libopenblas-dev zlib1g-dev                        # hvd-train: host BLAS, gzip IDX files
  dataset-fashion-mnist                             # hvd-train's real data (tests/trainer)
  lmod man-db bash-completion                       # tests/install: module file, man page, completion
  python3-venv python3-pip python3-setuptools python3-wheel  # tests/install: pip install hvdrun.torch
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"

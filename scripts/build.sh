#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configures and builds hvdrun into ./build (or $HVD_BUILD_DIR). MPI, PMIx, CUDA and NCCL are
# used when found; pass extra CMake arguments through, e.g. -DHVD_WITH_CUDA=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${HVD_BUILD_DIR:-build}"
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The whole test suite: installs what is missing, builds with warnings as errors, runs ctest.
# A second, minimal build (MPI, PMIx, CUDA and NCCL all OFF) must also build and pass its unit
# tests, so that the optional parts can never become required by accident.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${HVD_BUILD_DIR:-build}"
./scripts/install-deps.sh
./scripts/build.sh -DHVD_WERROR=ON
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" "$@"

echo "== minimal build: every optional dependency OFF =="
HVD_BUILD_DIR="$build_dir-minimal" ./scripts/build.sh -DHVD_WERROR=ON \
  -DHVD_WITH_MPI=OFF -DHVD_WITH_PMIX=OFF -DHVD_WITH_CUDA=OFF -DHVD_WITH_NCCL=OFF \
  -DHVD_WITH_GLOO=OFF
ctest --test-dir "$build_dir-minimal" --output-on-failure -j "$(nproc)" -L unit

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The whole test suite: installs what is missing, builds with warnings as errors, runs ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh -DHVD_WERROR=ON
ctest --test-dir "${HVD_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)" "$@"

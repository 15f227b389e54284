#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configures and builds hvdrun into ./build (or $HVD_BUILD_DIR). MPI, PMIx, CUDA and NCCL are
# used when found; pass extra CMake arguments through, e.g. -DHVD_WITH_CUDA=OFF.
# Usage: scripts/build.sh [--target NAME]... [CMAKE-ARGS...]
#   --target NAME builds only NAME (and what it needs); without it, everything (tests too).
#
# Warnings are always errors here (-DHVD_WERROR=ON, before the caller's arguments, so that
# -DHVD_WERROR=OFF still wins): these scripts are for Debian 12's compilers, the ones CI checks,
# and every caller must configure the same compile flags. The quick start builds its programs
# first and the test suite (scripts/test.sh) builds the tests on top of them; a flag that
# differed between the two would change every object's command line and rebuild them all.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${HVD_BUILD_DIR:-build}"
targets=() cmake_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --target) targets+=(--target "$2"); shift 2 ;;
    *) cmake_args+=("$1"); shift ;;
  esac
done
# -g1 instead of RelWithDebInfo's -g: functions and line tables, what a backtrace, eu-stack
# (hvdrun why) and perf need, without the variables' descriptions; it compiles about a quarter
# faster (nlohmann/json's templates make most of the debug information), and CI builds twice.
# The compile database (compile_commands.json) is for scripts/check-tidy.sh and editors.
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHVD_WERROR=ON \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "${cmake_args[@]}" >/dev/null
cmake --build "$build_dir" -j "$(nproc)" "${targets[@]}"

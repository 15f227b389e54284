#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A C++ program outside the tree (consumer/) found libhvd through find_package(hvd) in the moved
# install, is built, and runs as 2 ranks under the installed hvdrun.
# Usage: t0520-cmake-consumer.sh PREFIX SOURCE_DIR WORK_DIR
set -euo pipefail
p=$1 src=$2 work=$3
rm -rf "$work"
# No compiler launcher and no cache from the outer build: a user's clean configure.
env -u CMAKE_CXX_COMPILER_LAUNCHER cmake -S "$src" -B "$work" -DCMAKE_PREFIX_PATH="$p" \
  -DCMAKE_BUILD_TYPE=Release >"$work.configure.log" 2>&1 ||
  { cat "$work.configure.log"; echo "t0520: configuring the consumer failed" >&2; exit 1; }
cmake --build "$work" >"$work.build.log" 2>&1 ||
  { cat "$work.build.log"; echo "t0520: building the consumer failed" >&2; exit 1; }
# It must have linked the installed libhvd.so, not one from the build tree.
lib=$(ldd "$work/hvd_consumer" | awk '/libhvd\.so/ {print $3}')
[ "$(realpath "$lib")" = "$(realpath "$p/lib/libhvd.so.0")" ] ||
  { echo "t0520: hvd_consumer loads '$lib', not $p/lib/libhvd.so.0" >&2; exit 1; }
out=$("$p/bin/hvdrun" -np 2 -- "$work/hvd_consumer")
echo "$out"
[ "$(grep -c 'sum 3 ok' <<<"$out")" = 2 ] ||
  { echo "t0520: expected 2 ranks with 'sum 3 ok'" >&2; exit 1; }
echo "t0520: find_package(hvd) consumer: ok"

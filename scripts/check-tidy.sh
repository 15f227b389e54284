#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# clang-tidy over every production C++ source (launcher, runtime, libs, trainer, python/csrc,
# tools), with the checks of .clang-tidy as errors: readability-function-size keeps the house
# rule "no function over 60 lines", and a few bugprone checks. Uses the compile database of a
# configured tree (scripts/build.sh writes one), so every file is parsed with its real flags
# (through a database-only tree beside it when that tree is a unity build).
# Usage: scripts/check-tidy.sh [BUILD-DIR] [JOBS]   (defaults: build, nproc)
# Exit 0: clean; 1: findings (printed, one per line with file:line); 2: cannot run.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${1:-build}"
jobs="${2:-$(nproc)}"
command -v clang-tidy >/dev/null || { echo "check-tidy: clang-tidy is missing (apt-get install clang-tidy)" >&2; exit 2; }
[ -f "$build_dir/compile_commands.json" ] ||
  { echo "check-tidy: no $build_dir/compile_commands.json: configure the tree first (scripts/build.sh)" >&2; exit 2; }

# A unity build (HVD_UNITY_BUILD, cmake/HvdUnityBuild.cmake) compiles batches, and its database
# names the batches instead of the files. Then a database-only tree beside it, configured with
# the same features and flags but one entry per file, is what clang-tidy reads (a configure, no
# build: every header it needs is in the sources or made at configure time).
if grep -q '/Unity/unity_' "$build_dir/compile_commands.json"; then
  mapfile -t same_options < <(grep -E '^(HVD_WITH_[A-Z0-9_]+|CMAKE_BUILD_TYPE|CMAKE_(C|CXX)_COMPILER|CMAKE_(C|CXX)_FLAGS_[A-Z]+):' \
    "$build_dir/CMakeCache.txt" | sed -E 's/^([^:]*):[^=]*=(.*)$/-D\1=\2/')
  cmake -S . -B "$build_dir/tidy-db" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    -DHVD_UNITY_BUILD=OFF "${same_options[@]}" >/dev/null ||
    { echo "check-tidy: could not configure $build_dir/tidy-db for a per-file compile database" >&2; exit 2; }
  build_dir="$build_dir/tidy-db"
fi

# Only sources the database knows (a file of a part that is switched off, e.g. CUDA, is not).
sources() {  # the tracked sources; every one under the folders when this is not a git checkout
  git ls-files -- launcher runtime libs trainer python tools 2>/dev/null ||
    find launcher runtime libs trainer python tools -type f 2>/dev/null
}
mapfile -t files < <(sources | grep -E '\.cc$' |
  while IFS= read -r f; do grep -qF "\"file\": \"$PWD/$f\"" "$build_dir/compile_commands.json" &&
    printf '%s\n' "$f"; done)
[ "${#files[@]}" -gt 0 ] || { echo "check-tidy: no production source in $build_dir's compile database" >&2; exit 2; }

out=$(mktemp)
trap 'rm -f "$out"' EXIT
# --quiet: only findings. Each clang-tidy prints its own findings; xargs runs `jobs` at once.
# -std=gnu++17: GCC's default is already C++17, so CMake writes no -std flag into the database
# (cxx_std_17 is met), but clang's default is C++14 and would misparse every file (optional,
# string_view, nested namespaces). Put before the database's flags, so an explicit -std wins.
status=0
printf '%s\0' "${files[@]}" |
  xargs -0 -P "$jobs" -n 4 clang-tidy -p "$build_dir" --quiet --extra-arg-before=-std=gnu++17 \
    >"$out" 2>/dev/null || status=$?
findings=$(grep -E '(warning|error): ' "$out" | sed "s|$PWD/||" | sort -u || true)
if [ -n "$findings" ]; then
  echo "check-tidy: findings in ${#files[@]} production sources (.clang-tidy; fix them or the check):" >&2
  printf '%s\n' "$findings" >&2
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "check-tidy: clang-tidy failed (exit $status) without a finding; its output:" >&2
  cat "$out" >&2
  exit 2
fi
echo "check-tidy: ${#files[@]} production sources clean"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# clang-tidy over every production C++ source (launcher, runtime, libs, trainer, python/csrc,
# tools), with the checks of .clang-tidy as errors: readability-function-size keeps the house
# rule "no function over 60 lines", and a few bugprone checks. Uses the compile database of a
# configured tree (scripts/build.sh writes one), so every file is parsed with its real flags,
# in the unity batches that tree compiles when it is a unity build.
# Usage: scripts/check-tidy.sh [BUILD-DIR] [JOBS]   (defaults: build, nproc)
# Exit 0: clean; 1: findings (printed, one per line with file:line); 2: cannot run.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${1:-build}"
jobs="${2:-$(nproc)}"
command -v clang-tidy >/dev/null || { echo "check-tidy: clang-tidy is missing (apt-get install clang-tidy)" >&2; exit 2; }
[ -f "$build_dir/compile_commands.json" ] ||
  { echo "check-tidy: no $build_dir/compile_commands.json: configure the tree first (scripts/build.sh)" >&2; exit 2; }

# A unity build (HVD_UNITY_BUILD, cmake/HvdUnityBuild.cmake) compiles batches: its database
# names a batch (Unity/unity_N_cxx.cxx, which #includes up to 16 sources by absolute path)
# instead of each file. clang-tidy then reads the batches: the checks of .clang-tidy look at one
# function at a time, and a batch's sources are under HeaderFilterRegex, so every finding is
# reported at its own file and line, while the headers every file shares are parsed once per
# batch rather than once per file (about a third of the CPU time).
sources() {  # the tracked sources; every one under the folders when this is not a git checkout
  git ls-files -- launcher runtime libs trainer python tools 2>/dev/null ||
    find launcher runtime libs trainer python tools -type f 2>/dev/null
}
mapfile -t entries < <(sed -n 's|^ *"file": "\(.*\)",\{0,1\}$|\1|p' "$build_dir/compile_commands.json" | sort -u)
declare -A production=() covered=()
while IFS= read -r f; do production["$PWD/$f"]=1; done < <(sources | grep -E '\.cc$')
units=()  # what clang-tidy parses: production sources, and batches holding at least one
for entry in "${entries[@]}"; do
  if [[ "$entry" == */Unity/unity_*.cxx ]]; then
    holds=0
    while IFS= read -r f; do
      [ -n "${production[$f]:-}" ] && { covered["$f"]=1; holds=1; }
    done < <(sed -n 's|^#include "\(.*\)"$|\1|p' "$entry")
    [ "$holds" = 1 ] && units+=("$entry")
  elif [ -n "${production[$entry]:-}" ]; then
    covered["$entry"]=1
    units+=("$entry")
  fi
done
# Only sources the database knows (a file of a part that is switched off, e.g. CUDA, is not).
[ "${#covered[@]}" -gt 0 ] || { echo "check-tidy: no production source in $build_dir's compile database" >&2; exit 2; }

out=$(mktemp)
trap 'rm -f "$out"' EXIT
# --quiet: only findings. Each clang-tidy prints its own findings; xargs runs `jobs` at once.
# -std=gnu++17: GCC's default is already C++17, so CMake writes no -std flag into the database
# (cxx_std_17 is met), but clang's default is C++14 and would misparse every file (optional,
# string_view, nested namespaces). Put before the database's flags, so an explicit -std wins.
status=0
printf '%s\0' "${units[@]}" |
  xargs -0 -P "$jobs" -n 1 clang-tidy -p "$build_dir" --quiet --extra-arg-before=-std=gnu++17 \
    >"$out" 2>/dev/null || status=$?
findings=$(grep -E '(warning|error): ' "$out" | sed "s|$PWD/||" | sort -u || true)
if [ -n "$findings" ]; then
  echo "check-tidy: findings in ${#covered[@]} production sources (.clang-tidy; fix them or the check):" >&2
  printf '%s\n' "$findings" >&2
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "check-tidy: clang-tidy failed (exit $status) without a finding; its output:" >&2
  cat "$out" >&2
  exit 2
fi
echo "check-tidy: ${#covered[@]} production sources clean (${#units[@]} translation units)"

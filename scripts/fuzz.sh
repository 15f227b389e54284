#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer targets (fuzz/, clang, ASan+UBSan) into $HVD_FUZZ_BUILD_DIR (build-fuzz)
# and runs each over its seed corpus (fuzz/corpus/<target>/, read only: new inputs go to the
# build tree's corpus), printing executions and findings per target.
#
#   scripts/fuzz.sh [SECONDS]     run each target SECONDS (default 60)
#   scripts/fuzz.sh --runs N      N inputs each, fixed seed (scripts/test.sh: a bounded smoke run)
#   HVD_FUZZ_TARGETS="idx_fuzz checkpoint_fuzz" scripts/fuzz.sh 600    only those
#
# A finding is a crash, a sanitizer report, an exception other than hvd::Error (or an
# InternalError), a slow input (-timeout) or an allocation over -malloc_limit_mb; its input is
# saved under <build>/fuzz-findings/<target>/. Exit status 1 when any target had a finding.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${HVD_FUZZ_BUILD_DIR:-build-fuzz}"
limit=(-max_total_time=60)
if [ "${1:-}" = "--runs" ]; then
  # A fixed seed: the same mutations each time, so that a run in CI passes or fails alike.
  limit=(-runs="${2:?--runs needs a number}" -seed=1)
elif [ -n "${1:-}" ]; then
  limit=(-max_total_time="$1")
fi

# A tree already configured with HVD_BUILD_FUZZ=ON (scripts/test.sh's sanitizer tree, which also
# builds the tests) is built as it is; otherwise a fuzz-only tree is configured.
if ! grep -qx 'HVD_BUILD_FUZZ:BOOL=ON' "$build_dir/CMakeCache.txt" 2>/dev/null; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ "${launcher[@]}" \
    -DHVD_BUILD_FUZZ=ON -DHVD_BUILD_TESTS=OFF -DHVD_WITH_MPI=OFF -DHVD_WITH_PMIX=OFF \
    -DHVD_WITH_CUDA=OFF -DHVD_WITH_NCCL=OFF -DHVD_WITH_GLOO=OFF >/dev/null
fi
cmake --build "$build_dir" -j "$(nproc)" --target fuzzers

targets="${HVD_FUZZ_TARGETS:-$(cd fuzz/corpus && ls)}"
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=1:symbolize=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
failed=0
printf '%-24s %12s  %s\n' target executions findings
for t in $targets; do
  bin="$build_dir/bin/$t"
  [ -x "$bin" ] || { echo "fuzz.sh: $t was not built" >&2; failed=1; continue; }
  work="$build_dir/fuzz-corpus/$t" findings="$build_dir/fuzz-findings/$t"
  rm -rf "$findings"
  mkdir -p "$work" "$findings"
  log="$build_dir/fuzz-logs/$t.log"
  mkdir -p "$(dirname "$log")"
  # 2 GB of RSS and 256 MB in one allocation are far beyond what any of these inputs (at most
  # 64 KiB: -max_len) may make a parser use.
  status=0
  "$bin" "${limit[@]}" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=256 \
    -artifact_prefix="$findings/" -print_final_stats=1 "$work" "fuzz/corpus/$t" >"$log" 2>&1 ||
    status=$?
  execs=$(grep -Eo '^stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || true)
  [ -n "$execs" ] || execs=$(grep -Eo '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true)
  found=$(find "$findings" -type f | wc -l)
  if [ "$status" -ne 0 ] || [ "$found" -ne 0 ]; then
    failed=1
    printf '%-24s %12s  %s\n' "$t" "${execs:-?}" "$found (exit $status; see $log, inputs in $findings)"
    grep -E 'ERROR: |hvd-fuzz: finding|runtime error|SUMMARY' "$log" | head -5 | sed 's/^/    /'
  else
    printf '%-24s %12s  %s\n' "$t" "${execs:-?}" 0
  fi
done
exit $failed

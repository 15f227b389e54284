#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The whole test suite: installs what is missing, builds with warnings as errors, runs ctest.
# The main build is the quick start's tree (scripts/quickstart.sh) when there is one: build.sh
# configures the same flags for both, so only what the quick start left out (the tests, the
# PyTorch extension) is compiled here.
# Then a second tree with every optional dependency OFF (MPI, PMIx, CUDA, NCCL, Gloo, PyTorch),
# so that the optional parts can never become required by accident. That tree is also the
# sanitizer tree: clang with ASan+UBSan (libFuzzer's coverage only in the fuzz targets and the
# libraries they link), where the unit and process tests run and every fuzz target a bounded
# number of runs over its seed corpus. Its compile begins beside the main tree's tests. A last,
# small TSan tree runs the runtime's unit tests (ranks as threads).
#
# One tree for the minimal build, ASan and the fuzz targets because CI's time is mostly
# compiling: three trees of the same sources cost twice what one does, and found nothing more.
# HVD_TEST_SANITIZERS=0 builds the minimal tree with gcc instead and skips the sanitizers and
# fuzzing (a quick local run; CI keeps them).
#
# --timeout 600: a test without a TIMEOUT of its own that hangs fails after 10 minutes, with its
# name, instead of holding the run until CI's limit ends it unexplained.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${HVD_BUILD_DIR:-build}"
phase_start=$SECONDS
phase() {  # prints how long the previous phase took, then the next one's title
  echo "== ($((SECONDS - phase_start)) s) =="
  phase_start=$SECONDS
  echo "== $* =="
}

phase "dependencies"
./scripts/install-deps.sh
phase "house rules: no production file over 400 lines"
./scripts/check-file-sizes.sh
without_optional=(-DHVD_WITH_MPI=OFF -DHVD_WITH_PMIX=OFF -DHVD_WITH_CUDA=OFF -DHVD_WITH_NCCL=OFF
                  -DHVD_WITH_GLOO=OFF -DHVD_WITH_TORCH=OFF)
# -O1 with line tables only: what the sanitizers' own documentation recommends, and about half
# the compile time of RelWithDebInfo's -O2 -g. Assertions stay on (no NDEBUG).
sanitized_build() {  # DIR CMAKE-ARGS...: configures DIR with clang, every option OFF, the args
  local dir="$1"
  shift
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
    "${without_optional[@]}" "$@" >/dev/null
}
# The ASan tree: HVD_BUILD_FUZZ instruments it for libFuzzer and defaults HVD_SANITIZE to
# address,undefined. Without the launcher's end-to-end tests (HVD_BUILD_LAUNCHER_E2E,
# cmake/HvdOptions.cmake): one hvdrun job per case, they took more of CI's time under ASan than
# all the rest of its phase, and they run in the main phase.
asan_tree=(-DHVD_WERROR=ON -DHVD_BUILD_FUZZ=ON -DHVD_BUILD_LAUNCHER_E2E=OFF)
sanitizers="${HVD_TEST_SANITIZERS:-1}"

phase "main build (warnings are errors), then every test, with clang-tidy and the ASan tree's compile beside them"
./scripts/build.sh
# Beside the tests, at the lowest priority, in a process group of its own (so that a failing
# test stops all of it): clang-tidy (scripts/check-tidy.sh: .clang-tidy's checks as errors, among
# them "no function over 60 lines"), then the ASan tree's compile. Many tests wait on processes
# and timers; this takes the CPU they leave rather than adding to the phases after. (Measured:
# tidy took that CPU for all but the tests' last 3 minutes, so the ASan compile's head start is
# small.) A compile error there is reported by the ASan phase, which builds the tree again (only
# what is left).
tidy_log="$build_dir/check-tidy.log"
beside() {
  renice -n 19 -p "$BASHPID" >/dev/null
  ./scripts/check-tidy.sh "$build_dir" >"$tidy_log" 2>&1 || return
  [ "$sanitizers" = 0 ] && return 0
  { sanitized_build "$build_dir-asan" "${asan_tree[@]}" &&
    cmake --build "$build_dir-asan" -j "$(nproc)"; } >"$build_dir-asan-beside.log" 2>&1 || true
}
set -m  # the job in a process group of its own
beside &
beside_pid=$!
set +m
trap 'kill -- -"$beside_pid" 2>/dev/null || true' EXIT
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" --timeout 600 "$@"
phase "clang-tidy, and the rest of the ASan tree's compile begun beside the tests"
if ! wait "$beside_pid"; then
  cat "$tidy_log"
  exit 1
fi
trap - EXIT
cat "$tidy_log"

if [ "$sanitizers" = 0 ]; then
  phase "minimal build: every optional dependency OFF (sanitizers skipped: HVD_TEST_SANITIZERS=0)"
  HVD_BUILD_DIR="$build_dir-minimal" ./scripts/build.sh "${without_optional[@]}"
  ctest --test-dir "$build_dir-minimal" --output-on-failure -j "$(nproc)" --timeout 600 -L unit
  phase "done"
  exit 0
fi

# Stop at the first report, with a stack; leaks are reported at exit.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/tests/tsan.supp"

phase "minimal build under ASan + UBSan (clang, warnings are errors), with the fuzz targets"
sanitized_build "$build_dir-asan" "${asan_tree[@]}"
cmake --build "$build_dir-asan" -j "$(nproc)"
phase "ASan + UBSan: unit and process tests"
# Left out: the Slurm cluster, GPU and MPI labels (not built here), the framework tests
# (Python would have to preload the ASan runtime), the pure-Python unit tests, the include
# boundaries and the ELF RUNPATH check (nothing runs there that a sanitizer could check; the
# main phase has them), the test that makes hwloc look up GPUs (its dlopen()ed I/O plugins leak
# at exit, reported from an unloaded module that no suppression can name), and the install
# tests: their find_package(hvd) program would link an instrumented libhvd.so without the
# sanitizer runtime, and what they check (paths, packaging) is the same in the main phase.
ctest --test-dir "$build_dir-asan" --output-on-failure -j "$(nproc)" --timeout 600 -L 'unit|integration' \
  -LE 'slurm|gpu|mpi' \
  -E '^torch_|^mpi4py_|^install_|^python_unit|^boundaries|^elf_|fill_gpu_numa on this machine'

phase "fuzz targets: 2000 runs each over the seed corpus"
HVD_FUZZ_BUILD_DIR="$build_dir-asan" ./scripts/fuzz.sh --runs 2000

phase "TSan: the runtime's unit tests"
sanitized_build "$build_dir-tsan" -DHVD_SANITIZE=thread -DHVD_BUILD_TRAINER=OFF
cmake --build "$build_dir-tsan" -j "$(nproc)" --target runtime_unit
ctest --test-dir "$build_dir-tsan" --output-on-failure -j "$(nproc)" --timeout 600 -R '^runtime_unit'
phase "done"

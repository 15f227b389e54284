#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds hvdrun with libhvd's GPU backend (NCCL + CUDA kernels) and checks it on this machine's
# GPUs: `ctest -L gpu` (gpu_probe under hvdrun, np=1 and np=min(GPUs, 4)), then times a 64 MiB
# float32 allreduce and a fused step of 100 x 4 KiB tensors on CUDA memory, and compares
# libhvd's NCCL path with raw ncclAllReduce from 8 B to 1 GiB on every GPU (hvd-bench-nccl).
#
#   scripts/gpu-check.sh [EXTRA CMAKE ARGS...]      build dir: $HVD_BUILD_DIR or build-gpu
#
# Needs CUDA and NCCL (CUDA_HOME, default /usr/local/cuda), cmake, Ninja and a C++17 compiler.
# Works without network: nothing is downloaded. The launcher's header-only libraries must be
# installed (the script names what is missing); MPI and PMIx are used when present and turned
# off (-DHVD_WITH_MPI=OFF / -DHVD_WITH_PMIX=OFF) when not, since the GPU path needs neither.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build_dir="${HVD_BUILD_DIR:-build-gpu}"
cuda_home="${CUDA_HOME:-/usr/local/cuda}"

say() { printf 'gpu-check: %s\n' "$*"; }
die() { printf 'gpu-check: error: %s\n' "$*" >&2; exit 1; }

# A header in the usual include directories.
have_header() {
  local h
  for dir in /usr/include /usr/local/include /usr/include/x86_64-linux-gnu \
             /usr/include/aarch64-linux-gnu; do
    h="$dir/$1"
    [ -e "$h" ] && return 0
  done
  return 1
}

check_prerequisites() {
  local missing=()
  command -v cmake >/dev/null || missing+=("cmake (package cmake)")
  command -v ninja >/dev/null || missing+=("ninja (package ninja-build)")
  command -v c++ >/dev/null || missing+=("c++ (package g++)")
  command -v pkg-config >/dev/null || missing+=("pkg-config (package pkg-config)")
  have_header CLI/CLI.hpp || missing+=("CLI11 headers (package libcli11-dev)")
  have_header nlohmann/json.hpp || missing+=("nlohmann/json headers (package nlohmann-json3-dev)")
  have_header yaml-cpp/yaml.h || missing+=("yaml-cpp (package libyaml-cpp-dev)")
  have_header kainjow/mustache.hpp || missing+=("mustache headers (package libkainjow-mustache-dev)")
  have_header doctest/doctest.h || missing+=("doctest headers (package doctest-dev)")
  pkg-config --exists hwloc 2>/dev/null || missing+=("hwloc (package libhwloc-dev)")
  [ -x "$cuda_home/bin/nvcc" ] || missing+=("nvcc at $cuda_home/bin/nvcc (set CUDA_HOME)")
  [ -e "$cuda_home/include/nccl.h" ] || have_header nccl.h ||
    missing+=("nccl.h in $cuda_home/include or /usr/include (package libnccl-dev)")
  if [ ${#missing[@]} -gt 0 ]; then
    printf 'gpu-check: error: missing what the build needs:\n' >&2
    printf '    %s\n' "${missing[@]}" >&2
    die "install those (scripts/install-deps.sh lists every package), then run this again"
  fi
}

# MPI and PMIx: on when found, off (with a note) when not; the GPU path needs neither.
feature_args=()
choose_optional_features() {
  if ! command -v mpicc >/dev/null && ! pkg-config --exists ompi-c 2>/dev/null; then
    say "no MPI found (package libopenmpi-dev): building with -DHVD_WITH_MPI=OFF"
    feature_args+=(-DHVD_WITH_MPI=OFF)
  fi
  if ! pkg-config --exists pmix 2>/dev/null; then
    say "no PMIx found (package libpmix-dev): building with -DHVD_WITH_PMIX=OFF"
    feature_args+=(-DHVD_WITH_PMIX=OFF)
  fi
}

configure_and_build() {
  local args=(-S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
              -DHVD_WITH_CUDA=ON -DHVD_WITH_NCCL=ON -DCUDAToolkit_ROOT="$cuda_home"
              -DCMAKE_CUDA_COMPILER="$cuda_home/bin/nvcc")
  if command -v ccache >/dev/null; then
    args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  args+=("${feature_args[@]}" "$@")
  mkdir -p "$build_dir"
  say "configuring: cmake ${args[*]}"
  cmake "${args[@]}" >"$build_dir/configure.log" 2>&1 ||
    { tail -30 "$build_dir/configure.log" >&2; die "configuration failed (log: $build_dir/configure.log)"; }
  say "building hvdrun, gpu_probe, hvd-bench-nccl and runtime_unit"
  cmake --build "$build_dir" -j "$(nproc)" --target hvdrun gpu_probe hvd-bench-nccl runtime_unit ||
    die "the build failed"
}

run_checks() {
  local bin="$build_dir/bin" failed=0
  if command -v nvidia-smi >/dev/null; then nvidia-smi -L; else say "nvidia-smi not found"; fi
  "$bin/hvdrun" --check-build | sed -n '/Tensor Operations/,/^$/p'
  say "unit tests of the GPU lane's host side"
  "$bin/runtime_unit" -tc='nccl types*,lane selector*,device path*,copy plan*' || failed=1
  say "ctest -L gpu"
  local log="$build_dir/gpu-ctest.log"
  ctest --test-dir "$build_dir" -L gpu --output-on-failure 2>&1 | tee "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || failed=1
  if grep -q "gpu_probe_np1 (Skipped)" "$log"; then
    say "ERROR: the GPU tests were skipped: $("$bin/gpu_probe" --device-count 2>&1)"
    return 1
  fi
  say "timing (mean of 20 after 5 warm-up steps; HOROVOD_CYCLE_TIME=${HOROVOD_CYCLE_TIME:-1} ms)"
  for np in 1 max; do
    "${BASH:-bash}" tests/gpu/run_gpu_probe.sh "$bin/hvdrun" "$bin/gpu_probe" "$np" --time |
      grep -E "timing|checks passed|skipped"
  done
  local gpus
  gpus=$("$bin/gpu_probe" --device-count)
  say "libhvd's NCCL path against raw ncclAllReduce on $gpus GPU(s), 8 B to 1 GiB"
  "$bin/hvdrun" -np "$gpus" -- "$bin/hvd-bench-nccl" | tee "$build_dir/nccl-compare.txt" ||
    failed=1
  return "$failed"
}

check_prerequisites
choose_optional_features
configure_and_build "$@"
if run_checks; then say "all GPU checks passed"; else die "some GPU checks failed or were skipped"; fi

# SPDX-License-Identifier: Apache-2.0
# Build options. MPI, PMIx, CUDA and NCCL are AUTO by default: used when found, skipped
# (and listed as disabled in the feature summary) when not. ON makes a missing one an error.
include(CMakeDependentOption)

set(_hvd_tristate AUTO ON OFF)
foreach(feature MPI PMIX CUDA NCCL)
  set(HVD_WITH_${feature} AUTO CACHE STRING "Build with ${feature} (AUTO, ON or OFF)")
  set_property(CACHE HVD_WITH_${feature} PROPERTY STRINGS ${_hvd_tristate})
endforeach()
option(HVD_BUILD_TESTS "Build the test suite" ON)
# The launcher's end-to-end tests (tests/integration: hvdrun with real ranks, one process per
# case). scripts/test.sh runs them in the main tree and leaves them out of the sanitizer tree,
# where they were CI's slowest phase for what the unit tests, the runtime's process probes and
# the fuzzers already cover there.
option(HVD_BUILD_LAUNCHER_E2E "Build the launcher's end-to-end tests (tests/integration)" ON)
option(HVD_WERROR "Treat compiler warnings as errors" OFF)
# The libraries and the big test programs compile as unity builds
# (cmake/HvdUnityBuild.cmake): OFF compiles each file on its own, quicker when one file is edited
# again and again.
option(HVD_UNITY_BUILD "Compile the libraries and the big test programs as unity builds" ON)

# hvd_resolve_feature(NAME FOUND): sets HVD_HAVE_<NAME> to 1 or 0 from the option and
# whether the package was found; fails configuration when the option is ON but it is missing.
function(hvd_resolve_feature name found)
  set(have 0)
  if(NOT HVD_WITH_${name} STREQUAL "OFF")
    if(${found})
      set(have 1)
    elseif(HVD_WITH_${name} STREQUAL "ON")
      message(FATAL_ERROR "HVD_WITH_${name}=ON but ${name} was not found")
    endif()
  endif()
  set(HVD_HAVE_${name} ${have} PARENT_SCOPE)
  add_feature_info(${name} have "HVD_WITH_${name}=${HVD_WITH_${name}}")
endfunction()

# Always required.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(yaml-cpp REQUIRED)
if(NOT TARGET yaml-cpp::yaml-cpp)   # Debian 12 ships yaml-cpp 0.7, whose target is unscoped
  add_library(yaml-cpp::yaml-cpp ALIAS yaml-cpp)
endif()
pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc)
set_package_properties(hwloc PROPERTIES TYPE REQUIRED PURPOSE "CPU/NUMA binding of ranks")

# Optional.
if(NOT HVD_WITH_MPI STREQUAL "OFF")
  find_package(MPI COMPONENTS C CXX)
endif()
hvd_resolve_feature(MPI MPI_CXX_FOUND)

if(NOT HVD_WITH_PMIX STREQUAL "OFF")
  pkg_check_modules(PMIX IMPORTED_TARGET pmix)
endif()
hvd_resolve_feature(PMIX PMIX_FOUND)

if(NOT HVD_WITH_CUDA STREQUAL "OFF")
  if(NOT DEFINED CUDAToolkit_ROOT AND EXISTS /usr/local/cuda)
    set(CUDAToolkit_ROOT /usr/local/cuda)
  endif()
  find_package(CUDAToolkit)
endif()
hvd_resolve_feature(CUDA CUDAToolkit_FOUND)

if(HVD_HAVE_CUDA AND NOT HVD_WITH_NCCL STREQUAL "OFF")
  find_package(NCCL 2.18)
endif()
hvd_resolve_feature(NCCL NCCL_FOUND)

# libhvd's GPU backend (NCCL + CUDA kernels) needs both. The CUDA language, and with it nvcc, is
# enabled only then, so that a build without them never looks for a CUDA compiler.
set(HVD_HAVE_GPU_BACKEND 0)
if(HVD_HAVE_CUDA AND HVD_HAVE_NCCL)
  if(NOT CMAKE_CUDA_COMPILER AND CUDAToolkit_NVCC_EXECUTABLE)
    set(CMAKE_CUDA_COMPILER "${CUDAToolkit_NVCC_EXECUTABLE}")
  endif()
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES "80;90")  # A100; H100, H200, GH200
  endif()
  # One libcudart for the kernels and the host code (which links CUDA::cudart, shared).
  set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
  enable_language(CUDA)
  set(HVD_HAVE_GPU_BACKEND 1)
endif()
add_feature_info(GPU_BACKEND HVD_HAVE_GPU_BACKEND "libhvd's NCCL backend for CUDA tensors")

# Gloo: only hvd-bench's Gloo peer uses it (libgloo-dev's CMake package); libhvd never does.
set(HVD_WITH_GLOO AUTO CACHE STRING "Build hvd-bench's Gloo peer (AUTO, ON or OFF)")
set_property(CACHE HVD_WITH_GLOO PROPERTY STRINGS ${_hvd_tristate})
if(NOT HVD_WITH_GLOO STREQUAL "OFF")
  find_package(Gloo CONFIG QUIET)
endif()
hvd_resolve_feature(GLOO Gloo_FOUND)

if(HVD_BUILD_TESTS)
  find_package(doctest REQUIRED)
endif()

# hvd-train (trainer/) needs OpenBLAS and zlib; OFF builds without it.
option(HVD_BUILD_TRAINER "Build hvd-train, the data-parallel benchmark trainer" ON)

# The PyTorch extension (python/hvdrun/torch): built when Debian's /usr/bin/python3 imports
# torch, torch's headers are there, and pybind11 and Python's headers are found. torch is the
# one that users' scripts import, so the interpreter that has it decides, not the first python3
# on PATH (which may be a pyenv shim without torch).
set(HVD_WITH_TORCH AUTO CACHE STRING "Build the hvdrun.torch Python package (AUTO, ON or OFF)")
set_property(CACHE HVD_WITH_TORCH PROPERTY STRINGS ${_hvd_tristate})
set(HVD_TORCH_PYTHON /usr/bin/python3 CACHE FILEPATH "The Python whose torch hvdrun.torch builds against")
set(_hvd_torch_found FALSE)
# A sanitized extension cannot load into Debian's uninstrumented python (ASan must come first
# in the process), so sanitizer builds (and fuzz builds, which sanitize by default) leave it
# out unless asked, and then refuse.
if((NOT "${HVD_SANITIZE}" STREQUAL "" OR HVD_BUILD_FUZZ) AND NOT HVD_WITH_TORCH STREQUAL "OFF")
  if(HVD_WITH_TORCH STREQUAL "ON")
    message(FATAL_ERROR "HVD_WITH_TORCH=ON cannot be combined with HVD_SANITIZE: the extension "
                        "would not load into an uninstrumented python3")
  endif()
  message(STATUS "hvdrun.torch: left out of this sanitizer build (HVD_SANITIZE=${HVD_SANITIZE})")
elseif(NOT HVD_WITH_TORCH STREQUAL "OFF" AND EXISTS "${HVD_TORCH_PYTHON}")
  execute_process(
    COMMAND "${HVD_TORCH_PYTHON}" -c
            "import os, torch; print(torch.__version__); print(os.path.dirname(torch.__file__))"
    RESULT_VARIABLE _torch_rc OUTPUT_VARIABLE _torch_out ERROR_QUIET
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(_torch_rc EQUAL 0)
    string(REPLACE "\n" ";" _torch_out "${_torch_out}")
    list(GET _torch_out 0 HVD_TORCH_VERSION)
    list(GET _torch_out 1 _torch_dir)
    set(HVD_TORCH_INCLUDE_DIRS "${_torch_dir}/include")
    set(HVD_TORCH_LIBRARY_DIR "${_torch_dir}/lib")
    set(Python3_EXECUTABLE "${HVD_TORCH_PYTHON}")
    find_package(Python3 COMPONENTS Interpreter Development.Module)
    find_package(pybind11 CONFIG QUIET)
    find_library(HVD_TORCH_PYTHON_LIBRARY torch_python PATHS "${HVD_TORCH_LIBRARY_DIR}" NO_DEFAULT_PATH)
    find_library(HVD_C10_LIBRARY c10 PATHS "${HVD_TORCH_LIBRARY_DIR}" NO_DEFAULT_PATH)
    if(EXISTS "${HVD_TORCH_INCLUDE_DIRS}/torch/csrc/autograd/python_variable.h"
       AND Python3_Development.Module_FOUND AND pybind11_FOUND
       AND HVD_TORCH_PYTHON_LIBRARY AND HVD_C10_LIBRARY)
      set(_hvd_torch_found TRUE)
      # torch ships no CMake package for its Python side: an imported target of our own, with
      # the headers as SYSTEM (their warnings are not ours).
      if(NOT TARGET hvd::torch_python)
        add_library(hvd::torch_python UNKNOWN IMPORTED)
        set_target_properties(hvd::torch_python PROPERTIES
          IMPORTED_LOCATION "${HVD_TORCH_PYTHON_LIBRARY}"
          INTERFACE_INCLUDE_DIRECTORIES "${HVD_TORCH_INCLUDE_DIRS}"
          INTERFACE_LINK_LIBRARIES "${HVD_C10_LIBRARY}")
      endif()
    endif()
  endif()
endif()
hvd_resolve_feature(TORCH _hvd_torch_found)

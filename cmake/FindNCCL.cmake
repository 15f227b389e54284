# SPDX-License-Identifier: Apache-2.0
# FindNCCL: locates nccl.h and libnccl, provides NCCL::nccl and NCCL_VERSION.
# Hints: NCCL_ROOT, CUDAToolkit_ROOT (NCCL often sits beside CUDA, as at /usr/local/cuda).
find_path(NCCL_INCLUDE_DIR nccl.h
          HINTS ${NCCL_ROOT} ${CUDAToolkit_ROOT} ${CUDAToolkit_LIBRARY_ROOT}
          PATH_SUFFIXES include)
find_library(NCCL_LIBRARY nccl
             HINTS ${NCCL_ROOT} ${CUDAToolkit_ROOT} ${CUDAToolkit_LIBRARY_ROOT}
             PATH_SUFFIXES lib64 lib)
if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_defs REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
  foreach(part MAJOR MINOR PATCH)
    string(REGEX REPLACE ".*#define NCCL_${part} ([0-9]+).*" "\\1" NCCL_${part} "${_nccl_defs}")
  endforeach()
  set(NCCL_VERSION "${NCCL_MAJOR}.${NCCL_MINOR}.${NCCL_PATCH}")
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR
                                  VERSION_VAR NCCL_VERSION)
if(NCCL_FOUND AND NOT TARGET NCCL::nccl)
  add_library(NCCL::nccl SHARED IMPORTED)
  set_target_properties(NCCL::nccl PROPERTIES IMPORTED_LOCATION "${NCCL_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
endif()
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)

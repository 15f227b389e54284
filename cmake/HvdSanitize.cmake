# SPDX-License-Identifier: Apache-2.0
# Sanitizer and fuzzing builds (scripts/test.sh runs both; see fuzz/README.md).
#
# HVD_SANITIZE: a -fsanitize= list for the whole build, e.g. "address,undefined" or "thread".
# HVD_BUILD_FUZZ: the libFuzzer targets in fuzz/ (clang only). It defaults HVD_SANITIZE to
# address,undefined; fuzz/CMakeLists.txt gives the fuzzers and the libraries they link
# libFuzzer's coverage (-fsanitize=fuzzer-no-link).
#
# Global compile options (with HvdDebugInfo.cmake's, the only ones): a sanitizer must see every
# translation unit (ASan's container annotations and TSan's view of memory break on a
# half-instrumented program), which per-target options cannot promise.
set(HVD_SANITIZE "" CACHE STRING "Build with -fsanitize=LIST (address,undefined or thread)")
option(HVD_BUILD_FUZZ "Build the libFuzzer targets in fuzz/ (needs clang)" OFF)

if(HVD_BUILD_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "HVD_BUILD_FUZZ needs clang (libFuzzer): configure with "
                        "-DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang")
  endif()
  if(HVD_SANITIZE STREQUAL "")
    set(HVD_SANITIZE "address,undefined")
  endif()
endif()

if(NOT HVD_SANITIZE STREQUAL "")
  # Stop at the first report (halt_on_error for UBSan too), with usable stacks.
  # C and C++ only: nvcc takes none of these (sanitizer builds are configured without CUDA).
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=${HVD_SANITIZE}>"
                      "$<$<COMPILE_LANGUAGE:C,CXX>:-fno-omit-frame-pointer>"
                      "$<$<COMPILE_LANGUAGE:C,CXX>:-fno-sanitize-recover=all>")
  add_link_options(-fsanitize=${HVD_SANITIZE})
  add_feature_info(SANITIZE ON "HVD_SANITIZE=${HVD_SANITIZE}")
endif()

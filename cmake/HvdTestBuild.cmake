# SPDX-License-Identifier: Apache-2.0
# hvd_quick_test_build(target): how the launcher's test programs compile. They start processes and
# compare text and JSON, so -O2 buys them nothing but compile time (about a third of a test
# file's), and json.hpp alone takes 2 s to parse in each of their 40 files that include it:
# without optimisation, with nlohmann/json precompiled once per program. The code they test is
# in the libraries, which keep the build type's flags.
function(hvd_quick_test_build target)
  target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:-O0>")
  target_precompile_headers(${target} PRIVATE <nlohmann/json.hpp>)
endfunction()

# hvd_unity_test_build(target): the big test programs (runtime_unit, launcher_unit,
# launcher_integration, trainer_unit) compile their files in batches, each batch one translation
# unit. Their files are many and small, and each one paid for parsing the same headers (std,
# doctest, json) and for instantiating the same templates: in batches of 16 they compile in about
# half the CPU time, in every tree CI builds. A test file's helpers in its anonymous namespace
# then share a translation unit with other files' helpers, so they carry names that say what they
# are for. Two helpers of one name are a compile error (a redefinition, or an ambiguous call).
function(hvd_unity_test_build target)
  if(HVD_UNITY_TESTS)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
  endif()
endfunction()

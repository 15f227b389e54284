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

# SPDX-License-Identifier: Apache-2.0
# hvd_unity_build(target): the target compiles its files in batches, each batch one translation
# unit. Used for the libraries of libs/, runtime/, launcher/ and trainer/, hvd-bench and
# hvd-preflight, and the big test programs
# (runtime_unit, launcher_unit, launcher_integration, trainer_unit), whose files are many and
# small: each one paid again for parsing the same headers (std, CLI11, json, doctest) and for
# compiling the same inline code (CLI11's alone is 6 s a file at -O2). In batches of 16 they
# compile in about half the CPU time, in every tree CI builds.
# A file's helpers in its anonymous namespace then share a translation unit with other files'
# helpers, so they carry names that say what they are for, and a helper two files need lives in
# a header. Two helpers of one name are a compile error (a redefinition, or an ambiguous call).
function(hvd_unity_build target)
  if(HVD_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
  endif()
endfunction()

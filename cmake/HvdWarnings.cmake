# SPDX-License-Identifier: Apache-2.0
# hvd_set_warnings(TARGET): the project's warning set, errors with HVD_WERROR.
function(hvd_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
                         -Wnon-virtual-dtor -Wold-style-cast -Wcast-align)
  if(HVD_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  target_compile_features(${target} PUBLIC cxx_std_17)
endfunction()

# SPDX-License-Identifier: Apache-2.0
# hvd_set_warnings(TARGET): the project's warning set, errors with HVD_WERROR.
# nvcc takes the host compiler's warnings through -Xcompiler, for the host code of .cu files.
function(hvd_set_warnings target)
  set(not_cuda "$<NOT:$<COMPILE_LANGUAGE:CUDA>>")
  target_compile_options(${target} PRIVATE "$<${not_cuda}:-Wall;-Wextra;-Wpedantic;-Wshadow>"
    "$<${not_cuda}:-Wnon-virtual-dtor;-Wold-style-cast;-Wcast-align>"
    "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>")
  if(HVD_WERROR)
    target_compile_options(${target} PRIVATE "$<${not_cuda}:-Werror>"
                           "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Werror;--Werror=all-warnings>")
  endif()
  target_compile_features(${target} PUBLIC cxx_std_17)
endfunction()

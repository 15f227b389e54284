# SPDX-License-Identifier: Apache-2.0
# Debug information that `hvdrun why` can read. elfutils (eu-stack, Debian 12's 0.188) finds a
# source line only through .debug_aranges: gcc writes that section, clang does not unless asked,
# so a clang build named functions without file:line (the ASan tree's why_native_wait failed on
# it). Global, like the sanitizer options: a translation unit left out loses its lines.
include(CheckCCompilerFlag)
include(CheckCXXCompilerFlag)
if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
  check_c_compiler_flag(-gdwarf-aranges HVD_C_HAS_DWARF_ARANGES)
  if(HVD_C_HAS_DWARF_ARANGES)
    add_compile_options($<$<COMPILE_LANGUAGE:C>:-gdwarf-aranges>)
  endif()
endif()
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  check_cxx_compiler_flag(-gdwarf-aranges HVD_CXX_HAS_DWARF_ARANGES)
  if(HVD_CXX_HAS_DWARF_ARANGES)
    add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-gdwarf-aranges>)
  endif()
endif()

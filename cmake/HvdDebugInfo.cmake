# SPDX-License-Identifier: Apache-2.0
# Debug information that `hvdrun why` can read. elfutils (eu-stack, Debian 12's 0.188) finds a
# source line only through .debug_aranges: gcc writes that section, clang does not unless asked,
# so a clang build named functions without file:line (the ASan tree's why_native_wait failed on
# it). Global, like the sanitizer options: a translation unit left out loses its lines.
include(CheckCompilerFlag)
foreach(lang C CXX)
  if(CMAKE_${lang}_COMPILER_ID STREQUAL "Clang")
    check_compiler_flag(${lang} -gdwarf-aranges HVD_${lang}_HAS_DWARF_ARANGES)
    if(HVD_${lang}_HAS_DWARF_ARANGES)
      add_compile_options($<$<COMPILE_LANGUAGE:${lang}>:-gdwarf-aranges>)
    endif()
  endif()
endforeach()

# SPDX-License-Identifier: Apache-2.0
# hvd_export_headers(<target> <header>...): a runtime library shows its users only the headers
# named here (paths under runtime/src, e.g. net/socket.h), not all of runtime/src.
#
# An -I flag exposes a whole folder, and runtime/src holds every private header of libhvd, so
# each exporting target gets its own folder in the build tree holding symbolic links to just its
# headers (<build>/runtime/exports/<target>/net/socket.h -> runtime/src/net/socket.h). Includes
# keep their spelling ("net/socket.h"), edits to the real header are seen at once, and an include
# of any other runtime header from a user such as the launcher fails to compile. The target itself
# still compiles against all of runtime/src (PRIVATE).
function(hvd_export_headers target)
  set(src_dir "${PROJECT_SOURCE_DIR}/runtime/src")
  set(export_dir "${PROJECT_BINARY_DIR}/runtime/exports/${target}")
  file(REMOVE_RECURSE "${export_dir}")  # a header dropped from the list must disappear
  foreach(header IN LISTS ARGN)
    if(NOT EXISTS "${src_dir}/${header}")
      message(FATAL_ERROR "hvd_export_headers(${target}): runtime/src/${header} does not exist")
    endif()
    get_filename_component(sub_dir "${export_dir}/${header}" DIRECTORY)
    file(MAKE_DIRECTORY "${sub_dir}")
    file(CREATE_LINK "${src_dir}/${header}" "${export_dir}/${header}" SYMBOLIC)
  endforeach()
  target_include_directories(${target} PUBLIC "${export_dir}" PRIVATE "${src_dir}")
endfunction()

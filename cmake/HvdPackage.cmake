# SPDX-License-Identifier: Apache-2.0
# The CMake package that lets a C++ program outside this tree link libhvd:
#   find_package(hvd CONFIG REQUIRED)  target_link_libraries(app PRIVATE hvd::hvd)
# installed under lib/cmake/hvd.
include(CMakePackageConfigHelpers)
set(HVD_CMAKE_DIR lib/cmake/hvd)
install(EXPORT hvdTargets NAMESPACE hvd:: DESTINATION "${HVD_CMAKE_DIR}")
configure_package_config_file(cmake/hvdConfig.cmake.in "${PROJECT_BINARY_DIR}/hvdConfig.cmake"
                              INSTALL_DESTINATION "${HVD_CMAKE_DIR}")
write_basic_package_version_file("${PROJECT_BINARY_DIR}/hvdConfigVersion.cmake"
                                 COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/hvdConfig.cmake" "${PROJECT_BINARY_DIR}/hvdConfigVersion.cmake"
        DESTINATION "${HVD_CMAKE_DIR}")

# The Lmod module file, beside the other data in the build tree and the install alike:
#   module use <prefix>/share/modulefiles && module load hvdrun
set(HVD_MODULE_FILE "share/modulefiles/hvdrun/${PROJECT_VERSION}.lua")
configure_file(cmake/hvdrun-module.lua.in "${PROJECT_BINARY_DIR}/${HVD_MODULE_FILE}" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/${HVD_MODULE_FILE}" DESTINATION share/modulefiles/hvdrun)

# `cpack -G DEB` in the build folder: hvdrun_<version>_<arch>.deb with everything above under
# /usr. Its dependencies come from dpkg-shlibdeps (the libraries the binaries link), plus
# python3-torch when hvdrun.torch is built.
set(CPACK_PACKAGE_NAME hvdrun)
set(CPACK_PACKAGE_VENDOR "hvdrun")
set(CPACK_PACKAGE_CONTACT "hvdrun maintainers <hvdrun@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Launcher and collectives runtime for distributed training (Horovod's API)")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Stripped, as Debian ships binaries (debug info would make it 66 MB instead of a few).
set(CPACK_STRIP_FILES ON)
# ldconfig through a trigger instead of CPack's generated postinst/postrm (see cmake/deb/).
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA "${PROJECT_SOURCE_DIR}/cmake/deb/postinst"
    "${PROJECT_SOURCE_DIR}/cmake/deb/postrm" "${PROJECT_SOURCE_DIR}/cmake/deb/triggers")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
if(HVD_HAVE_TORCH)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3-torch")
endif()
include(CPack)

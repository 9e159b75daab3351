# Install rules and the CMake package: `cmake --install <build> --prefix <p>` installs
#   <p>/bin/tlc, <p>/lib/libtlcRuntime.a, <p>/include/tlc/Runtime/Runtime.h and
#   <p>/lib/cmake/tlc/{tlcConfig,tlcConfigVersion,tlcTargets*,AddTileKernel}.cmake,
# so that find_package(tlc) gives tlc::tlc, tlc::runtime and add_tile_kernel() (docs/cmake.md).
# The targets themselves are installed next to their definitions (tools/tlc, lib/Runtime).
include(CMakePackageConfigHelpers)

set(TLC_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/tlc)
install(EXPORT tlcTargets NAMESPACE tlc:: DESTINATION ${TLC_INSTALL_CMAKEDIR}
        FILE tlcTargets.cmake)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/tlcConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/tlcConfig.cmake
                              INSTALL_DESTINATION ${TLC_INSTALL_CMAKEDIR})
# 0.x: a minor version may break the launcher API.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tlcConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tlcConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/tlcConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/AddTileKernel.cmake
        DESTINATION ${TLC_INSTALL_CMAKEDIR})

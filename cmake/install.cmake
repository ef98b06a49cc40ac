# Install rules of trak (included from the top-level CMakeLists.txt when TRAK_INSTALL is on):
# the two libraries (static and shared), the public headers with the generated trak/protos.h,
# pkg-config files, a CMake package exporting trak::trak and trak::processor, and, when the
# command is built, `trak` and its man page. CPack turns the same rules into a Debian package.
# Debian's multiarch layout under every prefix: libraries in lib/<triplet>, where ld.so,
# pkg-config and find_package look under /usr/local as under /usr. GNUInstallDirs alone picks it
# only when the prefix is /usr at configure time, so the .deb (installed under /usr by CPack
# from a /usr/local build) would put libraries in /usr/lib. A libdir the user chose
# (-DCMAKE_INSTALL_LIBDIR=...) is kept; in a build directory configured before this rule
# (TRAK_LIBDIR_SEEN unset), GNUInstallDirs' own "lib", recognised by its help text, is replaced.
if(CMAKE_LIBRARY_ARCHITECTURE AND EXISTS /etc/debian_version)
  get_property(trak_libdir_help CACHE CMAKE_INSTALL_LIBDIR PROPERTY HELPSTRING)
  if(NOT DEFINED CMAKE_INSTALL_LIBDIR OR
     (NOT DEFINED CACHE{TRAK_LIBDIR_SEEN} AND CMAKE_INSTALL_LIBDIR STREQUAL "lib" AND
      trak_libdir_help STREQUAL "Object code libraries (lib)"))
    set(CMAKE_INSTALL_LIBDIR lib/${CMAKE_LIBRARY_ARCHITECTURE}
        CACHE PATH "Object code libraries (lib/<multiarch triplet> on Debian)" FORCE)
  endif()
  set(TRAK_LIBDIR_SEEN ON CACHE INTERNAL "cmake/install.cmake chose the libdir once")
endif()
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TRAK_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/trak)

install(TARGETS trak_shared trak_static trak_processor_shared trak_processor
  EXPORT trakTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/trak DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# sdk.h and pb.h users need the generated field numbers: the header is part of the public API.
install(FILES ${TRAK_GEN_DIR}/trak/protos.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/trak)

install(EXPORT trakTargets NAMESPACE trak:: DESTINATION ${TRAK_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/trakConfig.cmake.in
  ${PROJECT_BINARY_DIR}/trakConfig.cmake INSTALL_DESTINATION ${TRAK_CMAKE_DIR})
# 0.x releases make no compatibility promise across minor versions.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/trakConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/trakConfig.cmake ${PROJECT_BINARY_DIR}/trakConfigVersion.cmake
  DESTINATION ${TRAK_CMAKE_DIR})

# prefix=${pcfiledir}/../.. (or deeper for a multiarch libdir): the tree can be moved or
# unpacked anywhere, as the .deb test does with dpkg -x.
file(RELATIVE_PATH TRAK_PC_PREFIX /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
string(REGEX REPLACE "/$" "" TRAK_PC_PREFIX "${TRAK_PC_PREFIX}")
foreach(pc trak trak-processor)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

if(TRAK_BUILD_CLI)
  install(TARGETS trak_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # The man page is the command's own --help texts (scripts/manpage.sh), so it cannot drift.
  add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/trak.1
    COMMAND ${PROJECT_SOURCE_DIR}/scripts/manpage.sh $<TARGET_FILE:trak_cli> ${PROJECT_VERSION}
            > ${PROJECT_BINARY_DIR}/trak.1
    DEPENDS trak_cli ${PROJECT_SOURCE_DIR}/scripts/manpage.sh
    COMMENT "manpage: trak.1 from trak --help")
  add_custom_target(trak_man ALL DEPENDS ${PROJECT_BINARY_DIR}/trak.1)
  install(FILES ${PROJECT_BINARY_DIR}/trak.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()

# `make package` (cpack): build/trak_<version>_amd64.deb, installing under /usr.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME trak)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "tracing SDK, trace processor and command for Perfetto's trace format")
set(CPACK_PACKAGE_CONTACT "trak developers <trak@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# Written out rather than computed with dpkg-shlibdeps, which a build machine may not have.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.34), libsqlite3-0, zlib1g, libedit2, libmicrohttpd12")
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON) # shlibs file and the ldconfig trigger
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR})
include(CPack)

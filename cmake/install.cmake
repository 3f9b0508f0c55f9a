# `cmake --install`: the libraries, the public header and the engine's
# headers, the atomstress CLI, and a CMake package (atomstressConfig.cmake,
# its version file, the exported targets, atomstress_add_suite), so that a
# project does find_package(atomstress CONFIG REQUIRED) and
# atomstress_add_suite(my_suite SOURCES my_atomics.cu).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(atomstress_core PROPERTIES EXPORT_NAME core)
set_target_properties(atomstress_catalogue PROPERTIES EXPORT_NAME catalogue)
set_target_properties(atomstress_reports PROPERTIES EXPORT_NAME reports)
set_target_properties(atomstress_properties PROPERTIES EXPORT_NAME properties)
set_target_properties(atomstress_cli PROPERTIES EXPORT_NAME cli)
set_target_properties(atomstress_main PROPERTIES EXPORT_NAME main)
set_target_properties(atomstress_suite PROPERTIES EXPORT_NAME suite)

install(TARGETS atomstress_core atomstress_catalogue atomstress_reports atomstress_properties atomstress_cli
                atomstress_main atomstress_suite
        EXPORT atomstressTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        OBJECTS DESTINATION ${CMAKE_INSTALL_LIBDIR}/atomstress/objects)
install(TARGETS atomstress RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES harness/byo/include/atomstress/atomstress.cuh DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/atomstress)
foreach(dir harness atomics_under_test)
  install(DIRECTORY ${dir} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/atomstress/internal
          FILES_MATCHING PATTERN "*.cuh" PATTERN "*.hpp" PATTERN "include" EXCLUDE)
endforeach()

set(config_dir ${CMAKE_INSTALL_LIBDIR}/cmake/atomstress)
install(EXPORT atomstressTargets NAMESPACE atomstress:: DESTINATION ${config_dir})
configure_package_config_file(cmake/atomstressConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/atomstressConfig.cmake
                              INSTALL_DESTINATION ${config_dir})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/atomstressConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/atomstressConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/atomstressConfigVersion.cmake
              cmake/atomstressSuite.cmake cmake/atomstressProbe.cmake cmake/atomstressEntryTests.cmake cmake/atomstressEntryTestsAdd.cmake
        DESTINATION ${config_dir})

# `cmake --install`: the libraries, the public header and the engine's
# headers, the atomstress CLI, and a CMake package (atomstressConfig.cmake,
# its version file, the exported targets, atomstress_add_suite), so that a
# project does find_package(atomstress CONFIG REQUIRED) and
# atomstress_add_suite(my_suite SOURCES my_atomics.cu).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The export names drop the prefix: atomstress::core, atomstress::trial, ...
set(_atomstress_libraries atomstress_support atomstress_trial atomstress_registry atomstress_workload
    atomstress_check atomstress_backend atomstress_kernel atomstress_pipeline atomstress_core atomstress_catalogue
    atomstress_properties atomstress_reports atomstress_fuzz atomstress_cli atomstress_main atomstress_suite)
foreach(library IN LISTS _atomstress_libraries)
  string(REPLACE "atomstress_" "" export_name ${library})
  set_target_properties(${library} PROPERTIES EXPORT_NAME ${export_name})
endforeach()

install(TARGETS ${_atomstress_libraries}
        EXPORT atomstressTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        OBJECTS DESTINATION ${CMAKE_INSTALL_LIBDIR}/atomstress/objects)
install(TARGETS atomstress RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES harness/byo/include/atomstress/atomstress.cuh harness/byo/include/atomstress/kernel.cuh
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/atomstress)
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

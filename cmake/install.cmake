# `cmake --install`: public headers, the layer libraries, the self-registering components (the
# built-in policies, trace formats and placement strategies, as object files, so their
# registration survives), the schedlab executable and the package
# config for find_package(schedlab) with targets schedlab::<layer> and schedlab_add_policy().
include(CMakePackageConfigHelpers)

set(SCHEDLAB_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/schedlab)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/schedlab
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp")
install(TARGETS schedlab_core schedlab_plugin_api schedlab_trace schedlab_trace_objects schedlab_cluster schedlab_placement
                schedlab_placement_objects schedlab_models schedlab_tenants schedlab_sharing
                schedlab_policy schedlab_metrics schedlab_policy_objects schedlab_policies schedlab_sim schedlab_sweep
                schedlab_report schedlab_check schedlab_leaderboard
        EXPORT schedlabTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        OBJECTS DESTINATION ${CMAKE_INSTALL_LIBDIR}/schedlab/objects)
install(TARGETS schedlab EXPORT schedlabTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT schedlabTargets NAMESPACE schedlab:: DESTINATION ${SCHEDLAB_INSTALL_CMAKEDIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/schedlabConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/schedlabConfig.cmake
                              INSTALL_DESTINATION ${SCHEDLAB_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/schedlabConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/schedlabConfig.cmake
              ${PROJECT_BINARY_DIR}/schedlabConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/schedlabPlugin.cmake
        DESTINATION ${SCHEDLAB_INSTALL_CMAKEDIR})

# The same package from the build tree, without installing: find_package(schedlab) with
# -Dschedlab_DIR=<build dir> (or CMAKE_PREFIX_PATH=<build dir>) gives the same targets, over the
# build tree's libraries and the source tree's headers, and schedlab_add_policy().
export(EXPORT schedlabTargets NAMESPACE schedlab:: FILE ${PROJECT_BINARY_DIR}/schedlabTargets.cmake)
configure_file(${PROJECT_SOURCE_DIR}/cmake/schedlabPlugin.cmake
               ${PROJECT_BINARY_DIR}/schedlabPlugin.cmake COPYONLY)

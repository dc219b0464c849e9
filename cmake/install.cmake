# `cmake --install`: the public API's headers, the layer libraries, the self-registering components (the
# built-in policies, trace formats and placement strategies, as object files, so their
# registration survives), the schedlab executable and the package
# config for find_package(schedlab) with targets schedlab::<layer> and schedlab_add_policy().
include(CMakePackageConfigHelpers)

set(SCHEDLAB_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/schedlab)

# The public API: the headers a plug-in policy includes, and those a program that drives runs
# includes (as the consumer of tests/install and the Python module's bindings do), with every
# header they include in turn. The library's other headers (the attempt log, the invariant
# observer, the sharing and tenant metrics, the cluster models, the workflows' internals, ...)
# are not installed. A header added to include/schedlab/ is installed only when one of these
# reaches it.
set(SCHEDLAB_PUBLIC_API_ROOTS
    # plug-in policies (include/schedlab/plugin.hpp, docs/plugins.md)
    plugin.hpp policy.hpp policy_kit.hpp greedy_policy.hpp availability_profile.hpp
    typed_availability.hpp placement_strategy.hpp error.hpp
    # runs, traces, sweeps and checks driven from a program
    simulation.hpp trace.hpp trace_filter.hpp trace_writer.hpp synthetic.hpp resample.hpp
    cluster.hpp sweep.hpp regression_check.hpp policy_contract.hpp metric_catalog.hpp
    run_option_table.hpp error_kind.hpp version.hpp json_text.hpp csv.hpp output.hpp
    printable.hpp)

# schedlab_header_closure(OUT ROOTS...): ROOTS and every include/schedlab header they include,
# directly or not ("#include "schedlab/NAME.hpp"" lines), sorted.
function(schedlab_header_closure out)
  set(pending ${ARGN})
  set(reached "")
  while(pending)
    list(POP_FRONT pending header)
    if(header IN_LIST reached)
      continue()
    endif()
    set(path ${PROJECT_SOURCE_DIR}/include/schedlab/${header})
    if(NOT EXISTS ${path})
      message(FATAL_ERROR "cmake/install.cmake: include/schedlab/${header} does not exist")
    endif()
    list(APPEND reached ${header})
    file(STRINGS ${path} lines REGEX "^#include \"schedlab/[A-Za-z0-9_]+\\.hpp\"")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^#include \"schedlab/([A-Za-z0-9_]+\\.hpp)\".*" "\\1" included
                           "${line}")
      list(APPEND pending ${included})
    endforeach()
  endwhile()
  list(SORT reached)
  set(${out} ${reached} PARENT_SCOPE)
endfunction()

schedlab_header_closure(SCHEDLAB_PUBLIC_HEADERS ${SCHEDLAB_PUBLIC_API_ROOTS})
list(TRANSFORM SCHEDLAB_PUBLIC_HEADERS PREPEND ${PROJECT_SOURCE_DIR}/include/schedlab/)
install(FILES ${SCHEDLAB_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/schedlab)
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

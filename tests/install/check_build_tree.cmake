# ctest plugin_build_tree: builds the plug-in folder PLUGIN_DIR (examples/plugin-policy) against
# the build tree's package (-Dschedlab_DIR=BUILD_DIR, nothing installed), runs its contract tests
# and replays a small trace with its policy through the build tree's schedlab.
# Inputs (-D): BUILD_DIR, WORK_DIR, PLUGIN_DIR, SCHEDLAB (the executable), CXX_COMPILER,
# BUILD_TYPE, and optionally LAUNCHER and CXX_FLAGS (as check_install.cmake).
foreach(var BUILD_DIR WORK_DIR PLUGIN_DIR SCHEDLAB CXX_COMPILER BUILD_TYPE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_build_tree.cmake: -D${var}=... is required")
  endif()
endforeach()

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
  endif()
  message(STATUS "${what}: ok")
  set(STEP_OUTPUT "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(configure_args -Dschedlab_DIR=${BUILD_DIR} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
                   -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON)
if(LAUNCHER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
if(CXX_FLAGS)
  list(APPEND configure_args "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}")
endif()
run_step("configure plug-in" ${CMAKE_COMMAND} -S ${PLUGIN_DIR} -B ${WORK_DIR}/plugin ${configure_args})
run_step("build plug-in" ${CMAKE_COMMAND} --build ${WORK_DIR}/plugin)
run_step("plug-in contract test" ${CMAKE_CTEST_COMMAND} --test-dir ${WORK_DIR}/plugin
         --output-on-failure)
foreach(test smallest_first_contract smallest_first_preemptive_contract)
  if(NOT STEP_OUTPUT MATCHES "${test} [.]+ +Passed")
    message(FATAL_ERROR "plug-in contract test ${test} did not pass:\n${STEP_OUTPUT}")
  endif()
endforeach()
# Two 1-GPU jobs pass a 4-GPU job that waits for the whole node: smallest-first starts them first.
file(WRITE ${WORK_DIR}/t.csv "id,submit_time,gpus,duration\nrunning,0,2,100\nbig,10,4,50\nsmall,20,1,30\ntiny,30,1,30\n")
run_step("run plug-in policy" ${SCHEDLAB} run -q --plugin ${WORK_DIR}/plugin/libsmallest_first.so
         -p smallest-first -t ${WORK_DIR}/t.csv -c 1x4:V100 -o ${WORK_DIR}/run)
file(READ ${WORK_DIR}/run/jobs.csv jobs)
foreach(row "big,10.000,4,[0-9.]+,100.000,50.000,150.000" "small,20.000,1,[0-9.]+,20.000,30.000,50.000"
            "tiny,30.000,1,[0-9.]+,30.000,30.000,60.000")
  if(NOT jobs MATCHES "${row}")
    message(FATAL_ERROR "plug-in run: no jobs.csv row matching '${row}':\n${jobs}")
  endif()
endforeach()
message(STATUS "plug-in run: ok")

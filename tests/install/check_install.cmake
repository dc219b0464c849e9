# ctest install_consumer: installs the build tree into a fresh prefix, builds the outside
# project tests/install/consumer against it with find_package(schedlab), and runs it; then
# builds the plug-in folder PLUGIN_DIR (examples/plugin-policy) against the same prefix and
# replays a small trace with its policy through the installed schedlab.
# Inputs (-D): BUILD_DIR, WORK_DIR, SOURCE_DIR (the consumer), PLUGIN_DIR, CXX_COMPILER,
# BUILD_TYPE, and optionally LAUNCHER (a compiler launcher such as ccache) and CXX_FLAGS (the
# sanitizer flags of a sanitizer build, which the installed libraries need at link time too).
foreach(var BUILD_DIR WORK_DIR SOURCE_DIR PLUGIN_DIR CXX_COMPILER BUILD_TYPE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_install.cmake: -D${var}=... is required")
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
set(prefix ${WORK_DIR}/prefix)
run_step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
# The public API only (cmake/install.cmake): the headers plug-ins and programs driving runs
# include, not the library's internal ones.
foreach(header plugin.hpp policy_kit.hpp simulation.hpp regression_check.hpp observer.hpp)
  if(NOT EXISTS ${prefix}/include/schedlab/${header})
    message(FATAL_ERROR "install: the public header schedlab/${header} was not installed")
  endif()
endforeach()
foreach(header attempt_log.hpp invariant_observer.hpp tenant_metrics.hpp sharing_metrics.hpp
               speed_model.hpp report_svg.hpp sweep_steps.hpp board_standing.hpp)
  if(EXISTS ${prefix}/include/schedlab/${header})
    message(FATAL_ERROR "install: the internal header schedlab/${header} was installed")
  endif()
endforeach()
message(STATUS "public headers only: ok")
set(configure_args -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
                   -DCMAKE_BUILD_TYPE=${BUILD_TYPE})
if(LAUNCHER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
if(CXX_FLAGS)
  list(APPEND configure_args "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}")
endif()
run_step("configure consumer" ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build ${configure_args})
run_step("build consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run_step("run consumer" ${WORK_DIR}/build/consumer)
message(STATUS "${STEP_OUTPUT}")

# The plug-in: a folder with one .cpp and a CMakeLists.txt calling schedlab_add_policy.
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
run_step("run plug-in policy" ${prefix}/bin/schedlab run -q --plugin ${WORK_DIR}/plugin/libsmallest_first.so
         -p smallest-first -t ${WORK_DIR}/t.csv -c 1x4:V100 -o ${WORK_DIR}/run)
file(READ ${WORK_DIR}/run/jobs.csv jobs)
foreach(row "big,10.000,4,[0-9.]+,100.000,50.000,150.000" "small,20.000,1,[0-9.]+,20.000,30.000,50.000"
            "tiny,30.000,1,[0-9.]+,30.000,30.000,60.000")
  if(NOT jobs MATCHES "${row}")
    message(FATAL_ERROR "plug-in run: no jobs.csv row matching '${row}':\n${jobs}")
  endif()
endforeach()
message(STATUS "plug-in run: ok")

# The Python module from the install tree (builds with SCHEDLAB_PYTHON): the package imports from
# PREFIX/PYTHON_DIR, replays a trace with a Python policy, and the installed executable runs a
# Python policy file with the installed package.
if(PYTHON)
  set(ENV{PYTHONPATH} ${prefix}/${PYTHON_DIR})
  file(WRITE ${WORK_DIR}/smallest_first.py
"class SmallestFirst:
    \"\"\"Fewest GPUs first, then submit time; nothing blocks.\"\"\"
    def schedule(self, ctx, decisions):
        for job in sorted(ctx.queue, key=lambda j: (ctx.job(j).gpus, ctx.job(j).submit_ms, j)):
            decisions.try_start(job)
")
  run_step("python import from the install tree" ${PYTHON} -c
"import sys, schedlab
sys.path.insert(0, '${WORK_DIR}')
from smallest_first import SmallestFirst
assert schedlab.__file__.startswith('${prefix}/'), schedlab.__file__
r = schedlab.run('${WORK_DIR}/t.csv', '1x4:V100', SmallestFirst)
print(r.summary['policy'], list(r.jobs['job_id']), list(r.jobs['starting_time']))")
  if(NOT STEP_OUTPUT MATCHES "py:smallest_first.SmallestFirst \\['running', 'big', 'small', 'tiny'\\] \\[0.0, 100.0, 20.0, 30.0\\]")
    message(FATAL_ERROR "python run from the install tree: unexpected output:\n${STEP_OUTPUT}")
  endif()
  unset(ENV{PYTHONPATH})
  run_step("installed schedlab runs a Python policy" ${prefix}/bin/schedlab run -q --json
           -p py:${WORK_DIR}/smallest_first.py:SmallestFirst -t ${WORK_DIR}/t.csv -c 1x4:V100)
  if(NOT STEP_OUTPUT MATCHES "\"policy\": \"py:${WORK_DIR}/smallest_first.py:SmallestFirst\"")
    message(FATAL_ERROR "installed schedlab with a Python policy: unexpected output:\n${STEP_OUTPUT}")
  endif()
  message(STATUS "python from the install tree: ok")
endif()

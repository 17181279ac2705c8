# hone_add_gtest_suites(TARGET LABEL TIMEOUT): one ctest test per GoogleTest
# suite of TARGET, named LABEL:Suite and run as
# `TARGET --gtest_filter=Suite.*`, instead of gtest_discover_tests' one
# process per test.
#
# Why: an integration suite's tests share what their process started once
# (the oracle, a warm evaluator, a precompiled header), so one process per
# test paid for Python and torch again for every test. On 2 cores the
# integration tests took 2314 s of test time as 306 processes and 756 s run
# as one (docs/PERFORMANCE.md, "Test command"). A suite is still a unit ctest
# can run beside others, and its output names the failing test.
#
# The suites are listed after each build of TARGET (like gtest_discover_tests'
# POST_BUILD mode), so a new suite is registered without touching CMake.
set(HONE_GTEST_SUITES_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/gtest_suites_list.cmake)

function(hone_add_gtest_suites target label timeout)
  set(ctest_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake")
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -D "BINARY=$<TARGET_FILE:${target}>" -D "OUT=${ctest_file}"
            -D "LABEL=${label}" -D "TIMEOUT=${timeout}" -P "${HONE_GTEST_SUITES_SCRIPT}"
    BYPRODUCTS ${ctest_file}
    VERBATIM)
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites_include.cmake")
  file(WRITE ${include_file}
    "if(EXISTS \"${ctest_file}\")\n"
    "  include(\"${ctest_file}\")\n"
    "else()\n"
    "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${include_file})
endfunction()

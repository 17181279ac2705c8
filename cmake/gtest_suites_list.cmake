# Script mode (cmake -P), run after each build of a test program by
# hone_add_gtest_suites (gtest_suites.cmake): lists BINARY's suites and
# writes OUT, the ctest file that registers one test per suite.
#   BINARY   the GoogleTest program
#   OUT      the file to write
#   LABEL    the tests' ctest label, also their names' prefix ("unit:Suite"):
#            two programs may have suites of the same name
#   TIMEOUT  each suite's ctest timeout in seconds
execute_process(COMMAND "${BINARY}" --gtest_list_tests
  OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE rc TIMEOUT 60)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${BINARY} --gtest_list_tests failed (${rc}): ${errors}")
endif()

# A suite's line starts in column 0 and ends its name with '.', sometimes
# followed by "  # TypeParam = ..."; its tests' lines are indented.
string(REPLACE ";" "\\;" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")
set(suites "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([A-Za-z_][A-Za-z0-9_/]*)\\.")
    list(APPEND suites "${CMAKE_MATCH_1}")
  endif()
endforeach()
list(REMOVE_DUPLICATES suites)
if(suites STREQUAL "")
  message(FATAL_ERROR "${BINARY} lists no test suites")
endif()

set(text "")
foreach(suite IN LISTS suites)
  set(name "${LABEL}:${suite}")
  string(APPEND text
    "add_test([==[${name}]==] [==[${BINARY}]==] [==[--gtest_filter=${suite}.*]==])\n"
    "set_tests_properties([==[${name}]==] PROPERTIES LABELS [==[${LABEL}]==] "
    "TIMEOUT ${TIMEOUT})\n")
endforeach()
file(WRITE "${OUT}" "${text}")

# staticnet_doctest_tests(<target> TEST_PREFIX <prefix> [PROPERTIES <name> <value>...])
#
# Every doctest case of <target> as a CTest test of its own (doctest_discover_tests), with a
# guard: CTest runs each case as `<target> --test-case=<name>`, and a name that does not reach
# doctest whole (a ';' in it splits the CMake list) selects no case at all, which doctest reports
# as a success. Six cases went unrun that way; a run of no case now fails.
function(staticnet_doctest_tests target)
  cmake_parse_arguments(arg "" "TEST_PREFIX" "PROPERTIES" ${ARGN})
  doctest_discover_tests(${target} TEST_PREFIX "${arg_TEST_PREFIX}"
                         PROPERTIES FAIL_REGULAR_EXPRESSION "test cases: +0 " ${arg_PROPERTIES})
endfunction()

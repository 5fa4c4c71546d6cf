# staticnet_run_test(NAME <test> PROGRAM <program> WORKDIR <dir> RC <status> ARGS <arg>...
#                    [STDOUT <regex>...] [STDERR <regex>...] [EMPTY_STDOUT])
# registers a CTest test that runs <program> (a path or a generator expression) with <args> in
# <dir> and passes only if its exit status is <status> and every regular expression matches its
# stdout or stderr (expect_run.cmake is the driver). Regular expressions avoid "[": CMake lists
# do not split inside square brackets.
set(staticnet_expect_run "${CMAKE_CURRENT_LIST_DIR}/expect_run.cmake")

function(staticnet_run_test)
  cmake_parse_arguments(PARSE_ARGV 0 T "EMPTY_STDOUT" "NAME;PROGRAM;WORKDIR;RC" "ARGS;STDOUT;STDERR")
  list(JOIN T_ARGS "::" args)
  set(defines -DCOMMAND=${T_PROGRAM}::${args} -DWORKDIR=${T_WORKDIR} -DEXPECT_RC=${T_RC})
  if(T_STDOUT)
    list(JOIN T_STDOUT "::" patterns)
    list(APPEND defines "-DEXPECT_STDOUT=${patterns}")
  endif()
  if(T_STDERR)
    list(JOIN T_STDERR "::" patterns)
    list(APPEND defines "-DEXPECT_STDERR=${patterns}")
  endif()
  if(T_EMPTY_STDOUT)
    list(APPEND defines -DEMPTY_STDOUT=ON)
  endif()
  add_test(NAME ${T_NAME} COMMAND ${CMAKE_COMMAND} ${defines} -P ${staticnet_expect_run})
endfunction()

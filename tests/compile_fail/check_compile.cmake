# Driver of one compile check (see cmake/StaticnetCompileFail.cmake):
#   cmake -DCONFIG=<build>/compile_checks/<name>.cmake -P check_compile.cmake
# CONFIG sets NAME, COMPILER, FLAGS, SOURCE, EXPECT (fail|succeed), FIRST_LINES, LOG, PATTERNS,
# EXPLAINED; -DEXPLAIN_TOOL=<staticnet> runs `staticnet explain LOG` against EXPLAINED.
cmake_minimum_required(VERSION 3.25)
if(NOT CONFIG OR NOT EXISTS "${CONFIG}")
  message(FATAL_ERROR "check_compile: pass -DCONFIG=<file> (got '${CONFIG}')")
endif()
include("${CONFIG}")

# Plain ASCII quotes and English messages, whatever the machine's locale.
set(ENV{LC_ALL} C)
set(ENV{LANG} C)

execute_process(
  COMMAND "${COMPILER}" ${FLAGS} "${SOURCE}"
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE output
  ERROR_VARIABLE output)
file(WRITE "${LOG}" "${output}")

string(JOIN " " command "${COMPILER}" ${FLAGS} "${SOURCE}")
message("command: ${command}")
message("exit status: ${rc}; full output: ${LOG}")

if(NOT rc MATCHES "^[0-9]+$")
  message(FATAL_ERROR "the compiler did not run: ${rc}")
endif()

if(EXPECT STREQUAL "succeed")
  if(NOT rc EQUAL 0)
    message("---- output (must compile, did not) ----\n${output}")
    message(FATAL_ERROR "${NAME}: expected to compile; it did not")
  endif()
  message("${NAME}: compiled, as expected")
  return()
endif()

if(rc EQUAL 0)
  message(FATAL_ERROR "${NAME}: expected a compile error; the source compiled")
endif()

# The first FIRST_LINES lines, walked with string(FIND) rather than turned into a list: the
# output is full of ';', '[' and ']', which CMake lists do not survive.
set(head "")
set(rest "${output}")
set(lines 0)
while(lines LESS FIRST_LINES AND NOT rest STREQUAL "")
  string(FIND "${rest}" "\n" newline)
  if(newline EQUAL -1)
    string(APPEND head "${rest}")
    set(rest "")
  else()
    math(EXPR cut "${newline} + 1")
    string(SUBSTRING "${rest}" 0 ${cut} line)
    string(APPEND head "${line}")
    string(SUBSTRING "${rest}" ${cut} -1 rest)
  endif()
  math(EXPR lines "${lines} + 1")
endwhile()

set(missing "")
foreach(pattern IN LISTS PATTERNS)
  if(NOT head MATCHES "${pattern}")
    string(APPEND missing "  ${pattern}\n")
  endif()
endforeach()

string(LENGTH "${output}" total_chars)
if(missing)
  message("---- first ${FIRST_LINES} lines of ${total_chars} characters ----\n${head}"
          "---- end ----")
  message(FATAL_ERROR "${NAME}: compilation failed as expected, but these patterns are not "
                      "in the first ${FIRST_LINES} lines:\n${missing}")
endif()
message("${NAME}: failed to compile as expected; all patterns in the first ${FIRST_LINES} "
        "lines (${total_chars} characters of output in all)")

# One mistake, one error: follow-on errors (each planning stage that reads the failed graph
# complaining in turn, with the whole model type spelt out) would bury the one that explains it.
string(REGEX MATCHALL ": error:" errors "${output}")
list(LENGTH errors error_count)
if(NOT error_count EQUAL 1)
  message(FATAL_ERROR "${NAME}: expected one error, the compiler reported ${error_count}")
endif()

if(EXPLAINED)
  execute_process(COMMAND "${EXPLAIN_TOOL}" explain "${LOG}" RESULT_VARIABLE explain_rc
                  OUTPUT_VARIABLE explained ERROR_VARIABLE explained)
  message("staticnet explain: exit ${explain_rc}\n${explained}")
  set(missing "")
  foreach(pattern IN LISTS EXPLAINED)
    if(NOT explained MATCHES "${pattern}")
      string(APPEND missing "  ${pattern}\n")
    endif()
  endforeach()
  if(NOT explain_rc EQUAL 0 OR missing)
    message(FATAL_ERROR "${NAME}: staticnet explain did not say (exit ${explain_rc}):\n${missing}")
  endif()
endif()

# Runs one libFuzzer target for a short, bounded time: over a fresh copy of its committed corpus
# (libFuzzer adds new inputs to the first corpus directory it is given, and the committed corpus
# must stay as it is), then on new inputs until MAX_TOTAL_TIME seconds or RUNS runs. Fails on any
# crash, sanitizer report, leak, timeout or out-of-memory; the input is left in WORK_DIR/artifacts.
#
#   cmake -DFUZZER=<executable> -DCORPUS=<dir> -DWORK_DIR=<dir> [-DDICT=<file>]
#         [-DMAX_TOTAL_TIME=10] [-DRUNS=2000000] [-DMAX_LEN=4096] -P run_fuzzer.cmake
foreach(required FUZZER CORPUS WORK_DIR)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "run_fuzzer.cmake: -D${required}=... is required")
  endif()
endforeach()
if(NOT DEFINED MAX_TOTAL_TIME)
  set(MAX_TOTAL_TIME 10)
endif()
if(NOT DEFINED RUNS)
  set(RUNS 2000000)
endif()
if(NOT DEFINED MAX_LEN)
  set(MAX_LEN 4096)
endif()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/corpus ${WORK_DIR}/artifacts)
file(GLOB seeds ${CORPUS}/*)
if(NOT seeds)
  message(FATAL_ERROR "run_fuzzer.cmake: no seeds in ${CORPUS}")
endif()
file(COPY ${seeds} DESTINATION ${WORK_DIR}/corpus)

set(args -max_total_time=${MAX_TOTAL_TIME} -runs=${RUNS} -max_len=${MAX_LEN} -timeout=10
         -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1
         -artifact_prefix=${WORK_DIR}/artifacts/)
if(DEFINED DICT AND NOT DICT STREQUAL "")
  list(APPEND args -dict=${DICT})
endif()
execute_process(COMMAND ${FUZZER} ${args} ${WORK_DIR}/corpus RESULT_VARIABLE rc)
file(GLOB artifacts ${WORK_DIR}/artifacts/*)
if(NOT rc EQUAL 0 OR artifacts)
  message(FATAL_ERROR "${FUZZER} failed (exit status ${rc}); the input that made it fail: "
                      "${artifacts}")
endif()

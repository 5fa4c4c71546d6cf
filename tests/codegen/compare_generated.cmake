# The emitted files kept in the tree (samples/generated/<model>/) against what this build's
# generator just wrote: an emitter change must show up as a diff in a commit, reviewed like code.
#   cmake -DKEPT=<kept dir> -DFRESH=<build output dir> -DCLANG_FORMAT=<program> -DSTYLE=<file>
#         -DSCRATCH=<dir> -P compare_generated.cmake
# The build formats what it generates with CLANG_FORMAT (staticnet_model()). The kept files are
# formatted by the clang-format of Debian 12, which CI and scripts/update-generated.sh use
# (reference_version): with that one they are compared as they are, so a kept file that was not
# formatted fails. With another version each kept file goes through it first: its own choices are
# not an emitter change. Without a clang-format the build's files are unformatted and cannot be
# compared: the test says it is skipped.
cmake_minimum_required(VERSION 3.25)
set(reference_version 14)
if(NOT CLANG_FORMAT)
  message("skipped: no clang-format 14 or later was found when this build was configured, so the "
          "generated files are unformatted and the kept ones are formatted")
  return()
endif()
execute_process(COMMAND "${CLANG_FORMAT}" --version OUTPUT_VARIABLE version_text)
string(REGEX MATCH "version ([0-9]+)" ignored "${version_text}")
set(as_kept FALSE)
if(CMAKE_MATCH_1 EQUAL reference_version)
  set(as_kept TRUE)
endif()
file(GLOB kept RELATIVE "${KEPT}" "${KEPT}/*")
file(GLOB fresh RELATIVE "${FRESH}" "${FRESH}/*")
if(NOT fresh)
  message(FATAL_ERROR "nothing generated in ${FRESH}: build the samples first")
endif()
set(problems "")
foreach(name IN LISTS fresh)
  if(NOT name IN_LIST kept)
    string(APPEND problems "${name}: generated, but not kept in ${KEPT}\n")
    continue()
  endif()
  set(compared "${KEPT}/${name}")
  if(NOT as_kept)
    set(compared "${SCRATCH}/${name}")
    execute_process(COMMAND "${CLANG_FORMAT}" --style=file:${STYLE} --assume-filename=${name}
                    INPUT_FILE "${KEPT}/${name}" OUTPUT_FILE "${compared}" RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${CLANG_FORMAT} failed on ${KEPT}/${name}")
    endif()
  endif()
  execute_process(COMMAND diff -u "${compared}" "${FRESH}/${name}" OUTPUT_VARIABLE diff
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    string(APPEND problems "${name} differs:\n${diff}\n")
  endif()
endforeach()
# A build without the CUDA backend writes no CUDA files; the kept ones are then not compared.
set(cuda_files "_kernels\\.cu$|_kernels_cuda\\.h$|_trainer_cuda\\.cpp$|_infer_cuda\\.cpp$")
set(fresh_cuda "${fresh}")
list(FILTER fresh_cuda INCLUDE REGEX "${cuda_files}")
foreach(name IN LISTS kept)
  if(NOT fresh_cuda AND name MATCHES "${cuda_files}")
    continue()
  endif()
  if(NOT name IN_LIST fresh)
    string(APPEND problems "${name}: kept, but no longer generated\n")
  endif()
endforeach()
if(problems)
  message(FATAL_ERROR "${problems}If the change is intended, update the kept files with "
                      "scripts/update-generated.sh and commit them with the emitter change.")
endif()

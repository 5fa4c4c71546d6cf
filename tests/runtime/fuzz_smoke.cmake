# Short libFuzzer runs of the runtime's parsers as CTest tests, when the fuzz targets were built
# (STATICNET_BUILD_FUZZERS with clang++: the `asan` and `clang` presets): each target runs over a fresh
# copy of its committed corpus (codegen/runtime/fuzz/corpus/<format>/) plus about 10 s of new
# inputs, and the test fails on any crash, sanitizer report, leak, timeout or huge allocation.
set(staticnet_fuzz_source_dir ${PROJECT_SOURCE_DIR}/codegen/runtime/fuzz)
foreach(staticnet_fuzz_format idx cifar npy csv safetensors)
  set(staticnet_fuzz_target staticnet_fuzz_${staticnet_fuzz_format})
  if(NOT TARGET ${staticnet_fuzz_target})
    continue()
  endif()
  set(staticnet_fuzz_dict ${staticnet_fuzz_source_dir}/dict/${staticnet_fuzz_format}.dict)
  if(NOT EXISTS ${staticnet_fuzz_dict})
    set(staticnet_fuzz_dict "")
  endif()
  set(staticnet_fuzz_max_len 4096)
  if(staticnet_fuzz_format STREQUAL "cifar")
    set(staticnet_fuzz_max_len 16384)  # 3073-byte records: room for a few of them
  endif()
  add_test(NAME runtime/fuzz_smoke/${staticnet_fuzz_format}
           COMMAND ${CMAKE_COMMAND}
                   -DFUZZER=$<TARGET_FILE:${staticnet_fuzz_target}>
                   -DCORPUS=${staticnet_fuzz_source_dir}/corpus/${staticnet_fuzz_format}
                   -DDICT=${staticnet_fuzz_dict}
                   -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/fuzz_smoke/${staticnet_fuzz_format}
                   -DMAX_TOTAL_TIME=10 -DRUNS=2000000 -DMAX_LEN=${staticnet_fuzz_max_len}
                   -P ${staticnet_fuzz_source_dir}/run_fuzzer.cmake)
  # One fuzzer at a time (each is a sanitized process using a core and a few hundred MB).
  set_tests_properties(runtime/fuzz_smoke/${staticnet_fuzz_format} PROPERTIES
                       TIMEOUT 180 LABELS fuzz RESOURCE_LOCK staticnet_fuzzers)
endforeach()

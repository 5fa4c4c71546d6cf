# The CUDA trainer on a GPU (CTest label gpu): a few steps on synthetic data must report the arena
# as the plan to the byte, and the same training run with the step captured as a CUDA graph and
# launched kernel by kernel (STATICNET_CUDA_GRAPHS=0) must save identical checkpoints. Where there
# is no GPU the trainer says "no CUDA device" and the test reports itself skipped.
#   cmake -DTRAINER=<NAME_trainer_cuda> -DWORKDIR=<dir> -P cuda_trainer.cmake
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY "${WORKDIR}")
file(REMOVE "${WORKDIR}/graph.safetensors" "${WORKDIR}/launches.safetensors")  # fresh runs
set(args --data synthetic:1024 --epochs 2 --seed 3 --progress none)
execute_process(COMMAND "${TRAINER}" ${args} --save "${WORKDIR}/graph.safetensors"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(err MATCHES "no CUDA device")
  message("STATICNET_SKIP: ${err}")
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the CUDA trainer failed (${rc}):\n${out}\n${err}")
endif()
if(NOT out MATCHES "device memory, one cudaMalloc[^\n]*: the plan to the byte")
  message(FATAL_ERROR "the arena is not reported as the plan to the byte:\n${out}")
endif()
set(ENV{STATICNET_CUDA_GRAPHS} 0)
execute_process(COMMAND "${TRAINER}" ${args} --save "${WORKDIR}/launches.safetensors"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out2 ERROR_VARIABLE err2)
if(NOT rc EQUAL 0 OR NOT out2 MATCHES "launch by launch")
  message(FATAL_ERROR "the launch-by-launch run failed (${rc}):\n${out2}\n${err2}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${WORKDIR}/graph.safetensors"
                        "${WORKDIR}/launches.safetensors" RESULT_VARIABLE differ)
if(differ)
  message(FATAL_ERROR "graph replay and launch by launch saved different checkpoints")
endif()
message("${out}")

# One MLPerf Tiny model's quantizer run end to end on a checkpoint of its FP32 trainer (one epoch
# on synthetic data: the weights are a trained model's, not a good one's): every layer kind of the
# four models (depthwise and strided convolutions, residual sums, MEAN, average pools, chains of
# Linear) through calibration, quantization and the int8 model's evaluation. A classifier's int8
# model must pick the float model's class on at least 90% of the evaluation samples; a
# regression's (REGRESSION: the autoencoder) mean squared error must be within 10% of the float
# one's.
#   cmake -DTRAINER=<NAME_trainer_cpu> -DQUANTIZE=<int8_NAME_quantize> -DWORK=<dir>
#         [-DREGRESSION=ON] -P this
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY "${WORK}")
file(REMOVE "${WORK}/model.safetensors")
execute_process(COMMAND ${TRAINER} --data synthetic:1024 --epochs 1 --threads 2 --progress none
                        --save ${WORK}/model.safetensors
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "training failed (${rc}):\n${out}${err}")
endif()
set(regression)
if(REGRESSION)
  set(regression --regression)
endif()
execute_process(COMMAND ${QUANTIZE} --weights ${WORK}/model.safetensors --calibration synthetic:32
                        --data synthetic:32:seed=1 --output ${WORK}/model.cpp ${regression}
                        --report ${WORK}/report.json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the quantizer failed (${rc})")
endif()
file(READ "${WORK}/report.json" report)
if(REGRESSION)
  # As millionths (math() has no floating point): int8's error at most 1.1 times float's.
  foreach(kind float int8)
    string(JSON error GET "${report}" evaluation ${kind}_error)
    if(NOT error MATCHES "^([0-9]+)\\.([0-9]*)$")
      message(FATAL_ERROR "the ${kind} model's error is ${error}")
    endif()
    set(fraction "${CMAKE_MATCH_2}000000")
    string(SUBSTRING "${fraction}" 0 6 fraction)
    math(EXPR ${kind}_millionths "${CMAKE_MATCH_1} * 1000000 + ${fraction}")
  endforeach()
  math(EXPR limit "${float_millionths} * 11 / 10 + 1")
  if(int8_millionths GREATER limit)
    message(FATAL_ERROR "int8's mean squared error (${int8_millionths} millionths) is more than "
                        "1.1 times float's (${float_millionths})")
  endif()
  return()
endif()
string(JSON agreement GET "${report}" evaluation agreement)
if(NOT agreement MATCHES "^(1(\\.0*)?|0\\.9[0-9]*)$")
  message(FATAL_ERROR "the int8 model agrees with the float one on only ${agreement} of the "
                      "samples")
endif()

# One model of tests/reference/int8_quantizer/ through its generated quantizer, checked against
# TensorFlow Lite's converter and interpreter on the same float weights and samples
# (quantizer_check.cpp):
#   1. calibrated on the fixture's samples: the ranges as the converter's calibration records
#      them, up to the order of float sums;
#   2. from the converter's own ranges (--ranges): every scale, zero point, int8 weight and int32
#      bias as the converter's, and every evaluation output byte as TensorFlow Lite Micro's.
#   cmake -DQUANTIZE=<int8_NAME_quantize> -DCHECK=<int8_quantizer_check> -DFIXTURE=<folder>
#         -DWORK=<dir> -P this
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY "${WORK}")
file(REMOVE "${WORK}/calibrated.cpp" "${WORK}/calibrated.json" "${WORK}/ranges.json"
     "${WORK}/model.cpp" "${WORK}/model.json")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    list(GET ARGN 0 program)
    get_filename_component(program "${program}" NAME)
    message(FATAL_ERROR "${program} failed (${rc})")
  endif()
endfunction()

set(model --weights ${FIXTURE}/weights.safetensors --data ${FIXTURE}/evaluation.npy)
run(${QUANTIZE} ${model} --calibration ${FIXTURE}/calibration.npy
    --output ${WORK}/calibrated.cpp --report ${WORK}/calibrated.json)
run(${CHECK} calibration ${WORK}/calibrated.json ${FIXTURE}/tflite.json)
run(${CHECK} ranges ${WORK}/calibrated.json ${FIXTURE}/tflite.json ${WORK}/ranges.json)
run(${QUANTIZE} ${model} --ranges ${WORK}/ranges.json --output ${WORK}/model.cpp
    --report ${WORK}/model.json)
run(${CHECK} exact ${WORK}/model.json ${FIXTURE}/tflite.json)

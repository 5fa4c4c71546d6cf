# The firmware path end to end, on scikit-learn's digits (samples/digits/):
#   1. the generated FP32 trainer trains samples/digits_cnn.hpp's DigitsCNN (20 epochs, seed 0);
#   2. digits_int8_quantize quantizes its checkpoint, calibrated on the training images, and
#      scores the float and the int8 model on the 360 held-out images: the int8 accuracy must be
#      within 1 percentage point of the float one, and the float one must count the same correct
#      answers as the FP32 inference program (digits_infer_cpu) on the same checkpoint, an
#      independent float path;
#   3. the source it writes is compiled into a Cortex-M7 firmware with digits_int8_mcu.cpp and run
#      on QEMU on the first held-out image: every output byte must be the host's (the same
#      generated code, built for this machine, in the quantizer's evaluation).
#   cmake -DTRAINER=<digits_cnn_trainer_cpu> -DINFER=<digits_infer_cpu>
#         -DQUANTIZE=<digits_int8_quantize> -DDATA=<samples/digits> -DWORK=<dir>
#         -DQEMU_RUN=<tests/int8/cortex_m/run_on_qemu.sh> -DGENERATED=<digits_int8 output dir>
#         -DKERNELS=<codegen/kernels/include> -P this
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY "${WORK}")
file(REMOVE "${WORK}/digits.safetensors" "${WORK}/digits_int8_weights.cpp" "${WORK}/report.json")

function(run output_variable)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    list(GET ARGN 0 program)
    get_filename_component(program "${program}" NAME)
    message(FATAL_ERROR "${program} failed (${rc})")
  endif()
  set(${output_variable} "${out}" PARENT_SCOPE)
endfunction()

set(images ${DATA}/test_images.npy --labels ${DATA}/test_labels.npy)
run(unused ${TRAINER} --data ${DATA}/train_images.npy --labels ${DATA}/train_labels.npy
    --scale 0.0625 --epochs 20 --seed 0 --threads 2 --progress none
    --save ${WORK}/digits.safetensors)
run(quantized ${QUANTIZE} --weights ${WORK}/digits.safetensors
    --calibration ${DATA}/train_images.npy --data ${images}
    --output ${WORK}/digits_int8_weights.cpp --report ${WORK}/report.json)
run(inferred ${INFER} --weights ${WORK}/digits.safetensors --data ${images} --threads 2)

# Accuracies as counts of 360 (math() has no floating point).
if(NOT inferred MATCHES "accuracy [0-9.]+% \\(([0-9]+) of 360\\)")
  message(FATAL_ERROR "the inference program printed no accuracy")
endif()
set(inferred_correct ${CMAKE_MATCH_1})
file(READ "${WORK}/report.json" report)
foreach(kind float int8)
  string(JSON accuracy GET "${report}" evaluation ${kind}_accuracy)
  if(accuracy MATCHES "^1(\\.0*)?$")
    set(${kind}_correct 360)
  else()
    string(REGEX MATCH "^0\\.([0-9]+)" unused "${accuracy}")
    set(digits "${CMAKE_MATCH_1}0000000000")
    string(SUBSTRING "${digits}" 0 6 millionths)
    math(EXPR ${kind}_correct "(${millionths} * 360 + 500000) / 1000000")
  endif()
endforeach()
message("correct of 360: float ${float_correct} (the inference program: ${inferred_correct}), "
        "int8 ${int8_correct}")
if(NOT float_correct EQUAL inferred_correct)
  message(FATAL_ERROR "the quantizer's float model got ${float_correct} of 360 right, the FP32 "
                      "inference program ${inferred_correct}")
endif()
if(float_correct LESS 342)  # 95%, as the trainer's own test asks
  message(FATAL_ERROR "the float model got only ${float_correct} of 360 right")
endif()
math(EXPR lost "${float_correct} - ${int8_correct}")
if(lost GREATER 3)  # 1 percentage point of 360 is 3.6 images
  message(FATAL_ERROR "int8 lost ${lost} of 360 images: more than 1 percentage point")
endif()

# The firmware: the quantizer's source as written, the first held-out image as quantized, and the
# host's int8 output for it.
if(NOT QEMU_RUN)
  return()
endif()
foreach(array int8_inputs int8_outputs)
  string(JSON row GET "${report}" evaluation ${array} 0)
  string(REGEX REPLACE "[][ \n]" "" ${array} "${row}")
endforeach()
file(WRITE "${WORK}/firmware_data.cpp"
     "// Written by digits_end_to_end.cmake: the quantizer's model, one image, the host's output.\n"
     "#include \"${WORK}/digits_int8_weights.cpp\"\n"
     "namespace firmware {\n"
     "const digits_int8::mcu::Model& model = digits_int8::mcu::quantized_model;\n"
     "const std::int8_t input[] = {${int8_inputs}};\n"
     "const std::int8_t expected[] = {${int8_outputs}};\n"
     "}  // namespace firmware\n")
execute_process(COMMAND ${QEMU_RUN} none digits_int8 ${WORK}/firmware_data.cpp ${GENERATED}
                        ${KERNELS} ${WORK}/cortex_m
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(rc EQUAL 77)
  message("STATICNET_SKIP: ${out}")
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "the firmware's output is not the host's (${rc})")
endif()

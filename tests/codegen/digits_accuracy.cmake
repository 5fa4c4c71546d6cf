# Real data: the generated trainer of samples/digits_cnn.hpp on scikit-learn's digits
# (samples/digits/) must reach at least 95% accuracy on the 360 held-out images. Not a timing:
# for a given seed and thread count the run is the same every time. Then the inference program
# (samples/digits_cnn.hpp's DigitsInference, one image at a time) runs the saved checkpoint over
# the same images: it must count the same correct answers as the trainer's evaluation, and write
# every image's 10 scores to a .npy file. The images alone (unlabelled) give the same file, and
# the trainer refuses them.
# INFER may be the CUDA program (digits_infer_cuda): the same checks, on the GPU. EXPECT, where
# given, is a regular expression the trainer's output must match.
#   cmake -DTRAINER=<digits_cnn_trainer_cpu> -DINFER=<digits_infer_cpu> -DDATA=<samples/digits>
#         -DWORK=<dir> -P this
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY "${WORK}")
# A fresh run: the trainer would not replace an earlier run's checkpoint or metrics.
file(REMOVE "${WORK}/digits.safetensors" "${WORK}/metrics.jsonl")
execute_process(
  COMMAND ${TRAINER} --data ${DATA}/train_images.npy --labels ${DATA}/train_labels.npy
          --eval ${DATA}/test_images.npy --eval-labels ${DATA}/test_labels.npy --scale 0.0625
          --epochs 20 --seed 0 --threads 2 --progress none --metrics ${WORK}/metrics.jsonl
          --save ${WORK}/digits.safetensors
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "training failed (${rc}):\n${out}${err}")
endif()
file(STRINGS "${WORK}/metrics.jsonl" lines)
list(GET lines -1 last)
string(JSON accuracy GET "${last}" eval_accuracy)
message("${out}test accuracy after 20 epochs: ${accuracy}")
if(DEFINED EXPECT AND NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "the trainer's output does not match \"${EXPECT}\"")
endif()
if(accuracy LESS 0.95)
  message(FATAL_ERROR "test accuracy ${accuracy} is below 0.95")
endif()
file(REMOVE "${WORK}/metrics.jsonl")

if(NOT INFER)
  return()
endif()
set(threads --threads 2)  # the CPU's compute threads; the CUDA program has none to set
if(INFER MATCHES "_cuda$")
  set(threads)
endif()
file(REMOVE "${WORK}/outputs.npy")
execute_process(
  COMMAND ${INFER} --weights ${WORK}/digits.safetensors --data ${DATA}/test_images.npy
          --labels ${DATA}/test_labels.npy --scale 0.0625 ${threads} --output ${WORK}/outputs.npy
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 AND err MATCHES "no CUDA device")  # the CUDA program, where there is no GPU
  message("STATICNET_SKIP: ${err}")
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "inference failed (${rc}):\n${out}${err}")
endif()
message("${out}")
if(NOT out MATCHES "accuracy [0-9.]+% \\(([0-9]+) of 360\\)")
  message(FATAL_ERROR "the inference program printed no accuracy:\n${out}")
endif()
set(correct "${CMAKE_MATCH_1}")
# The trainer's accuracy (a JSON number) as a count: math() has no floating point.
if(accuracy MATCHES "^1(\\.0*)?$")
  set(trainer_correct 360)
else()
  string(REGEX MATCH "^0\\.([0-9]+)" unused "${accuracy}")
  set(digits "${CMAKE_MATCH_1}0000000000")
  string(SUBSTRING "${digits}" 0 6 millionths)
  math(EXPR trainer_correct "(${millionths} * 360 + 500000) / 1000000")
endif()
# TOLERANCE: answers that may differ from the CPU trainer's (the CUDA program adds in another
# order, and an image on a decision boundary may fall the other way); 0 for the CPU program.
if(NOT TOLERANCE)
  set(TOLERANCE 0)
endif()
math(EXPR difference "${correct} - ${trainer_correct}")
if(difference GREATER TOLERANCE OR difference LESS -${TOLERANCE})
  message(FATAL_ERROR "the inference program got ${correct} of 360 right, the trainer's "
                      "evaluation of the same checkpoint ${trainer_correct}")
endif()
# 360 images x 10 scores, f32, after NumPy's 128-byte header.
file(SIZE "${WORK}/outputs.npy" bytes)
if(NOT bytes EQUAL 14528)
  message(FATAL_ERROR "outputs.npy has ${bytes} bytes, expected 128 + 360 x 10 x 4 = 14528")
endif()
file(READ "${WORK}/outputs.npy" header OFFSET 10 LIMIT 118)  # after the magic's NUL byte
if(NOT header MATCHES "'shape': \\(360, 10\\)")
  message(FATAL_ERROR "outputs.npy's header is not (360, 10): ${header}")
endif()

# The same images without their labels: nothing to score, so --output is required; with it, the
# outputs are those of the labelled run, byte for byte.
execute_process(
  COMMAND ${INFER} --weights ${WORK}/digits.safetensors --data ${DATA}/test_images.npy
          --scale 0.0625 ${threads}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "holds inputs only, so there is nothing to score: pass --output")
  message(FATAL_ERROR "unlabelled data without --output was not refused as a usage error (${rc}):\n"
                      "${out}${err}")
endif()
# A CSV option on .npy data is refused, not ignored.
execute_process(
  COMMAND ${INFER} --weights ${WORK}/digits.safetensors --data ${DATA}/test_images.npy
          --labels ${DATA}/test_labels.npy --no-header ${threads}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "--no-header is an option of CSV data, but .*test_images.npy")
  message(FATAL_ERROR "--no-header on .npy data was not refused (${rc}):\n${out}${err}")
endif()
file(REMOVE "${WORK}/unlabelled.npy")
execute_process(
  COMMAND ${INFER} --weights ${WORK}/digits.safetensors --data ${DATA}/test_images.npy
          --scale 0.0625 ${threads} --output ${WORK}/unlabelled.npy
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "360 samples, no labels" OR out MATCHES "accuracy")
  message(FATAL_ERROR "inference on unlabelled images failed (${rc}):\n${out}${err}")
endif()
file(SHA256 "${WORK}/outputs.npy" labelled)
file(SHA256 "${WORK}/unlabelled.npy" unlabelled)
if(NOT labelled STREQUAL unlabelled)
  message(FATAL_ERROR "the unlabelled run's outputs differ from the labelled run's")
endif()

# The trainer refuses the images alone by name, as a usage error (exit 2): training needs the
# labels.
execute_process(
  COMMAND ${TRAINER} --data ${DATA}/train_images.npy --epochs 1 --progress none
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "train_images.npy holds inputs only; training needs their labels")
  message(FATAL_ERROR "the trainer did not refuse unlabelled data (${rc}):\n${out}${err}")
endif()

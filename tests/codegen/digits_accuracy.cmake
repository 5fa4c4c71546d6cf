# Real data: the generated trainer of samples/digits_cnn.hpp on scikit-learn's digits
# (samples/digits/) must reach at least 95% accuracy on the 360 held-out images. Not a timing:
# for a given seed and thread count the run is the same every time.
#   cmake -DTRAINER=<digits_cnn_trainer_cpu> -DDATA=<samples/digits> -DWORK=<dir> -P this
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY "${WORK}")
execute_process(
  COMMAND ${TRAINER} --data ${DATA}/train_images.npy --labels ${DATA}/train_labels.npy
          --eval ${DATA}/test_images.npy --eval-labels ${DATA}/test_labels.npy --scale 0.0625
          --epochs 20 --seed 0 --threads 2 --progress none --metrics ${WORK}/metrics.jsonl
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "training failed (${rc}):\n${out}${err}")
endif()
file(STRINGS "${WORK}/metrics.jsonl" lines)
list(GET lines -1 last)
string(JSON accuracy GET "${last}" eval_accuracy)
message("${out}test accuracy after 20 epochs: ${accuracy}")
if(accuracy LESS 0.95)
  message(FATAL_ERROR "test accuracy ${accuracy} is below 0.95")
endif()
file(REMOVE "${WORK}/metrics.jsonl")

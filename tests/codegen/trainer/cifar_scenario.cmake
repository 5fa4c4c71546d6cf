# The trainer on a CIFAR-10 binary batch file: 130 records (label byte, then 3×32×32 pixel bytes)
# written here, read by SimpleCNN's generated trainer (batch 128: one batch an epoch, two samples
# waiting for later epochs); then on a CIFAR-100 file, which its 10 classes refuse.
#   cmake -DTRAINER=<simple_cnn_trainer_cpu> -DPYTHON=<python3> -DWORK=<dir> -P this
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND ${PYTHON} -c
  "import sys; open(sys.argv[1], 'wb').write(b''.join(bytes([i % 10]) + bytes([(i * 7 + j) % 256 for j in range(3072)]) for i in range(130)))"
  "${WORK}/data_batch_1.bin" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "could not write the CIFAR file")
endif()
execute_process(COMMAND ${TRAINER} --data "${WORK}/data_batch_1.bin" --epochs 2 --threads 2
                        --progress none
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "cifar10.*130 samples of \\(3, 32, 32\\); 1 batch per epoch"
   OR NOT out MATCHES "2 samples wait for later epochs" OR NOT out MATCHES "epoch 2/2: loss")
  message(FATAL_ERROR "exit status ${rc}\n${out}${err}")
endif()
message("${out}")

# A CIFAR-100 file (a coarse and a fine label byte a record): the 10-class model can train on
# neither its 100 fine nor its 20 coarse classes, and --cifar100-labels reaches the reader.
execute_process(COMMAND ${PYTHON} -c
  "import sys; open(sys.argv[1], 'wb').write(b''.join(bytes([i % 20, i % 100]) + bytes(3072) for i in range(130)))"
  "${WORK}/train.bin" RESULT_VARIABLE rc)
foreach(labels fine coarse)
  execute_process(COMMAND ${TRAINER} --data "${WORK}/train.bin" --format cifar100
                          --cifar100-labels ${labels} --progress none
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(labels STREQUAL "fine")
    set(expected "expected 100 classes, as cifar100's fine labels have")
  else()
    set(expected "expected 20 classes, as cifar100's coarse labels have")
  endif()
  string(FIND "${err}" "${expected}" at)
  if(NOT rc EQUAL 1 OR at EQUAL -1)
    message(FATAL_ERROR "--cifar100-labels ${labels}: exit status ${rc}\n${out}${err}")
  endif()
endforeach()

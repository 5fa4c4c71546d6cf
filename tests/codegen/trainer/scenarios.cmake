# Trainer scenarios over several runs of the program (cmake -P; see CMakeLists.txt here):
#   -DSCENARIO=<name> -DTRAINER=<program> -DDATA=<fixture dir> -DWORK=<scratch dir>
#   -DPYTHON=<python with safetensors> -DCHECK=<check_checkpoint.py>
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(data --data ${DATA}/train.npy --labels ${DATA}/train_labels.npy --threads 2 --progress none)

# Runs the trainer; `expect` is the exit status it must have. Leaves its output in `out`.
function(train expect)
  execute_process(COMMAND ${TRAINER} ${ARGN} WORKING_DIRECTORY "${WORK}" RESULT_VARIABLE rc
                  OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  string(JOIN " " command ${ARGN})
  if(NOT rc EQUAL expect)
    message(FATAL_ERROR "trainer ${command}: exit status ${rc}, expected ${expect}\n"
                        "--- stdout:\n${stdout}--- stderr:\n${stderr}")
  endif()
  set(out "${stdout}${stderr}" PARENT_SCOPE)
endfunction()

if(SCENARIO STREQUAL "resume_bit_for_bit")
  # Two epochs straight, against one epoch, saved, and resumed for the second: the same bytes.
  train(0 ${data} --epochs 2 --save straight.safetensors)
  if(NOT out MATCHES "  weights  PyTorch's default initialisation \\(U\\(±1/√fan_in\\)\\), seed 0\n")
    message(FATAL_ERROR "the run did not say where its weights came from:\n${out}")
  endif()
  train(0 ${data} --epochs 1 --save resumed.safetensors)
  # --seed given again: it cannot apply, and the run says so rather than ignore it silently.
  train(0 ${data} --epochs 2 --resume resumed.safetensors --save resumed.safetensors --seed 5)
  if(NOT out MATCHES "resumed from .*resumed.safetensors at step 3 \\(epoch 2, batch 0\\)")
    message(FATAL_ERROR "the resumed run did not say where it resumed:\n${out}")
  endif()
  if(NOT out MATCHES "note: --seed does not apply with --resume")
    message(FATAL_ERROR "--seed with --resume was ignored silently:\n${out}")
  endif()
  file(SHA256 "${WORK}/straight.safetensors" a)
  file(SHA256 "${WORK}/resumed.safetensors" b)
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "resumed training differs from straight training")
  endif()
  # Resumed on another thread count: the arithmetic changes, and the run says so.
  train(0 --data ${DATA}/train.npy --labels ${DATA}/train_labels.npy --progress none --threads 1
        --epochs 3 --resume resumed.safetensors --save resumed.safetensors)
  string(REGEX REPLACE "\n +" " " flowing "${out}")
  if(NOT flowing MATCHES "the run was computing on CPU, 2 threads, [^;]+; this one on CPU, 1 thread, [^:]+: it goes on from the same state, but its sums round in another order, so from here on it parts from an unbroken run")
    message(FATAL_ERROR "a resume on another thread count was not said:\n${out}")
  endif()

elseif(SCENARIO STREQUAL "loss_scaling")
  # Mixed<f16>: each epoch's line and metrics give the loss scale and the steps it skipped, the
  # checkpoint keeps the scaler, and a resumed run goes on from it bit for bit.
  train(0 ${data} --epochs 2 --save straight.safetensors --metrics straight.jsonl)
  if(NOT out MATCHES "epoch 2/2: loss [0-9.]+, accuracy [0-9.]+% \\| loss scale 65536, 0 steps skipped")
    message(FATAL_ERROR "the epoch's line does not give the loss scale:\n${out}")
  endif()
  file(STRINGS "${WORK}/straight.jsonl" lines)
  list(GET lines 1 second)
  string(JSON scale GET "${second}" loss_scale)
  string(JSON skipped GET "${second}" skipped_steps)
  if(NOT scale EQUAL 65536 OR NOT skipped EQUAL 0)
    message(FATAL_ERROR "the metrics give loss scale ${scale}, ${skipped} skipped:\n${second}")
  endif()
  file(READ "${WORK}/straight.safetensors" header OFFSET 8 LIMIT 4096)  # the JSON header
  if(NOT header MATCHES "\"loss_scale\":\"65536\"" OR
     NOT header MATCHES "\"loss_scale_growth_tracker\":\"6\"" OR
     NOT header MATCHES "\"skipped_steps\":\"0\"")
    message(FATAL_ERROR "the checkpoint does not keep the loss scaler:\n${header}")
  endif()
  train(0 ${data} --epochs 1 --save resumed.safetensors)
  train(0 ${data} --epochs 2 --resume resumed.safetensors --save resumed.safetensors)
  file(SHA256 "${WORK}/straight.safetensors" a)
  file(SHA256 "${WORK}/resumed.safetensors" b)
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "resumed training under loss scaling differs from straight training")
  endif()
  # A checkpoint whose scaler was taken out cannot be resumed: the message names the entry. (sed
  # renames the key in the JSON header, same length; the tensors' bytes pass through.)
  execute_process(COMMAND sed -e "s/\"skipped_steps\"/\"skipped_stepz\"/" resumed.safetensors
                  OUTPUT_FILE "${WORK}/no_scaler.safetensors" WORKING_DIRECTORY "${WORK}"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "sed could not edit the checkpoint's header (${rc})")
  endif()
  train(1 ${data} --epochs 3 --resume no_scaler.safetensors --save no_scaler.safetensors)
  if(NOT out MATCHES "metadata entry 'skipped_steps'")
    message(FATAL_ERROR "a checkpoint without the scaler's entry was not refused by name:\n${out}")
  endif()

elseif(SCENARIO STREQUAL "resume_keeps_settings")
  # The optimizer's settings and the schedule come back from the checkpoint: resumed with none
  # of them given, the run ends with the same bytes as a straight one.
  set(settings --lr 0.05 --momentum 0.5 --weight-decay 0.001 --lr-schedule exponential:0.4)
  train(0 ${data} ${settings} --epochs 2 --save straight.safetensors)
  train(0 ${data} ${settings} --epochs 1 --save resumed.safetensors)
  train(0 ${data} --epochs 2 --resume resumed.safetensors --save resumed.safetensors)
  if(NOT out MATCHES "\\(lr 0.05, x0.4 after every epoch\\)" OR
     NOT out MATCHES "epoch 2/2: lr 0.02,")
    message(FATAL_ERROR "the resumed run did not take the checkpoint's settings:\n${out}")
  endif()
  file(SHA256 "${WORK}/straight.safetensors" a)
  file(SHA256 "${WORK}/resumed.safetensors" b)
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "resumed training differs from straight training")
  endif()

elseif(SCENARIO STREQUAL "diverging_run_keeps_checkpoint")
  # An epoch saved; then a resumed run with an absurd learning rate diverges: it must stop with
  # the step, and the checkpoint must still be the first epoch's, with no temporary file left.
  train(0 ${data} --epochs 1 --save run.safetensors)
  file(SHA256 "${WORK}/run.safetensors" before)
  train(1 ${data} --epochs 30 --lr 1e30 --resume run.safetensors --save run.safetensors)
  if(NOT out MATCHES "the loss is .* at step [0-9]+" OR NOT out MATCHES "holds the last epoch")
    message(FATAL_ERROR "no clear message for the diverging run:\n${out}")
  endif()
  file(SHA256 "${WORK}/run.safetensors" after)
  file(GLOB leftovers "${WORK}/.run.safetensors.staticnet-tmp*")
  if(NOT before STREQUAL after OR leftovers)
    message(FATAL_ERROR "the checkpoint changed or a temporary file was left: ${leftovers}")
  endif()

elseif(SCENARIO STREQUAL "metrics")
  # One JSON object per epoch, with the evaluation when there is one; resuming appends.
  train(0 ${data} --eval ${DATA}/eval.npy --eval-labels ${DATA}/eval_labels.npy --epochs 2
        --metrics metrics.jsonl --save run.safetensors)
  train(0 ${data} --eval ${DATA}/eval.npy --eval-labels ${DATA}/eval_labels.npy --epochs 3
        --metrics metrics.jsonl --resume run.safetensors)
  file(STRINGS "${WORK}/metrics.jsonl" lines)
  list(LENGTH lines count)
  if(NOT count EQUAL 3)
    message(FATAL_ERROR "expected 3 lines of metrics, found ${count}: ${lines}")
  endif()
  set(epoch 0)
  foreach(line IN LISTS lines)
    math(EXPR epoch "${epoch} + 1")
    math(EXPR step "${epoch} * 3")  # 12 samples in batches of 4
    string(JSON e GET "${line}" epoch)
    string(JSON s GET "${line}" step)
    if(NOT e EQUAL epoch OR NOT s EQUAL step)
      message(FATAL_ERROR "line ${epoch}: epoch ${e}, step ${s}: ${line}")
    endif()
    foreach(key learning_rate train_loss train_samples train_accuracy eval_loss eval_accuracy
                samples_per_second)
      string(JSON value ERROR_VARIABLE missing GET "${line}" ${key})
      if(missing)
        message(FATAL_ERROR "line ${epoch} has no ${key}: ${line}")
      endif()
    endforeach()
  endforeach()

elseif(SCENARIO STREQUAL "host_memory")
  # The start-up report states the plan's host bytes (host_net.hpp derives them by hand), and the
  # end of the run what the process grew by: the plan's bytes and the run's own, within what
  # neither covers (the libraries' own: OpenBLAS's packing buffers, thread stacks).
  # Transparent huge pages "always" make a partly touched mapping resident in 2 MiB pieces (the
  # libraries' buffers, thread stacks), which the bound below does not allow for.
  if(EXISTS /sys/kernel/mm/transparent_hugepage/enabled)
    file(READ /sys/kernel/mm/transparent_hugepage/enabled thp)
    if(thp MATCHES "\\[always\\]")
      message("skipped: transparent huge pages are [always] here")
      return()
    endif()
  endif()
  train(0 --data synthetic:512 --epochs 1 --threads 1 --workers 1 --progress none)
  string(REGEX REPLACE "\n +" " " flowing "${out}")
  if(NOT flowing MATCHES "host +planned ([0-9,]+) B [^=]*= the arena ([0-9,]+) B [^+]*\\+ batch slots 3,148,800 B [^+]*\\(3 slots\\) \\+ the checkpoint's copy of the state 25,436,280 B")
    message(FATAL_ERROR "the start-up report does not give the plan's host bytes:\n${out}")
  endif()
  string(REPLACE "," "" planned "${CMAKE_MATCH_1}")
  string(REPLACE "," "" arena "${CMAKE_MATCH_2}")
  math(EXPR sum "${arena} + 3148800 + 25436280")
  if(NOT planned EQUAL sum)
    message(FATAL_ERROR "planned host ${planned} B is not the arena ${arena} + 3,148,800 + 25,436,280 B:\n${out}")
  endif()
  if(NOT flowing MATCHES "the run's own 2,107,392 B")
    message(FATAL_ERROR "the run's own host bytes are not the data set's and the epoch orders':\n${out}")
  endif()
  if(NOT flowing MATCHES "host memory at the end of epoch 1: ")
    if(NOT EXISTS /proc/self/status)
      message("skipped: no /proc/self/status to measure resident memory with")
      return()
    endif()
    message(FATAL_ERROR "the run did not measure its host memory:\n${out}")
  endif()
  if(NOT flowing MATCHES "host memory at the end of epoch 1: (-?[0-9,]+) B more resident [^=]*= planned ([0-9,]+) B \\+ the run's own 2,107,392 B \\+ (-?[0-9,]+) B neither")
    message(FATAL_ERROR "the run did not report its host memory against the plan:\n${out}")
  endif()
  string(REPLACE "," "" measured_planned "${CMAKE_MATCH_2}")
  string(REPLACE "," "" rest "${CMAKE_MATCH_3}")
  if(NOT measured_planned EQUAL planned)
    message(FATAL_ERROR "the end of the run counts ${measured_planned} B planned, the start ${planned}:\n${out}")
  endif()
  # Within 2 MiB below (pages the kernel has not counted yet) and 20 MiB above (11.2 MB on the
  # machine this was written on, not broken down: the likeliest part is OpenBLAS's buffers, which
  # it maps at 128 MiB and touches as far as its GEMMs pack): a part the plan leaves out (the
  # arena, 39 MB), or an extra copy of the state (25 MB), stands outside.
  if(rest LESS -2097152 OR rest GREATER 20971520)
    message(FATAL_ERROR "the process holds ${rest} B more than the plan and the run account for:\n${out}")
  endif()
  message(STATUS "host memory: planned ${planned} B, the rest ${rest} B")

elseif(SCENARIO STREQUAL "corrupt_checkpoint")
  # A checkpoint cut in half (a copy interrupted, a full disk elsewhere): resuming must refuse it
  # by name, not crash or train from garbage.
  train(0 ${data} --epochs 1 --save run.safetensors)
  file(SIZE "${WORK}/run.safetensors" size)
  math(EXPR half "${size} / 2")
  execute_process(COMMAND head -c ${half} run.safetensors OUTPUT_FILE "${WORK}/cut.safetensors"
                  WORKING_DIRECTORY "${WORK}")
  train(1 ${data} --epochs 2 --resume cut.safetensors)
  if(NOT out MATCHES "cut.safetensors")
    message(FATAL_ERROR "the message does not name the truncated checkpoint:\n${out}")
  endif()

elseif(SCENARIO STREQUAL "python_reads_checkpoint")
  train(0 ${data} --epochs 1 --save run.safetensors)
  execute_process(COMMAND ${PYTHON} ${CHECK} "${WORK}/run.safetensors" RESULT_VARIABLE rc
                  OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "Python could not read the checkpoint:\n${stdout}${stderr}")
  endif()
  message("${stdout}")

else()
  message(FATAL_ERROR "unknown scenario ${SCENARIO}")
endif()

# CLI tests: the built `staticnet` binary run on the fixtures in data/cli (make_fixtures.py there
# documents every expected number). Each test checks the exit status and the output
# (tests/support/run_test.cmake).
if(NOT TARGET staticnet_cli)
  return()
endif()

set(staticnet_cli_data ${CMAKE_CURRENT_SOURCE_DIR}/data/cli)
# staticnet_cli_test(<name> RC <status> ARGS <arg>... [STDOUT <regex>...] [STDERR <regex>...]
#                    [EMPTY_STDOUT])
function(staticnet_cli_test name)
  staticnet_run_test(NAME runtime/cli/${name} PROGRAM $<TARGET_FILE:staticnet_cli>
                     WORKDIR ${staticnet_cli_data} ${ARGN})
endfunction()

# ---- data check: good files, counts and balance known by hand --------------------------------
staticnet_cli_test(data_check_idx RC 0 ARGS data check images.idx labels.idx
  STDOUT "format: idx" "samples: 10 of shape \\(4, 4\\), u8" "labels: 3 classes, range 0\\.\\.2"
         "  0: 4  40\\.0%" "  1: 3  30\\.0%" "  2: 3  30\\.0%" "scan: 160 values, no NaN or Inf"
  STDERR "scanning: 100\\.0% \\(10/10 samples")
staticnet_cli_test(data_check_npy_labels_option RC 0
  ARGS data check inputs.npy --labels labels.npy
  STDOUT "format: npy" "samples: 8 of shape \\(2, 3\\), f32" "labels: 4 classes, range 0\\.\\.3"
         "  0: 1  12\\.5%" "  1: 4  50\\.0%" "  2: 1  12\\.5%" "  3: 2  25\\.0%"
         "smallest class: 0 \\(1\\), largest: 1 \\(4\\)")
staticnet_cli_test(data_check_csv RC 0 ARGS data check table.csv
  STDOUT "format: csv" "samples: 6 of shape \\(3,?\\), f32" "labels: 3 classes, range 0\\.\\.2"
         "  0: 1  16\\.7%" "  1: 2  33\\.3%" "  2: 3  50\\.0%")
staticnet_cli_test(data_check_csv_label_column RC 0
  ARGS data check --header --label-column 0 --regression table.csv
  STDOUT "format: csv" "samples: 6 of shape \\(3,?\\), f32" "targets: regression")
staticnet_cli_test(data_check_npy_inputs_alone RC 0 ARGS data check inputs.npy
  STDOUT "format: npy" "samples: 8 of shape \\(2, 3\\), f32"
         "labels: none \\(inputs only: for inference, not training\\)" "scan: 48 values")
staticnet_cli_test(data_check_csv_no_labels RC 0 ARGS data check --no-labels table.csv
  STDOUT "samples: 6 of shape \\(4,?\\), f32" "labels: none" "scan: 24 values")
staticnet_cli_test(data_check_cifar10_by_name RC 0 ARGS data check data_batch_1.bin
  STDOUT "format: cifar10" "samples: 5 of shape \\(3, 32, 32\\), u8"
         "labels: 10 classes, range 0\\.\\.9" "  0: 1  20\\.0%" "  3: 1  20\\.0%" "  9: 3  60\\.0%")
staticnet_cli_test(data_check_progress_off RC 0 ARGS data check --progress off images.idx labels.idx
  STDOUT "samples: 10 of")
staticnet_cli_test(data_check_progress_bar RC 0 ARGS data check --progress bar images.idx labels.idx
  STDERR "scanning \\[#+\\] 100\\.0%  10/10 samples")
staticnet_cli_test(data_check_allow_non_finite RC 0
  ARGS data check --allow-non-finite inputs_nan.npy labels.npy
  STDOUT "scan: 48 values, 1 NaN or Inf \\(allowed\\)")

# ---- data check: bad files exit 1 with the parser's location ---------------------------------
staticnet_cli_test(data_check_truncated_idx RC 1 EMPTY_STDOUT
  ARGS data check truncated_images.idx labels.idx
  STDERR "staticnet: error: truncated_images.idx: byte 171: expected 160 bytes of data"
         "truncated file")
staticnet_cli_test(data_check_cifar_label_out_of_range RC 1 EMPTY_STDOUT
  ARGS data check --format cifar10 bad_label.bin
  STDERR "bad_label.bin: byte 6146: expected a class label in .0, 10\\), found label 10")
staticnet_cli_test(data_check_npy_negative_label RC 1 EMPTY_STDOUT
  ARGS data check inputs.npy labels_negative.npy
  STDERR "labels_negative.npy: byte 168: .*found label -1 for sample 5")
staticnet_cli_test(data_check_num_classes RC 1 EMPTY_STDOUT
  ARGS data check --num-classes 3 inputs.npy labels.npy
  STDERR "labels.npy: byte 128: expected a class label in .0, 3\\), found label 3 for sample 0")
staticnet_cli_test(data_check_nan RC 1 EMPTY_STDOUT ARGS data check inputs_nan.npy labels.npy
  STDERR "inputs_nan.npy: byte 192: expected a finite value.*NaN in sample 2, element 4")
staticnet_cli_test(data_check_csv_bad_field RC 1 EMPTY_STDOUT ARGS data check bad_field.csv
  STDERR "bad_field.csv: line 3, column 5: expected a number, found 'abc'")
staticnet_cli_test(data_check_unknown_format RC 1 EMPTY_STDOUT ARGS data check bad_label.bin
  STDERR "bad_label.bin: byte 0: expected a recognisable data set")
staticnet_cli_test(data_check_missing_file RC 1 EMPTY_STDOUT ARGS data check no_such_file.npy x.npy
  STDERR "no_such_file.npy")
staticnet_cli_test(data_check_csv_with_labels_file RC 2 EMPTY_STDOUT
  ARGS data check table.csv labels.npy
  STDERR "table.csv: csv data is 1 file \\(a CSV file holds its labels in a column, --label-column, not in a labels file\\), but 2 files were given")
staticnet_cli_test(data_check_bad_format_name RC 2 ARGS data check --format parquet table.csv
  STDERR "--format")

# ---- checkpoint show ------------------------------------------------------------------------
staticnet_cli_test(checkpoint_show RC 0 ARGS checkpoint show checkpoint.safetensors
  STDOUT "checkpoint: checkpoint.safetensors \\(684 bytes, 4 tensors, 132 bytes of tensor data\\)"
         "  fc.weight +F32 +\\(3, 4\\) +48" "  optimizer.sgd.momentum.fc.weight +F32 +\\(3, 4\\) +48"
         "  fc.bias +F32 +\\(3,?\\) +12" "  steps_per_class +I64 +\\(3,?\\) +24"
         "  step: 1234" "  epochs done: 3" "data position: epoch seed 42, 256 samples into epoch 4"
         "rng state: 16 bytes" "values: all 27 floating-point values are finite"
         "  model: tiny-mlp")
# Weights that diverged: listed tensor by tensor (counts by hand in make_fixtures.py), exit 1.
staticnet_cli_test(checkpoint_show_non_finite RC 1 ARGS checkpoint show diverged.safetensors
  STDOUT "values: NOT ALL FINITE \\(--resume refuses this file, and --init and the inference"
         "\n  w: 2 NaN, 1 \\+Inf \\(the first at element 1\\)\n"
         "\n  b: 1 -Inf \\(the first at element 1\\)\n"
         "\n  big: 1 F64 beyond F32's range \\(the first at element 0\\)\nmetadata:"
  STDERR "staticnet: error: diverged.safetensors: 3 tensors hold values the programs refuse")
staticnet_cli_test(checkpoint_show_plain_safetensors RC 0 ARGS checkpoint show plain.safetensors
  STDOUT "  w +F16 +\\(2, 2\\) +8" "training state: none"
         "values: all 4 floating-point values are finite" "  format: pt")
staticnet_cli_test(checkpoint_show_not_safetensors RC 1 EMPTY_STDOUT
  ARGS checkpoint show images.idx STDERR "staticnet: error: images.idx: byte 0: expected")

# One step of the install tests (see CMakeLists.txt here):
#   cmake -DSTEP=<step> -DSOURCE_DIR=... -DWORK=... -DGENERATOR=... -DMAKE_PROGRAM=...
#         -DCXX=... -P install_test.cmake
# STEP is one of
#   install         configure the staticnet source tree afresh (tests and samples off), build it
#                   in Release and install it into WORK/prefix; check what users need is there
#   command         run the installed `staticnet` command
#   trainer         build trainer_consumer/ (staticnet_model() from the installed package) in
#                   Release with GENERATOR, CLEAN_BUILDS times from clean with --parallel
#                   PARALLEL (the last with the package's CUDA backend, when it has one, whose
#                   programs must be built too), each running each model's generator once;
#                   rebuild (nothing to do) and regenerate; train its model on synthetic data;
#                   run its DSL-free arena_size and the inference program of the same model over
#                   the checkpoint
#   consumer_small  build consumer/ against WORK/prefix for a board too small: must FAIL, naming
#                   the bytes (EXPECT holds the patterns, '|'-separated, all required)
#   consumer_fits   the same for a board that fits: must build, and run; the run's output must
#                   hold every pattern in EXPECT, and the sample model (installed under
#                   STATICNET_SAMPLES_INCLUDE_DIR) must build and print its footprint;
#                   configured again with -DSTATICNET_CUDA=OFF, it must not look for a CUDA
#                   compiler; configured for aarch64, it must be refused the package
#   cuda_warning    configure staticnet where nvcc is and cuDNN's frontend is hidden: a CMake
#                   warning names it and scripts/install-deps.sh (EXPECT); skipped without nvcc
#   wrong_model     build wrong_model_consumer/: a header ending in STATICNET_MODEL without ';'
#                   builds; a wrong model fails at the user's line, and `staticnet explain` of the
#                   build log says it there (EXPECT)
#   subdirectory    build subdir_consumer/ with the source tree add_subdirectory()'d; must build,
#                   and its lenet_plan and generated trainer must run
cmake_minimum_required(VERSION 3.25)
foreach(v STEP SOURCE_DIR WORK GENERATOR CXX)
  if(NOT DEFINED ${v} OR "${${v}}" STREQUAL "")
    message(FATAL_ERROR "install_test: -D${v}=... is required")
  endif()
endforeach()
set(ENV{LC_ALL} C)
set(here "${CMAKE_CURRENT_LIST_DIR}")
set(prefix "${WORK}/prefix")

set(generator_args -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX}")
if(MAKE_PROGRAM)
  list(APPEND generator_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()

# Runs a command; on an unexpected status prints its output and stops.
function(run name expect_success)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  set(last_output "${out}" PARENT_SCOPE)
  set(last_rc "${rc}" PARENT_SCOPE)
  string(JOIN " " cmd ${ARGN})
  message("[${name}] ${cmd}\n[${name}] exit status ${rc}")
  if(expect_success AND NOT rc EQUAL 0)
    message("${out}")
    message(FATAL_ERROR "[${name}] failed")
  endif()
endfunction()

function(expect_patterns what text)
  string(REPLACE "|" ";" patterns "${EXPECT}")
  set(missing "")
  foreach(p IN LISTS patterns)
    string(FIND "${text}" "${p}" at)
    if(at EQUAL -1)
      string(APPEND missing "  ${p}\n")
    endif()
  endforeach()
  if(missing)
    message("---- ${what} ----\n${text}---- end ----")
    message(FATAL_ERROR "${what}: missing\n${missing}")
  endif()
endfunction()

if(STEP STREQUAL "install")
  file(REMOVE_RECURSE "${WORK}/staticnet-build" "${prefix}")
  run(configure TRUE ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK}/staticnet-build"
      ${generator_args} -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=${prefix}
      -DSTATICNET_BUILD_TESTS=OFF -DSTATICNET_BUILD_SAMPLES=OFF)
  run(build TRUE ${CMAKE_COMMAND} --build "${WORK}/staticnet-build" --parallel 2)
  run(install TRUE ${CMAKE_COMMAND} --install "${WORK}/staticnet-build")
  # What a user needs: the headers of every part, the libraries generated trainers link, the
  # command, and the CMake package with staticnet_model().
  set(missing "")
  foreach(file include/staticnet/staticnet.hpp include/staticnet/kernels/pooling.hpp
               include/staticnet/cpu/conv2d.hpp include/staticnet/codegen/generate.hpp
               include/staticnet/runtime/trainer/train.hpp
               include/staticnet/runtime/inference/infer.hpp bin/staticnet
               share/staticnet/toolchains/aarch64-linux-gnu.cmake)
    if(NOT EXISTS "${prefix}/${file}")
      string(APPEND missing " ${file}")
    endif()
  endforeach()
  foreach(pattern */staticnetConfig.cmake */StaticnetModel.cmake */generated.clang-format
                  */libstaticnet_runtime.a
                  */libstaticnet_trainer.a */libstaticnet_inference.a */libstaticnet_cpu.a
                  */libstaticnet_codegen.a)
    file(GLOB_RECURSE found "${prefix}/${pattern}")
    if(NOT found)
      string(APPEND missing " ${pattern}")
    endif()
  endforeach()
  if(missing)
    message(FATAL_ERROR "install: ${prefix} lacks${missing}")
  endif()
  message("installed into ${prefix}: headers, libraries, bin/staticnet, the CMake package")

elseif(STEP STREQUAL "command")
  run(help TRUE "${prefix}/bin/staticnet" --help)
  expect_patterns("staticnet --help" "${last_output}")

elseif(STEP STREQUAL "trainer")
  # The project is copied first: each build touches its header, and the Ninja and the Makefile
  # runs of this step go on side by side.
  string(MAKE_C_IDENTIFIER "${GENERATOR}" generator_name)
  set(src "${WORK}/trainer-${generator_name}-src")
  file(REMOVE_RECURSE "${src}")
  file(COPY "${here}/trainer_consumer/" DESTINATION "${src}")
  set(dir "${WORK}/trainer-${generator_name}")
  # The package's CUDA backend, when it has one: the outside project must get the CUDA programs
  # from the default generator and a plain configure, as a user would.
  file(GLOB_RECURSE config "${prefix}/*/staticnetConfig.cmake")
  file(STRINGS "${config}" has_cuda REGEX "^set\\(STATICNET_HAS_CUDA ON\\)")
  # CLEAN_BUILDS times from clean (all but the last CPU only: the CUDA kernels take minutes), each
  # running each model's generator exactly once: Makefiles with -j ran it once per target that
  # compiles a generated file, all at the same time, over the same files.
  foreach(round RANGE 1 ${CLEAN_BUILDS})
    file(REMOVE_RECURSE "${dir}")
    set(cuda_args)
    if(round LESS CLEAN_BUILDS)
      set(cuda_args -DSTATICNET_CUDA=OFF)
    endif()
    run(configure TRUE ${CMAKE_COMMAND} -S "${src}" -B "${dir}" ${generator_args}
        -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${prefix}" ${cuda_args})
    run(build TRUE ${CMAKE_COMMAND} --build "${dir}" --parallel ${PARALLEL})
    foreach(model iris iris_serving iris_int8)
      string(REGEX MATCHALL "staticnet: generating ${model} " runs "${last_output}")
      list(LENGTH runs count)
      if(NOT count EQUAL 1)
        message(FATAL_ERROR "clean build ${round} ran the generator of ${model} ${count} times, "
                            "not once:\n${last_output}")
      endif()
    endforeach()
  endforeach()
  # The memory report (ANALYZE) is in the build log, by the installed staticnet command.
  if(NOT last_output MATCHES "user::IrisMlp as user::IrisTraining" OR
     NOT last_output MATCHES "total +6,400 B" OR NOT last_output MATCHES "Jetson Orin Nano 8GB")
    message(FATAL_ERROR "the build log lacks the memory report:\n${last_output}")
  endif()
  if(has_cuda)
    foreach(program iris_trainer_cuda iris_serving_infer_cuda)
      if(NOT EXISTS "${dir}/${program}")
        message(FATAL_ERROR "the package has its CUDA backend, but ${program} was not built")
      endif()
    endforeach()
    message("the CUDA programs were built too: iris_trainer_cuda, iris_serving_infer_cuda")
  endif()
  # Generation is a build step like any other: nothing to do when nothing changed; a touched
  # header regenerates, and the unchanged text recompiles nothing after it.
  run(rebuild TRUE ${CMAKE_COMMAND} --build "${dir}" --parallel ${PARALLEL})
  if(last_output MATCHES "generating" OR last_output MATCHES "Building|Linking")
    message(FATAL_ERROR "a second build did work:\n${last_output}")
  endif()
  file(TOUCH "${src}/iris_mlp.hpp")
  run(regenerate TRUE ${CMAKE_COMMAND} --build "${dir}" --parallel ${PARALLEL})
  if(NOT last_output MATCHES "generating iris " OR last_output MATCHES "iris_kernels_cpu.cpp.o")
    message(FATAL_ERROR "a touched header should regenerate and recompile no kernels:\n"
                        "${last_output}")
  endif()
  # A generated file deleted by hand is made again by the next build.
  file(REMOVE "${dir}/iris/iris_kernels_cpu.cpp")
  run(deleted TRUE ${CMAKE_COMMAND} --build "${dir}" --parallel ${PARALLEL})
  if(NOT last_output MATCHES "generating iris " OR NOT EXISTS "${dir}/iris/iris_kernels_cpu.cpp")
    message(FATAL_ERROR "a deleted generated file was not made again:\n${last_output}")
  endif()
  run(train TRUE "${dir}/iris_trainer_cpu" --data synthetic:480 --eval synthetic:96 --epochs 3
      --threads 1 --progress none --save "${dir}/iris.safetensors")
  set(trained "${last_output}")
  # The checkpoint through the inference program, on three unlabelled flowers.
  file(WRITE "${dir}/flowers.csv" "5.1,3.5,1.4,0.2\n6.7,3.0,5.2,2.3\n5.9,3.0,4.2,1.5\n")
  run(infer TRUE "${dir}/iris_serving_infer_cpu" --weights "${dir}/iris.safetensors"
      --data "${dir}/flowers.csv" --no-labels --threads 1 --output "${dir}/scores.npy")
  if(NOT last_output MATCHES "flowers.csv: 3 samples, no labels" OR
     NOT last_output MATCHES "scores.npy: f32 3x3")
    message(FATAL_ERROR "the inference program's output is not as expected:\n${last_output}")
  endif()
  # The checkpoint quantized to int8 for a microcontroller, calibrated on the flowers, and the
  # source it writes compiled as C++17 with the model's freestanding code.
  run(quantize TRUE "${dir}/iris_int8_quantize" --weights "${dir}/iris.safetensors"
      --calibration "${dir}/flowers.csv" --no-labels --output "${dir}/iris_int8_weights.cpp")
  if(NOT last_output MATCHES "calibrated on 3 samples of [^\n]*flowers.csv" OR
     NOT last_output MATCHES "iris_int8::mcu::quantized_model")
    message(FATAL_ERROR "the quantizer's output is not as expected:\n${last_output}")
  endif()
  run(compile_firmware_source TRUE ${CXX} -std=c++17 -Wall -Wextra -Werror
      -fsyntax-only -I "${dir}/iris_int8" -I "${prefix}/include" "${dir}/iris_int8_weights.cpp")
  run(arena TRUE "${dir}/arena_size")
  message("${trained}${last_output}")
  expect_patterns("trainer and arena_size output" "${trained}${last_output}")

elseif(STEP MATCHES "^consumer_(small|fits)$")
  set(dir "${WORK}/${STEP}")
  file(REMOVE_RECURSE "${dir}")
  run(configure TRUE ${CMAKE_COMMAND} -S "${here}/consumer" -B "${dir}" ${generator_args}
      "-DCMAKE_PREFIX_PATH=${prefix}" "-DMY_BOARD_MEMORY_MIB=${BOARD_MIB}")
  if(STEP STREQUAL "consumer_small")
    run(build FALSE ${CMAKE_COMMAND} --build "${dir}")
    if(last_rc EQUAL 0)
      message(FATAL_ERROR "the consumer built although the model does not fit ${BOARD_MIB} MiB")
    endif()
    expect_patterns("build output" "${last_output}")
    message("the build failed as it should, with the numbers")
  else()
    # Configured again with the CUDA backend left out, as a user without a GPU would: the
    # variable is used, and no CUDA compiler is looked for.
    run(configure_without_cuda TRUE ${CMAKE_COMMAND} -S "${here}/consumer" -B "${dir}-cpu"
        ${generator_args} "-DCMAKE_PREFIX_PATH=${prefix}" "-DMY_BOARD_MEMORY_MIB=${BOARD_MIB}"
        -DSTATICNET_CUDA=OFF)
    if(last_output MATCHES "not used by the project" OR
       last_output MATCHES "CUDA compiler identification")
      message(FATAL_ERROR "-DSTATICNET_CUDA=OFF did not leave CUDA out:\n${last_output}")
    endif()
    # A project that builds for another processor (as a cross build with the workstation's
    # package in its search path would) is refused at configure time, naming both, instead of
    # failing at its link. The package was built here, for this machine's processor.
    if(CMAKE_HOST_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64|ARM64)$")
      set(native aarch64)
      set(other x86_64)
    else()
      set(native x86_64)
      set(other aarch64)
    endif()
    run(configure_for_other FALSE ${CMAKE_COMMAND} -S "${here}/consumer" -B "${dir}-${other}"
        ${generator_args} "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_SYSTEM_NAME=Linux
        -DCMAKE_SYSTEM_PROCESSOR=${other} -DSTATICNET_CUDA=OFF)
    string(REGEX REPLACE "[ \n]+" " " flowing "${last_output}")
    if(last_rc EQUAL 0 OR NOT flowing MATCHES
       "was built for Linux ${native}, and this project builds for Linux ${other}: its libraries would not link")
      message(FATAL_ERROR "a project for ${other} was not refused the ${native} package:\n${last_output}")
    endif()
    run(build TRUE ${CMAKE_COMMAND} --build "${dir}")
    run(run TRUE "${dir}/train_mlp")
    message("${last_output}")
    expect_patterns("train_mlp output" "${last_output}")
    # A sample model from the installed headers: its counts (the reference's) are static_asserts;
    # the footprint it prints is the one the README quotes, the plan's regression value.
    run(run_sample TRUE "${dir}/resnet8_footprint")
    if(NOT last_output STREQUAL "resnet8 22686720 B\n")
      message(FATAL_ERROR "resnet8_footprint printed: ${last_output}")
    endif()
  endif()

elseif(STEP STREQUAL "cuda_warning")
  # A machine with nvcc and cuDNN but not cuDNN's frontend (as before scripts/install-deps.sh
  # installed it): configure must warn, naming what is missing and the command that installs it.
  find_program(nvcc nvcc PATHS /usr/local/cuda/bin)
  if(NOT nvcc)
    message("STATICNET_SKIP: no nvcc here, so no CUDA backend to miss")
    return()
  endif()
  set(dir "${WORK}/cuda_warning")
  file(REMOVE_RECURSE "${dir}")
  run(configure TRUE ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${dir}" ${generator_args}
      -DSTATICNET_BUILD_TESTS=OFF -DSTATICNET_BUILD_SAMPLES=OFF -DSTATICNET_BUILD_RUNTIME=OFF
      "-DCMAKE_IGNORE_PREFIX_PATH=/usr/local/cudnn-frontend-1.32.0"
      "-DCMAKE_IGNORE_PATH=/usr/local/cudnn-frontend-1.32.0/include")
  string(REGEX REPLACE "[ \n]+" " " flowing "${last_output}")
  message("${last_output}")
  expect_patterns("configure's output" "${flowing}")

elseif(STEP STREQUAL "wrong_model")
  set(dir "${WORK}/wrong_model")
  file(REMOVE_RECURSE "${dir}")
  run(configure TRUE ${CMAKE_COMMAND} -S "${here}/wrong_model_consumer" -B "${dir}"
      ${generator_args} -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${prefix}")
  # A header whose last line is STATICNET_MODEL without its ';' builds.
  run(build_good TRUE ${CMAKE_COMMAND} --build "${dir}" --target good_trainer_cpu)
  # The wrong model fails, at the user's line that declares it (vgg.hpp:16), not in the
  # generator's source the user never wrote.
  run(build_wrong FALSE ${CMAKE_COMMAND} --build "${dir}" --target vgg_generator)
  if(last_rc EQUAL 0)
    message(FATAL_ERROR "the wrong model built")
  endif()
  set(log "${dir}/build.log")
  file(WRITE "${log}" "${last_output}")
  string(REGEX MATCH "[^\n]*required from here" asked "${last_output}")
  if(NOT asked MATCHES "vgg\\.hpp:16:[0-9]+:" OR asked MATCHES "_generator\\.cpp")
    message(FATAL_ERROR "the error is not at vgg.hpp:16 ('${asked}'):\n${last_output}")
  endif()
  run(explain TRUE "${prefix}/bin/staticnet" explain "${log}")
  message("${last_output}")
  expect_patterns("staticnet explain of the build log" "${last_output}")

elseif(STEP STREQUAL "subdirectory")
  set(dir "${WORK}/subdirectory")
  file(REMOVE_RECURSE "${dir}")
  run(configure TRUE ${CMAKE_COMMAND} -S "${here}/subdir_consumer" -B "${dir}" ${generator_args}
      "-DSTATICNET_DIR=${SOURCE_DIR}")
  run(build TRUE ${CMAKE_COMMAND} --build "${dir}" --parallel 2)
  run(run TRUE "${dir}/lenet_plan")
  set(planned "${last_output}")
  run(train TRUE "${dir}/iris_trainer_cpu" --data synthetic:160 --epochs 1 --threads 1
      --progress none)
  message("${planned}${last_output}")
  expect_patterns("lenet_plan and trainer output" "${planned}${last_output}")

else()
  message(FATAL_ERROR "install_test: unknown STEP ${STEP}")
endif()

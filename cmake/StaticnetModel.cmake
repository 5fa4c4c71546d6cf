# staticnet_model(): turns a model type into generated code and a trainer program (or, with
# INFERENCE, an inference program).
#
#   staticnet_model(<name>
#                   HEADER <file.hpp>          the header that declares the model and setup types
#                   MODEL <type>               e.g. my::Net (a staticnet model type)
#                   SETUP <type>               e.g. my::Training (sn::Training<...>)
#                   [INFERENCE]                SETUP is an sn::Inference<...> setup: build an
#                                              inference program, not a trainer
#                   [BACKENDS cpu cuda mcu]    default: cpu, and cuda when this staticnet was
#                                              built with its CUDA backend (and CUDA is enabled);
#                                              mcu: int8 inference for a microcontroller (an
#                                              INFERENCE setup in sn::Precision<Int8>)
#                   [INCLUDE_DIRECTORIES <dir>...]  what the header itself includes
#                   [CPU_ARCH <arch>]          compile the CPU step with -march=<arch> (e.g.
#                                              native, x86-64-v3, armv8.2-a); default: the
#                                              compiler's portable baseline
#                   [CUDA_ARCHITECTURES <sm>...]  default: STATICNET_CUDA_ARCHITECTURES (87 90:
#                                              Jetson Orin, H100/H200)
#                   [OUTPUT_DIRECTORY <dir>]   default: ${CMAKE_CURRENT_BINARY_DIR}/<name>
#                   [ANALYZE [DEVICES <id>...] [BUDGET <size>]])
#                                              also run staticnet_analyze() (below) as a step of
#                                              the trainer's build: <name>_memory_report
#
# <name> must be a C++ identifier: it prefixes the files and is their namespace. The function
#   1. writes <name>_generator.cpp, a main() that includes HEADER and instantiates the plan of
#      MODEL under SETUP (a model that does not fit or does not connect fails here, at compile
#      time, with staticnet's diagnostic), and builds it as the target <name>_generator;
#   2. runs it at build time, writing into OUTPUT_DIRECTORY (files are rewritten only when their
#      text changes, so touching the header recompiles what changed and nothing else; they are
#      clang-formatted where a clang-format 14 or later is found, see STATICNET_CLANG_FORMAT):
#        <name>_model.h            the plan as plain constants (no staticnet headers needed)
#        <name>_trainer.h          the model as the trainer runtime sees it
#        <name>_kernels_cpu.h/.cpp the training step on the CPU, every size a literal
#        <name>_trainer_cpu.cpp    the trainer's main()
#        <name>_kernels_cuda.h, <name>_kernels.cu, <name>_trainer_cuda.cpp   the same for CUDA
#      or, with INFERENCE:
#        <name>_model.h, <name>_infer.h, <name>_kernels_cpu.h/.cpp (the forward pass, every
#        BatchNorm the plan folded folded into the layer before it), <name>_infer_cpu.cpp,
#        and for CUDA <name>_kernels_cuda.h, <name>_kernels.cu, <name>_infer_cuda.cpp
#   3. defines the targets
#        <name>_model         INTERFACE library: the include directory of <name>_model.h
#        <name>_kernels_cpu   STATIC library: the CPU step (link it to call <name>::cpu::train_step)
#        <name>_trainer_cpu   the trainer program (<name>_trainer_cpu --help)
#        <name>_kernels_cuda, <name>_trainer_cuda   the same for CUDA (one CUDA graph per step)
#      or, with INFERENCE, <name>_kernels_cpu (<name>::cpu::fold_batch_norms, <name>::cpu::infer)
#      and <name>_infer_cpu, the inference program (<name>_infer_cpu --help); for CUDA
#      <name>_kernels_cuda (<name>::cuda::make_inference) and <name>_infer_cuda
#      With BACKENDS mcu: <name>_mcu.hpp/.cpp (<name>::mcu::invoke over one arena, freestanding
#      C++17 that a firmware compiles as it is: the target's MCU_SOURCES property names the
#      file), <name>_mcu, a STATIC library of it for this machine (tests, the quantizer), and
#      <name>_quantize (from <name>_quantize.cpp), which reads a trainer's checkpoint and a
#      calibration set and writes the source that defines <name>::mcu::quantized_model
#
# Example:
#   find_package(staticnet REQUIRED)      # or add_subdirectory(staticnet)
#   staticnet_model(lenet HEADER lenet.hpp MODEL my::LeNet5 SETUP my::MnistTraining)
#
# Cross-compiling (a Jetson from an x86 host): the generator is built for the target like
# everything else, and CMake runs it through CMAKE_CROSSCOMPILING_EMULATOR (for example
# qemu-aarch64 -L <sysroot>). The plan it prints does not depend on the machine. ANALYZE and
# staticnet_analyze() compile their probe with the cross compiler and run it through the same
# emulator. cmake/toolchains/aarch64-linux-gnu.cmake is such a toolchain file.
include_guard(GLOBAL)

# The line of `header` that declares `model` (a C++ name, e.g. my::Net): the STATICNET_MODEL line
# that registers it, else `using Net =`, `struct Net` or `class Net`, each first on its line (not
# in a // comment); empty when the header declares it nowhere (it comes from a file the header
# includes) or the name is no plain identifier (a template-id). analyzer/src/analyze.cpp's
# declaration_line() looks for the same lines.
function(_staticnet_declaration_line header model out)
  set(${out} "" PARENT_SCOPE)
  string(REGEX REPLACE "^.*::" "" leaf "${model}")
  if(NOT leaf MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    return()
  endif()
  file(READ "${header}" text)
  set(blank "[ \t\r\n]")
  foreach(pattern
          "STATICNET_MODEL[ \t]*\\([^,()]*,${blank}*([A-Za-z0-9_]*::)*${leaf}${blank}*,"
          "using${blank}+${leaf}${blank}*="
          "(struct|class)${blank}+${leaf}[^A-Za-z0-9_]")
    string(REGEX MATCH "(^|\n)[ \t]*${pattern}" match "${text}")
    if(match)
      string(FIND "${text}" "${match}" at)
      string(SUBSTRING "${text}" 0 ${at} before)
      string(REGEX MATCHALL "\n" newlines "${before}")
      list(LENGTH newlines line)
      if(match MATCHES "^\n")  # the match starts on the newline that ends the line before
        math(EXPR line "${line} + 2")
      else()
        math(EXPR line "${line} + 1")
      endif()
      set(${out} ${line} PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

# The clang-format that formats the generated files, in `out`: STATICNET_CLANG_FORMAT where it is
# set (OFF for none), else the first of clang-format, clang-format-19, ..., clang-format-14 on
# PATH whose version is 14 or later (--style=file:PATH is 14's); empty where there is none, and the
# files are written unformatted. Looked for once per configure run, and again on the next (a
# clang-format installed later is found then).
function(_staticnet_clang_format out)
  get_property(known GLOBAL PROPERTY _staticnet_clang_format SET)
  if(known)
    get_property(program GLOBAL PROPERTY _staticnet_clang_format)
    set(${out} "${program}" PARENT_SCOPE)
    return()
  endif()
  set(candidates "")
  if(DEFINED STATICNET_CLANG_FORMAT)
    if(STATICNET_CLANG_FORMAT)
      set(candidates "${STATICNET_CLANG_FORMAT}")
    endif()
  else()
    foreach(name clang-format clang-format-19 clang-format-18 clang-format-17 clang-format-16
                 clang-format-15 clang-format-14)
      unset(found)
      find_program(found NAMES ${name} NO_CACHE)
      if(found)
        list(APPEND candidates "${found}")
      endif()
    endforeach()
  endif()
  set(program "")
  foreach(candidate IN LISTS candidates)
    execute_process(COMMAND "${candidate}" --version OUTPUT_VARIABLE version_text
                    RESULT_VARIABLE rc ERROR_QUIET)
    if(rc EQUAL 0 AND version_text MATCHES "version ([0-9]+)" AND CMAKE_MATCH_1 GREATER_EQUAL 14)
      set(program "${candidate}")
      break()
    endif()
  endforeach()
  if(DEFINED STATICNET_CLANG_FORMAT AND STATICNET_CLANG_FORMAT AND NOT program)
    message(WARNING "STATICNET_CLANG_FORMAT=${STATICNET_CLANG_FORMAT} is not a clang-format of "
                    "version 14 or later: the generated files are written unformatted")
  endif()
  set_property(GLOBAL PROPERTY _staticnet_clang_format "${program}")
  set(${out} "${program}" PARENT_SCOPE)
endfunction()

function(staticnet_model name)
  # Defined here, not in the file: the function is called from other directories (a parent
  # project after add_subdirectory), where variables of this file's scope are not visible.
  set(known_backends cpu cuda mcu)
  cmake_parse_arguments(PARSE_ARGV 1 arg "ANALYZE;INFERENCE"
                        "HEADER;MODEL;SETUP;OUTPUT_DIRECTORY;CPU_ARCH;BUDGET;CUDA_ARCHITECTURES"
                        "BACKENDS;INCLUDE_DIRECTORIES;DEVICES")
  if(NOT TARGET staticnet::codegen)
    message(FATAL_ERROR "staticnet_model(${name}): this staticnet was built without codegen "
                        "(STATICNET_BUILD_RUNTIME=OFF); turn it on to generate trainers")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "staticnet_model(${name}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "staticnet_model(${name}): the name must be a C++ identifier (it names "
                        "the generated files and their namespace)")
  endif()
  foreach(required HEADER MODEL SETUP)
    if(NOT arg_${required})
      message(FATAL_ERROR "staticnet_model(${name}): ${required} is required, e.g. "
                          "staticnet_model(${name} HEADER net.hpp MODEL my::Net SETUP my::Setup)")
    endif()
  endforeach()
  cmake_path(ABSOLUTE_PATH arg_HEADER BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
             NORMALIZE OUTPUT_VARIABLE header)
  if(NOT EXISTS "${header}")
    message(FATAL_ERROR "staticnet_model(${name}): HEADER ${arg_HEADER} does not exist "
                        "(looked for ${header})")
  endif()
  if(NOT arg_BACKENDS)
    set(arg_BACKENDS cpu)
    # This staticnet has its CUDA backend, and CUDA is enabled where this is called (a project
    # that add_subdirectory()s staticnet enables CUDA itself to get CUDA trainers).
    if(TARGET staticnet::trainer_cuda AND CMAKE_CUDA_COMPILER_LOADED)
      list(APPEND arg_BACKENDS cuda)
    endif()
  endif()
  if("cuda" IN_LIST arg_BACKENDS AND NOT CMAKE_CUDA_COMPILER_LOADED)
    message(FATAL_ERROR "staticnet_model(${name}): BACKENDS cuda needs the CUDA language: call "
                        "enable_language(CUDA) in your project first")
  endif()
  if("cuda" IN_LIST arg_BACKENDS AND NOT TARGET staticnet::trainer_cuda)
    message(FATAL_ERROR "staticnet_model(${name}): BACKENDS cuda needs a staticnet built with its "
                        "CUDA backend (nvcc, cuBLASLt, cuDNN 9 and the cuDNN frontend found; "
                        "STATICNET_CUDA=ON)")
  endif()
  if("mcu" IN_LIST arg_BACKENDS AND NOT arg_INFERENCE)
    message(FATAL_ERROR "staticnet_model(${name}): BACKENDS mcu builds int8 inference: add "
                        "INFERENCE, with an sn::Inference<..., sn::Precision<Int8>> SETUP")
  endif()
  foreach(backend IN LISTS arg_BACKENDS)
    if(NOT backend IN_LIST known_backends)
      message(FATAL_ERROR "staticnet_model(${name}): unknown backend ${backend} "
                          "(known: ${known_backends})")
    endif()
  endforeach()
  set(out "${arg_OUTPUT_DIRECTORY}")
  if(NOT out)
    set(out "${CMAKE_CURRENT_BINARY_DIR}/${name}")
  endif()
  # The header as the emitted files name it: relative to the top of the project when inside it,
  # so that files generated on two machines are the same.
  cmake_path(IS_PREFIX PROJECT_SOURCE_DIR "${header}" NORMALIZE inside)
  if(inside)
    cmake_path(RELATIVE_PATH header BASE_DIRECTORY "${PROJECT_SOURCE_DIR}"
               OUTPUT_VARIABLE shown_header)
  else()
    set(shown_header "${header}")
  endif()

  # ---- 1. the generator
  # A wrong model fails to compile where the plan is asked for: this file, which the user never
  # wrote. A #line directive puts that place at the user's header instead, on the line that
  # declares the model (its STATICNET_MODEL line, else its own declaration), so the compiler's
  # "required from here" and `staticnet explain` name the user's line.
  _staticnet_declaration_line("${header}" "${arg_MODEL}" declared_at)
  # The line moves when the header is edited: configure again then, so the directive follows it.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${header}")
  set(asked_at "")
  if(declared_at)
    string(REPLACE "\\" "\\\\" quoted_header "${header}")
    string(REPLACE "\"" "\\\"" quoted_header "${quoted_header}")
    set(asked_at "#line ${declared_at} \"${quoted_header}\"\n")
  endif()
  set(generator_source "${CMAKE_CURRENT_BINARY_DIR}/${name}_generator.cpp")
  file(CONFIGURE OUTPUT "${generator_source}" @ONLY CONTENT
"// Written by staticnet_model(${name}): the generator of ${name}. Compiling this evaluates the
// plan of ${arg_MODEL} under ${arg_SETUP}; running it writes the generated files.
#include \"${header}\"
// Ends a STATICNET_MODEL line that the header left last without its ';' (else an empty
// declaration, which only clang's -Wextra-semi would mention).
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored \"-Wextra-semi\"
#endif
;
#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#include <staticnet/codegen/generate.hpp>

int main(int argc, char** argv) {
  // The plan of ${arg_MODEL} under ${arg_SETUP}, asked for at ${arg_HEADER}.
${asked_at}  return staticnet::codegen::generator_main<${arg_MODEL}, ${arg_SETUP}>(argc, argv, {\"${name}\", \"${shown_header}\", \"${arg_MODEL}\", \"${arg_SETUP}\"});
}
")
  add_executable(${name}_generator "${generator_source}")
  target_link_libraries(${name}_generator PRIVATE staticnet::codegen)
  target_include_directories(${name}_generator PRIVATE ${arg_INCLUDE_DIRECTORIES})

  # ---- 2. the generated files
  if(arg_INFERENCE AND "mcu" IN_LIST arg_BACKENDS)  # int8: no inference program of its own
    set(program infer)
    set(outputs "${out}/${name}_model.h")
    set(generator_args --program inference)
  elseif(arg_INFERENCE)
    set(program infer)
    set(outputs "${out}/${name}_model.h" "${out}/${name}_infer.h")
    set(generator_args --program inference)
  else()
    set(program trainer)
    set(outputs "${out}/${name}_model.h" "${out}/${name}_trainer.h")
    set(generator_args --program trainer)
  endif()
  foreach(backend IN LISTS arg_BACKENDS)
    list(APPEND generator_args --backend ${backend})
    if(backend STREQUAL "cpu")
      list(APPEND outputs "${out}/${name}_kernels_cpu.h" "${out}/${name}_kernels_cpu.cpp"
                          "${out}/${name}_${program}_cpu.cpp")
    elseif(backend STREQUAL "cuda")
      list(APPEND outputs "${out}/${name}_kernels_cuda.h" "${out}/${name}_kernels.cu"
                          "${out}/${name}_${program}_cuda.cpp")
    elseif(backend STREQUAL "mcu")
      list(APPEND outputs "${out}/${name}_mcu.hpp" "${out}/${name}_mcu.cpp"
                          "${out}/${name}_quantize.cpp")
    endif()
  endforeach()
  # Formatted as the project's code is, where a clang-format is found: what a reviewer reads in
  # samples/generated/ is what the build compiles.
  _staticnet_clang_format(clang_format)
  set(style "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/generated.clang-format")
  set(format_dependencies "")
  if(clang_format)
    list(APPEND generator_args --clang-format "${clang_format}" --format-style "${style}")
    set(format_dependencies "${style}")
  endif()
  # One target, ${name}_generated, owns the command, and every target that compiles a generated
  # file depends on it (the pattern CMake documents for outputs that several targets use). Were
  # the files the command's OUTPUTs listed as sources of the kernels and the program, the
  # Makefile generators would attach the command to each of those targets, and `make -j` would
  # run it several times at once over the same files. The command's own output is a stamp: the
  # generator leaves a file untouched when its text is the same, so an unchanged file is older
  # than the generator, and as an OUTPUT it would make Make rerun the command on every build.
  set(stamp "${CMAKE_CURRENT_BINARY_DIR}/${name}_generated.stamp")
  add_custom_command(
    OUTPUT "${stamp}"
    BYPRODUCTS ${outputs}
    COMMAND ${name}_generator --out "${out}" ${generator_args}
    COMMAND ${CMAKE_COMMAND} -E touch "${stamp}"
    DEPENDS ${name}_generator "${header}" ${format_dependencies}
    COMMENT "staticnet: generating ${name} (${arg_MODEL}) for ${arg_BACKENDS}"
    VERBATIM)
  add_custom_target(${name}_generated DEPENDS "${stamp}")
  # Ninja takes the byproducts for outputs and makes a deleted one again; the Makefile generators
  # know only the stamp, so a generated file deleted by hand would stay missing while the stamp
  # stands. For them a check runs before each build and removes the stamp when a file is missing.
  if(NOT CMAKE_GENERATOR MATCHES "Ninja")
    set(check_script "foreach(file IN ITEMS")
    foreach(output IN LISTS outputs)
      string(APPEND check_script "\n    \"${output}\"")
    endforeach()
    string(APPEND check_script ")\n  if(NOT EXISTS \"\${file}\")\n    file(REMOVE \"${stamp}\")\n"
                               "  endif()\nendforeach()\n")
    set(check "${CMAKE_CURRENT_BINARY_DIR}/${name}_generated_check.cmake")
    file(CONFIGURE OUTPUT "${check}" CONTENT "${check_script}" @ONLY)
    add_custom_target(${name}_generated_check COMMAND ${CMAKE_COMMAND} -P "${check}" VERBATIM)
    add_dependencies(${name}_generated ${name}_generated_check)
  endif()

  # ---- 3. targets over them
  add_library(${name}_model INTERFACE)
  target_include_directories(${name}_model INTERFACE "${out}")
  add_dependencies(${name}_model ${name}_generated)

  if("cpu" IN_LIST arg_BACKENDS)
    add_library(${name}_kernels_cpu STATIC "${out}/${name}_kernels_cpu.cpp")
    target_include_directories(${name}_kernels_cpu PUBLIC "${out}")
    target_link_libraries(${name}_kernels_cpu PUBLIC staticnet::cpu)
    # An unoptimised step is tens of times slower; with no build type at all, optimise anyway.
    # The step never reads floating-point exception flags or errno, and saying so lets the
    # compiler vectorise the activations' branch-free polynomials (staticnet/kernels/).
    target_compile_options(${name}_kernels_cpu PRIVATE $<$<CONFIG:>:-O2> -fno-trapping-math
                                                       -fno-math-errno)
    if(arg_CPU_ARCH)
      target_compile_options(${name}_kernels_cpu PRIVATE -march=${arg_CPU_ARCH})
    endif()
    add_executable(${name}_${program}_cpu "${out}/${name}_${program}_cpu.cpp")
    add_dependencies(${name}_kernels_cpu ${name}_generated)
    add_dependencies(${name}_${program}_cpu ${name}_generated)
    if(arg_INFERENCE)
      target_link_libraries(${name}_infer_cpu PRIVATE ${name}_kernels_cpu staticnet::inference)
    else()
      target_link_libraries(${name}_trainer_cpu PRIVATE ${name}_kernels_cpu staticnet::trainer)
    endif()
  endif()

  if("mcu" IN_LIST arg_BACKENDS)
    add_library(${name}_mcu STATIC "${out}/${name}_mcu.cpp")
    target_include_directories(${name}_mcu PUBLIC "${out}")
    target_link_libraries(${name}_mcu PUBLIC staticnet::kernels)
    target_compile_options(${name}_mcu PRIVATE $<$<CONFIG:>:-O2>)
    set_target_properties(${name}_mcu PROPERTIES MCU_SOURCES "${out}/${name}_mcu.cpp")
    add_dependencies(${name}_mcu ${name}_generated)
    # The quantizer: a trainer's checkpoint and a calibration set in, the source that defines
    # ${name}::mcu::quantized_model out (${name}_quantize --help).
    add_executable(${name}_quantize "${out}/${name}_quantize.cpp")
    target_link_libraries(${name}_quantize PRIVATE ${name}_mcu staticnet::quantizer)
    target_compile_options(${name}_quantize PRIVATE $<$<CONFIG:>:-O2>)
    add_dependencies(${name}_quantize ${name}_generated)
  endif()

  if("cuda" IN_LIST arg_BACKENDS)
    add_library(${name}_kernels_cuda STATIC "${out}/${name}_kernels.cu")
    target_include_directories(${name}_kernels_cuda PUBLIC "${out}")
    target_link_libraries(${name}_kernels_cuda PUBLIC staticnet::cuda)
    target_compile_features(${name}_kernels_cuda PUBLIC cxx_std_20)
    set(architectures "${arg_CUDA_ARCHITECTURES}")
    if(NOT architectures)
      set(architectures "${STATICNET_CUDA_ARCHITECTURES}")
    endif()
    if(NOT architectures)
      set(architectures 87 90)  # Jetson Orin, H100/H200
    endif()
    set_target_properties(${name}_kernels_cuda PROPERTIES CUDA_ARCHITECTURES "${architectures}")
    # --expt-relaxed-constexpr: the shared bodies call constexpr geometry members on the device.
    # --extended-lambda: a pass hands g::for_each its body as a `[=] __device__` lambda.
    target_compile_options(${name}_kernels_cuda PRIVATE
      $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr --extended-lambda>)
    # C++20 under nvcc (CMake 3.25 has no cuda_std_20 feature for nvcc 13).
    target_compile_options(${name}_kernels_cuda PUBLIC $<$<COMPILE_LANGUAGE:CUDA>:-std=c++20>)
    add_executable(${name}_${program}_cuda "${out}/${name}_${program}_cuda.cpp")
    add_dependencies(${name}_kernels_cuda ${name}_generated)
    add_dependencies(${name}_${program}_cuda ${name}_generated)
    if(arg_INFERENCE)
      target_link_libraries(${name}_infer_cuda PRIVATE ${name}_kernels_cuda
                                                       staticnet::inference_cuda)
    else()
      target_link_libraries(${name}_trainer_cuda PRIVATE ${name}_kernels_cuda
                                                         staticnet::trainer_cuda)
    endif()
  endif()

  if(arg_ANALYZE)
    set(budget_args)
    if(arg_BUDGET)
      set(budget_args BUDGET ${arg_BUDGET})
    endif()
    staticnet_analyze(${name}_memory_report HEADER "${header}" MODEL ${arg_MODEL}
                      SETUP ${arg_SETUP} DEVICES ${arg_DEVICES} ${budget_args}
                      INCLUDE_DIRECTORIES ${arg_INCLUDE_DIRECTORIES})
    # Every target of the model waits for the report, so building only the trainer runs it too
    # (and a model over budget stops before its kernels compile).
    foreach(dependent ${name}_model ${name}_kernels_cpu ${name}_trainer_cpu ${name}_infer_cpu
                      ${name}_kernels_cuda ${name}_trainer_cuda ${name}_infer_cuda ${name}_mcu
                      ${name}_quantize)
      if(TARGET ${dependent})
        add_dependencies(${dependent} ${name}_memory_report)
      endif()
    endforeach()
  elseif(arg_DEVICES OR arg_BUDGET)
    message(FATAL_ERROR "staticnet_model(${name}): DEVICES and BUDGET go with ANALYZE")
  endif()
endfunction()

# staticnet_analyze(): the memory report of a model as a build step, so that CI logs carry it
# and a model over budget fails the build.
#
#   staticnet_analyze(<target>
#                     HEADER <file.hpp>             the header with the model and setup types
#                     [MODEL <type> SETUP <type>]   else the header's STATICNET_MODEL entries
#                     [DEVICES <id>...]             device profiles (staticnet analyze
#                                                   --list-devices)
#                     [BUDGET <size>]               e.g. 3GiB
#                     [FORMAT text|json|markdown|svg]  the report file's form (default text)
#                     [INCLUDE_DIRECTORIES <dir>...])
#
# defines the target <target> (built by ALL) that runs `staticnet analyze` and writes
# ${CMAKE_CURRENT_BINARY_DIR}/<target>.<txt|json|md|svg>, printing the text report in the build
# log. It reruns when the header or anything it includes changes (a depfile), and not
# otherwise. The step fails, and with it the build, when a model exceeds a device or budget
# given here, or when the header does not compile (staticnet's errors explained).
function(staticnet_analyze target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "HEADER;MODEL;SETUP;BUDGET;FORMAT"
                        "DEVICES;INCLUDE_DIRECTORIES")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "staticnet_analyze(${target}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_HEADER)
    message(FATAL_ERROR "staticnet_analyze(${target}): HEADER is required")
  endif()
  if(NOT TARGET staticnet::cli)
    message(FATAL_ERROR "staticnet_analyze(${target}): this staticnet has no staticnet command "
                        "(it was built with STATICNET_BUILD_RUNTIME=OFF)")
  endif()
  cmake_path(ABSOLUTE_PATH arg_HEADER BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
             NORMALIZE OUTPUT_VARIABLE header)
  if(NOT EXISTS "${header}")
    message(FATAL_ERROR "staticnet_analyze(${target}): HEADER ${arg_HEADER} does not exist")
  endif()
  if(NOT arg_FORMAT)
    set(arg_FORMAT text)
  endif()
  set(extensions text txt json json markdown md svg svg)
  list(FIND extensions ${arg_FORMAT} at)
  if(at EQUAL -1 OR NOT arg_FORMAT MATCHES "^(text|json|markdown|svg)$")
    message(FATAL_ERROR "staticnet_analyze(${target}): FORMAT is text, json, markdown or svg")
  endif()
  math(EXPR at "${at} + 1")
  list(GET extensions ${at} extension)

  set(args "${header}" --format ${arg_FORMAT} --color never --cxx "${CMAKE_CXX_COMPILER}")
  if(arg_MODEL OR arg_SETUP)
    list(APPEND args --model "${arg_MODEL}" --setup "${arg_SETUP}")
  endif()
  # A cross compiler's probe runs through the emulator that runs the build's other programs.
  if(CMAKE_CROSSCOMPILING AND CMAKE_CROSSCOMPILING_EMULATOR)
    list(JOIN CMAKE_CROSSCOMPILING_EMULATOR " " emulator)
    list(APPEND args --emulator "${emulator}")
  endif()
  foreach(device IN LISTS arg_DEVICES)
    list(APPEND args --device ${device})
  endforeach()
  if(arg_BUDGET)
    list(APPEND args --budget ${arg_BUDGET})
  endif()
  foreach(dir IN LISTS arg_INCLUDE_DIRECTORIES)
    cmake_path(ABSOLUTE_PATH dir BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND args -I "${dir}")
  endforeach()
  # The command as a target-level dependency too: in a source tree staticnet::cli is an alias.
  get_target_property(command staticnet::cli ALIASED_TARGET)
  if(NOT command)
    set(command staticnet::cli)
  endif()
  set(report "${target}.${extension}")  # relative to the current binary dir, as the depfile
  add_custom_command(
    OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/${report}"
    COMMAND ${command} analyze ${args} --output "${report}" --depfile "${report}.d" --print
            --cache-dir "${CMAKE_BINARY_DIR}/staticnet-analyze-cache"
    DEPENDS "${header}" ${command}
    DEPFILE "${CMAKE_CURRENT_BINARY_DIR}/${report}.d"
    WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}"
    COMMENT "staticnet: memory report of ${arg_HEADER}"
    VERBATIM)
  add_custom_target(${target} ALL DEPENDS "${CMAKE_CURRENT_BINARY_DIR}/${report}")
endfunction()

# Warnings in the project's own targets. They become errors only when
# STATICNET_WARNINGS_AS_ERRORS is on (the presets and CI turn it on): a user's plain
# `cmake -DCMAKE_BUILD_TYPE=Release` must build with any supported compiler, whatever new
# warning that compiler's optimiser invents.
option(STATICNET_WARNINGS_AS_ERRORS "Treat warnings in staticnet's own targets as errors" OFF)

function(staticnet_warnings target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic>)
  # g++ 12 at -O3 reports a false overlap for `"text" + std::string` (GCC bug 105329, fixed in
  # GCC 13), which string-building code such as the emitters is full of.
  target_compile_options(${target} PRIVATE
    $<$<AND:$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>)
  if(STATICNET_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>
                                             $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
  endif()
endfunction()

# The code that compiles in a user's build, under the user's warnings: the public headers and what
# staticnet_model() generates. Users of embedded toolchains often turn on, and make errors, the
# warnings of cpp-best-practices' list (-Wconversion; -Wdouble-promotion, where a double on a
# Cortex-M4F is a software routine; -Wold-style-cast, ...), so the project's targets that compile
# that code turn them on too, and none of it may warn. Left out: -Wuseless-cast, whose verdict
# depends on the target (a cast from uint64_t to size_t is needed on a 32-bit Cortex-M and useless
# on x86-64).
set(STATICNET_USER_BUILD_WARNINGS
    -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual
    -Wconversion -Wsign-conversion -Wnull-dereference -Wdouble-promotion -Wformat=2
    -Wimplicit-fallthrough -Wmisleading-indentation)
set(STATICNET_USER_BUILD_WARNINGS_GNU -Wduplicated-cond -Wduplicated-branches -Wlogical-op)

function(staticnet_user_code_warnings target)
  staticnet_warnings(${target})
  target_compile_options(${target} PRIVATE
    "$<$<COMPILE_LANGUAGE:CXX>:${STATICNET_USER_BUILD_WARNINGS}>"
    "$<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:${STATICNET_USER_BUILD_WARNINGS_GNU}>")
endfunction()

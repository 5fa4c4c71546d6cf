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
# staticnet_model() generates (the list is in StaticnetUserWarnings.cmake, which the package
# installs, so a project using the package can turn the same warnings on for its own code).
include("${CMAKE_CURRENT_LIST_DIR}/StaticnetUserWarnings.cmake")

function(staticnet_user_code_warnings target)
  staticnet_warnings(${target})
  target_compile_options(${target} PRIVATE
    "$<$<COMPILE_LANGUAGE:CXX>:${STATICNET_USER_BUILD_WARNINGS}>"
    "$<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:${STATICNET_USER_BUILD_WARNINGS_GNU}>")
endfunction()

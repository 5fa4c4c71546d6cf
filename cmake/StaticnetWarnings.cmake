# Warnings in the project's own targets. They become errors only when
# STATICNET_WARNINGS_AS_ERRORS is on (the presets and CI turn it on): a user's plain
# `cmake -DCMAKE_BUILD_TYPE=Release` must build with any supported compiler, whatever new
# warning that compiler's optimiser invents.
option(STATICNET_WARNINGS_AS_ERRORS "Treat warnings in staticnet's own targets as errors" OFF)

function(staticnet_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(STATICNET_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# Warnings are errors in the project's own targets (never imposed on users of the package).
function(staticnet_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Werror)
endfunction()

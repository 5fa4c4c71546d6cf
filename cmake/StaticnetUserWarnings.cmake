# The warnings that the code staticnet puts into a user's build (the public headers, and what
# staticnet_model() generates) compiles without, under g++ and clang++: the project's own targets
# that compile that code turn them on and make them errors. Installed with the package, so that
# find_package(staticnet) sets both lists for a project that wants the same warnings:
#   target_compile_options(app PRIVATE ${STATICNET_USER_BUILD_WARNINGS}
#                          $<$<CXX_COMPILER_ID:GNU>:${STATICNET_USER_BUILD_WARNINGS_GNU}>)
#
# Users of embedded toolchains often turn on, and make errors, the warnings of
# cpp-best-practices' list (-Wconversion; -Wdouble-promotion, where a double on a Cortex-M4F is a
# software routine; -Wold-style-cast, ...). Left out: -Wuseless-cast, whose verdict depends on
# the target (a cast from uint64_t to size_t is needed on a 32-bit Cortex-M and useless on
# x86-64).
set(STATICNET_USER_BUILD_WARNINGS
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Wunused
    -Woverloaded-virtual -Wconversion -Wsign-conversion -Wnull-dereference -Wdouble-promotion
    -Wformat=2 -Wimplicit-fallthrough -Wmisleading-indentation)
# g++ only.
set(STATICNET_USER_BUILD_WARNINGS_GNU -Wduplicated-cond -Wduplicated-branches -Wlogical-op)

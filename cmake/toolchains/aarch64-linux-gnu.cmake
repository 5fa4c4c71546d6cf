# Cross-compiles staticnet and generated trainers for 64-bit ARM Linux (a Jetson's CPU, a
# Raspberry Pi 4/5, Graviton) from an x86-64 Debian or Ubuntu host:
#
#   apt-get install g++-aarch64-linux-gnu qemu-user
#   dpkg --add-architecture arm64 && apt-get update
#   apt-get install libopenblas-dev:arm64 libfmt-dev:arm64
#   cmake -B build/aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
#
# The target's libraries come from Debian's multiarch folders (/usr/lib/aarch64-linux-gnu);
# header-only ones (CLI11, nlohmann-json, doctest) are shared with the host. staticnet_model()
# runs its generator, built for the target like everything else, through qemu-aarch64, and
# analyzes through it; ctest runs test programs through it too. Programs that the tests' drivers
# start themselves need qemu-user-binfmt's registration: scripts/aarch64-check.sh does it all.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# -L /: the target's dynamic loader and libc are Debian's multiarch libc6:arm64 (installed with
# libopenblas-dev:arm64), the same that the arm64 libraries in /usr/lib/aarch64-linux-gnu were
# built against. Not the cross toolchain's copy in /usr/aarch64-linux-gnu: mixed with those
# libraries it made threaded programs (the batch loader's tests, OpenBLAS) hang under qemu.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /)

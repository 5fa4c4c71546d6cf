#!/usr/bin/env bash
# The CUDA backend against the CUDA toolkits Jetsons use, checked on an x86-64 machine without a
# board or a GPU. Two checks:
#
#   orin   JetPack 6 (Jetson Orin): CUDA 12.6, cuBLAS 12.6, cuDNN 9.3. NVIDIA keeps Orin (sm_87)
#          on CUDA 12, and a CUDA 13 program does not run on JetPack 6's driver, so an Orin's
#          CUDA trainer is built on the board with JetPack's toolkit. PyPI has those versions'
#          headers but not CUDA 12's nvcc: this compiles every C++ source of the CUDA backend (the
#          library wrappers, the runtime, the generated trainers and inference programs, the GPU
#          tests) with g++ and -Werror against them, from BUILD_DIR's compile commands. The .cu
#          files are not compiled with CUDA 12.6's nvcc.
#   sbsa   CUDA 13 for 64-bit ARM (NVIDIA's SBSA target: Jetson Thor, Grace, DGX Spark): the
#          CUDA trainers cross-built with cmake/toolchains/aarch64-linux-gnu.cmake and this
#          machine's nvcc, against a targets/sbsa-linux folder made from PyPI's aarch64 wheels
#          (what NVIDIA's cuda-cross-sbsa package installs; the driver stub is an empty library),
#          then run under qemu, where each must stop saying there is no CUDA device.
#
#   scripts/jetson-cuda-check.sh [orin] [sbsa]     (default both)
#   environment: BUILD_DIR (default build/gcc, configured with the CUDA backend),
#                WORK_DIR (default build/jetson-cuda; about 3 GB of wheels and builds)
set -euo pipefail
cd "$(dirname "$0")/.."
checks=${*:-orin sbsa}
build=$(realpath "${BUILD_DIR:-build/gcc}")
work=$(realpath -m "${WORK_DIR:-build/jetson-cuda}")
mkdir -p "$work"
frontend=$(ls -d /usr/local/cudnn-frontend-*/include 2>/dev/null | tail -1)
if [[ ! -f $frontend/cudnn_frontend.h ]]; then
  echo "jetson-cuda-check: no cuDNN frontend in /usr/local: run scripts/install-deps.sh" >&2
  exit 2
fi

# Downloads NVIDIA's wheels for a platform into $work/wheels-PLATFORM and unpacks their nvidia/
# folders into $work/PLATFORM (headers only unless ALL_FILES=1).
unpack_wheels() {
  local platform=$1
  shift
  python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 \
    --platform "manylinux2014_$platform" --platform "manylinux_2_17_$platform" \
    --platform "manylinux_2_27_$platform" --dest "$work/wheels-$platform" "$@"
  python3 - "$work/wheels-$platform" "$work/$platform" "${ALL_FILES:-0}" <<'PY'
import pathlib, sys, zipfile
wheels, out, everything = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3] == "1"
for wheel in wheels.glob("*.whl"):
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.startswith("nvidia/") and (everything or "/include/" in name):
                z.extract(name, out)
PY
}

if [[ " $checks " == *" orin "* ]]; then
  unpack_wheels x86_64 nvidia-cuda-runtime-cu12==12.6.77 nvidia-cuda-nvcc-cu12==12.6.85 \
    nvidia-cuda-nvrtc-cu12==12.6.85 nvidia-cuda-cccl-cu12==12.6.77 \
    nvidia-cublas-cu12==12.6.4.1 nvidia-cudnn-cu12==9.3.0.75
  ninja -C "$build" -t compdb >"$work/compile_commands.json"
  python3 - "$work/compile_commands.json" "$work/x86_64/nvidia" <<'PY'
import json, os, shlex, subprocess, sys
commands, nvidia = json.load(open(sys.argv[1])), sys.argv[2]
headers = [f"-isystem{nvidia}/{part}/include" for part in
           ("cuda_runtime", "cublas", "cudnn", "cuda_nvrtc", "cuda_cccl", "cuda_nvcc")]

def nvidia_headers(folder):  # this machine's CUDA toolkit or cuDNN
    return any(os.path.exists(os.path.join(folder, h)) for h in ("cuda_runtime.h", "cudnn.h"))

failed, checked = [], 0
for c in commands:
    if not c["file"].endswith(".cpp"):
        continue
    # The same command with no output, and CUDA 12.6's and cuDNN 9.3's headers in place of this
    # machine's; -Werror stays, so a deprecation warning fails too.
    words, kept, swapped = shlex.split(c["command"]), [], False
    i = 0
    while i < len(words):
        w = words[i]
        if w in ("-isystem", "-I") and nvidia_headers(words[i + 1]):
            swapped, i = True, i + 2
        elif w in ("-o", "-MT", "-MF"):
            i += 2
        else:
            if w != "-MD":
                kept.append(w)
            i += 1
    if not swapped:
        continue
    checked += 1
    r = subprocess.run(kept + headers + ["-fsyntax-only"], cwd=c["directory"],
                       capture_output=True, text=True)
    if r.returncode:
        failed.append(c["file"])
        print(r.stderr[:4000], file=sys.stderr)
print(f"orin: {checked} C++ sources of the CUDA backend against CUDA 12.6, cuBLAS 12.6 and "
      f"cuDNN 9.3: {checked - len(failed)} compile" +
      (f", FAILED: {' '.join(failed)}" if failed else ""))
if not checked or failed:
    sys.exit(1)
PY
fi

if [[ " $checks " == *" sbsa "* ]]; then
  scripts/install-deps.sh g++-aarch64-linux-gnu qemu-user libopenblas-dev:arm64 libfmt-dev:arm64
  ALL_FILES=1 unpack_wheels aarch64 nvidia-cuda-runtime==13.0.96 nvidia-cuda-nvrtc==13.0.88 \
    nvidia-cublas==13.0.2.14 nvidia-cudnn-cu13==9.19.0.56
  # A toolkit folder beside this machine's: its nvcc (which looks for targets/ next to bin/) and
  # a targets/sbsa-linux of the aarch64 libraries, with the x86-64 headers (the same files).
  # CMake 3.25 asks for targets/aarch64-linux, nvcc for sbsa-linux: both names lead there.
  cuda=$(dirname "$(dirname "$(realpath "$(command -v nvcc)")")")
  toolkit=$work/cuda-sbsa
  rm -rf "$toolkit" && mkdir -p "$toolkit/targets/sbsa-linux/lib/stubs"
  cp -a "$cuda/bin" "$toolkit/bin"
  ln -s "$cuda/nvvm" "$toolkit/nvvm"
  ln -s "$cuda/targets/x86_64-linux/include" "$toolkit/targets/sbsa-linux/include"
  ln -s sbsa-linux "$toolkit/targets/aarch64-linux"
  lib=$toolkit/targets/sbsa-linux/lib
  cp "$work"/aarch64/nvidia/cu13/lib/* "$work"/aarch64/nvidia/cudnn/lib/* "$lib/"
  for so in "$lib"/*.so.*; do ln -sf "$(basename "$so")" "${so%%.so.*}.so"; done
  echo "" | aarch64-linux-gnu-gcc -x c -shared -Wl,-soname,libcuda.so.1 -o "$lib/stubs/libcuda.so" -
  cmake -S . -B "$work/build-sbsa" -G Ninja \
    -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake -DCMAKE_BUILD_TYPE=Release \
    -DSTATICNET_WARNINGS_AS_ERRORS=ON -DCMAKE_CUDA_COMPILER="$toolkit/bin/nvcc" \
    -DCMAKE_CUDA_HOST_COMPILER=aarch64-linux-gnu-g++ -DCUDNN_ROOT="$work/aarch64/nvidia/cudnn" \
    -DSTATICNET_CUDNN_FRONTEND_INCLUDE_DIR="$frontend" >"$work/configure-sbsa.txt"
  grep -q 'staticnet: CUDA backend: ON' "$work/configure-sbsa.txt" || {
    cat "$work/configure-sbsa.txt" >&2
    exit 1
  }
  trainers="resnet8 ds_cnn mobilenet_v1 fc_autoencoder simple_cnn"
  cmake --build "$work/build-sbsa" --target $(printf '%s_trainer_cuda ' $trainers) \
    digits_infer_cuda
  for t in $trainers; do
    program=$work/build-sbsa/samples/${t}_trainer_cuda
    aarch64-linux-gnu-readelf -h "$program" | grep -q 'Machine: *AArch64' ||
      { echo "sbsa: $program is not an aarch64 program" >&2; exit 1; }
    if said=$(LD_LIBRARY_PATH=$lib qemu-aarch64 -L / "$program" --data synthetic:64 2>&1); then
      echo "sbsa: $t trained without a GPU?" >&2
      exit 1
    fi
    grep -q 'no CUDA device' <<<"$said" || { echo "sbsa: $t: $said" >&2; exit 1; }
  done
  echo "sbsa: the CUDA trainers of $trainers and digits_infer_cuda cross-build for aarch64" \
    "with CUDA 13; under qemu each stops with: ${said#*: }"
fi

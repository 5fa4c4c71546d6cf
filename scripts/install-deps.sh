#!/usr/bin/env bash
# Installs the Debian packages staticnet builds with, and any named as arguments (for example
# scripts/aarch64-check.sh's cross compiler), only those that are missing. Where the CUDA Toolkit
# is installed (nvcc on PATH or in /usr/local/cuda/bin), it also installs the header-only cuDNN
# C++ frontend the CUDA backend builds with, at the version it is checked with, into
# /usr/local/cudnn-frontend-<version>/include (its headers include "../include/...", so the
# folder must be named include), where staticnet's CMake finds it. The CUDA Toolkit and cuDNN 9
# themselves come from NVIDIA's packages.
# Runs as root on a clean Debian 12 machine (uses sudo when not root and sudo exists).
#   scripts/install-deps.sh [PACKAGE...]
set -euo pipefail

packages=(
  cmake ninja-build g++ clang libclang-rt-14-dev   # compilers, build, sanitizer + libFuzzer runtimes
  clang-format                                     # formats the generated code
  doctest-dev                                      # unit tests
  libcli11-dev                                     # command lines of the staticnet tool
  nlohmann-json3-dev                               # JSON: safetensors headers, reports
  libfmt-dev                                       # formatting in tools and reports
  libopenblas-dev                                  # matrix products of the generated CPU step
  python3                                          # fixture scripts, compile-fail test driver
  python3-venv                                     # build/python-env for the safetensors interop tests
  python3-jsonschema                               # validates the analyzer's JSON against its schema
  chromium python3-pil fonts-dejavu-core           # renders the analyzer's SVG to PNG in a test
  gcc-arm-none-eabi libnewlib-arm-none-eabi        # builds the int8 inference for a Cortex-M
  libstdc++-arm-none-eabi-newlib                   # its freestanding C++ headers (<cstdint>)
  qemu-system-arm                                  # runs it on an emulated Cortex-M7 in a test
)

packages+=("$@")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  echo "staticnet: installing ${missing[*]}"
  # A package of another architecture (libopenblas-dev:arm64) needs that architecture known to
  # dpkg before apt-get update reads its package lists.
  for p in "${missing[@]}"; do
    if [[ $p == *:* ]] && ! dpkg --print-foreign-architectures | grep -qx "${p##*:}"; then
      "${sudo_cmd[@]}" dpkg --add-architecture "${p##*:}"
    fi
  done
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# ---- cuDNN's C++ frontend (header-only), for the CUDA backend
# The version cmake/StaticnetCuda.cmake asks for (STATICNET_CUDNN_FRONTEND_VERSION): the
# frontend's API moves between releases, and a newer one could break a build that passed here.
cudnn_frontend_version=1.32.0
cudnn_frontend_dir=/usr/local/cudnn-frontend-$cudnn_frontend_version/include

# PyPI ships it as nvidia-cudnn-frontend, whose wheel holds the headers under include/ (beside
# Python bindings staticnet does not use). pip comes from a throw-away virtual environment:
# Debian's python3 has none of its own. Returns non-zero at the first step that fails.
install_cudnn_frontend() {
  local work status sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  work=$(mktemp -d) || return 1
  python3 -m venv "$work/venv" &&
    "$work/venv/bin/python" -m pip download --quiet --disable-pip-version-check --no-deps \
      --only-binary=:all: --dest "$work/wheel" "nvidia-cudnn-frontend==$cudnn_frontend_version" &&
    "$work/venv/bin/python" - "$work/wheel" "$work/include" <<'PY' &&
import pathlib, sys, zipfile
wheel = next(pathlib.Path(sys.argv[1]).glob("*.whl"))
out = pathlib.Path(sys.argv[2])
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.startswith("include/") and not name.endswith("/"):
            target = out / name[len("include/"):]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(z.read(name))
PY
    [[ -f $work/include/cudnn_frontend.h ]] &&
    "${sudo_cmd[@]}" mkdir -p "$cudnn_frontend_dir" &&
    "${sudo_cmd[@]}" cp -R "$work/include/." "$cudnn_frontend_dir/" &&
    "${sudo_cmd[@]}" chmod -R a+rX "$cudnn_frontend_dir"
  status=$?
  rm -rf "$work"
  return $status
}

if { command -v nvcc >/dev/null || [[ -x /usr/local/cuda/bin/nvcc ]]; } &&
  [[ ! -f $cudnn_frontend_dir/cudnn_frontend.h ]]; then
  echo "staticnet: installing cuDNN's C++ frontend $cudnn_frontend_version into $cudnn_frontend_dir"
  # Best effort: without it only the CUDA backend is off (configure says so), and the main job
  # and the CPU trainers need none of it.
  if ! install_cudnn_frontend; then
    echo "staticnet: warning: cuDNN's C++ frontend $cudnn_frontend_version could not be installed" \
      "(is PyPI reachable?): the CUDA backend stays off until it is; run" \
      "scripts/install-deps.sh again then" >&2
  fi
fi

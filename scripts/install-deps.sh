#!/usr/bin/env bash
# Installs the Debian packages staticnet builds with, and any named as arguments (for example
# scripts/aarch64-check.sh's cross compiler), only those that are missing.
# Runs as root on a clean Debian 12 machine (uses sudo when not root and sudo exists).
#   scripts/install-deps.sh [PACKAGE...]
set -euo pipefail

packages=(
  cmake ninja-build g++ clang libclang-rt-14-dev   # compilers, build, sanitizer + libFuzzer runtimes
  doctest-dev                                      # unit tests
  libcli11-dev                                     # command lines of the staticnet tool
  nlohmann-json3-dev                               # JSON: safetensors headers, reports
  libfmt-dev                                       # formatting in tools and reports
  libopenblas-dev                                  # matrix products of the generated CPU step
  python3                                          # fixture scripts, compile-fail test driver
  python3-venv                                     # build/python-env for the safetensors interop tests
  python3-jsonschema                               # validates the analyzer's JSON against its schema
  chromium python3-pil fonts-dejavu-core           # renders the analyzer's SVG to PNG in a test
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

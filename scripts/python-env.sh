#!/usr/bin/env bash
# Creates build/python-env, a Python virtual environment with the `safetensors` and `numpy`
# packages that the checkpoint interop tests (tests/runtime/python_interop.cmake) run, and
# installs them only when they are missing. Where nvcc is on PATH it also installs
# nvidia-cudnn-frontend, whose include/ holds cuDNN's header-only C++ frontend that the CUDA
# backend builds with (CMake finds it there). Needs python3 with venv (Debian: python3-venv,
# installed by scripts/install-deps.sh). Prints the interpreter's path.
set -euo pipefail
cd "$(dirname "$0")/.."

env_dir=build/python-env
python=$env_dir/bin/python3

if [[ ! -x $python ]]; then
  echo "staticnet: creating the Python environment $env_dir" >&2
  mkdir -p build
  python3 -m venv "$env_dir"
fi
if ! "$python" -c 'import safetensors, numpy' 2>/dev/null; then
  echo "staticnet: installing safetensors and numpy into $env_dir" >&2
  "$python" -m pip install --quiet --disable-pip-version-check safetensors numpy
fi
"$python" -c 'import safetensors, numpy'  # fail here, not in the tests, if that did not work
if command -v nvcc >/dev/null &&
  ! compgen -G "$env_dir/lib/python3*/site-packages/include/cudnn_frontend.h" >/dev/null; then
  echo "staticnet: installing nvidia-cudnn-frontend (cuDNN's C++ frontend headers) into $env_dir" >&2
  # The version the CUDA backend is built and checked with: the frontend's API moves between
  # releases, and a newer one could break a user's build that passed here.
  "$python" -m pip install --quiet --disable-pip-version-check --no-deps \
    nvidia-cudnn-frontend==1.32.0
fi
echo "$PWD/$python"

#!/usr/bin/env bash
# Creates build/python-env, a Python virtual environment with the `safetensors` and `numpy`
# packages that the checkpoint interop tests (tests/runtime/python_interop.cmake) run, and
# installs them only when they are missing. Needs python3 with venv (Debian: python3-venv,
# installed by scripts/install-deps.sh, which also installs cuDNN's C++ frontend for the CUDA
# backend). Prints the interpreter's path.
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
echo "$PWD/$python"

#!/usr/bin/env bash
# Runs a command with OpenBLAS forced onto one of its x86 kernels, where this CPU has the
# instructions that kernel needs; otherwise reports the test skipped (exit 77).
#
#   with_openblas_kernel.sh KERNEL CPU_FLAG... -- COMMAND [ARG...]
#
# OpenBLAS picks its kernel by CPU, and its kernels round differently. The PyTorch fixtures must
# pass on each, not only on the kernel of the machine that made them: the MLPerf Tiny fixtures
# once passed on Intel's kernel and failed on AMD's (make_mlperf_fixtures.py, "ReLU's kink").
set -euo pipefail
kernel=$1
shift
while [[ $1 != -- ]]; do
  if ! grep -qw "$1" /proc/cpuinfo 2>/dev/null; then
    echo "skipped: OpenBLAS's $kernel kernel needs the CPU flag '$1', which this CPU lacks"
    exit 77
  fi
  shift
done
shift
OPENBLAS_CORETYPE=$kernel exec "$@"

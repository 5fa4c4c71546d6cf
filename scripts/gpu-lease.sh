#!/usr/bin/env bash
# Every check of scripts/gpu-checks.sh in one call of a few minutes, for a lease of GPU time that
# is short (this workplace lends 15 minutes a session, machine start included). Two phases:
#
#   1. untimed, side by side: the gpu tests, the training comparisons, compute-sanitizer (a job
#      per model) and torch.compile's warm-up (filling inductor's cache on disk). Correctness
#      does not depend on having the GPU alone; each job ends by the phase's end.
#   2. timed, one at a time: the MLPerf Tiny models against PyTorch, then SimpleCNN (with and
#      without Prefetch) and LeNet-5. A measurement that would end after the deadline is skipped
#      with a note (STATICNET_GPU_DEADLINE).
#
# On an H200 on 2026-11-27, `scripts/gpu-lease.sh build/gpu /tmp/r1 380 160` took 355 s (the
# machine's start and the transfers another 36 s); every untimed check but the slowest racechecks
# and the CPU trainer of MobileNetV1 ended within the 160 s (bench/RESULTS.md says which).
#
#   scripts/gpu-lease.sh BIN_DIR OUT_DIR SECONDS [PHASE1_SECONDS]
#   (the device tool: carry build/gpu.tar.xz and run
#    tar xJf build/gpu.tar.xz -C build && scripts/gpu-lease.sh build/gpu /tmp/r 400;
#    tar czf $OUT/r.tgz -C /tmp r)
# OUT_DIR gets a folder per job, each with its summary.txt; all summaries are printed last.
set -uo pipefail
bin=$(cd "$1" && pwd)
out=$(mkdir -p "$2" && cd "$2" && pwd)
total=$3
phase1=${4:-$((total * 2 / 5))}
here=$(cd "$(dirname "$0")" && pwd)
start=$(date +%s)
export PATH="$PATH:/usr/local/cuda/bin"
checks=("$here/gpu-checks.sh" "$bin")

# Phase 1. `timeout` ends a job that runs on; what it wrote so far stays.
jobs=()
run_job() {
  local name=$1
  shift
  (timeout "$phase1" "$@" >"$out/$name.log" 2>&1; echo "exit $?" >>"$out/$name.log") &
  jobs+=($!)
}
STATICNET_TEST_JOBS=4 run_job tests "${checks[@]}" "$out/tests" tests
run_job train "${checks[@]}" "$out/train" train
for model in simple_cnn lenet5 resnet8 ds_cnn mobilenet_v1 fc_autoencoder; do
  STATICNET_WARM_MODELS=$model run_job "warm_$model" "${checks[@]}" "$out/warm_$model" warm
done
for model in simple_cnn lenet5 resnet8 ds_cnn mobilenet_v1 fc_autoencoder simple_cnn_prefetch; do
  STATICNET_SANITIZE_MODELS=$model run_job "sanitize_$model" "${checks[@]}" "$out/sanitize_$model" sanitize
done
wait "${jobs[@]}"
# `timeout` signals its process group; anything of phase 1 that outlived it must not run on the
# GPU while it is timed. The patterns are anchored at the start of a command line: a bare
# "build/gpu/" would also match the shell that runs this script, if its command line names that.
pkill -f "^$bin/"
pkill -f '^[^ ]*compute-sanitizer '
pkill -f '^[^ ]*python[0-9.]* [^ ]*torch_cuda_step\.py '
sleep 1
echo "phase 1 took $(($(date +%s) - start)) s" | tee "$out/phase1.txt"

# Phase 2: the GPU to the timings alone.
# The MLPerf Tiny models first: none of their GPU numbers exists yet.
export STATICNET_GPU_DEADLINE=$((start + total))
"${checks[@]}" "$out/timed_mlperf" mlperf >"$out/timed_mlperf.log" 2>&1
"${checks[@]}" "$out/timed_bench" bench >"$out/timed_bench.log" 2>&1
echo "both phases took $(($(date +%s) - start)) s" | tee -a "$out/phase1.txt"

echo
for summary in "$out"/*/summary.txt; do
  echo "==== $(basename "$(dirname "$summary")")"
  grep -v '^GPU: ' "$summary"
done
head -1 "$out/tests/summary.txt"

#!/usr/bin/env bash
# Every check of scripts/gpu-checks.sh in one call of a few minutes, for a lease of GPU time that
# is short (this workplace lends 15 minutes a session, machine start included). Two phases:
#
#   1. untimed, side by side: the gpu tests, the training comparisons, compute-sanitizer (a job
#      per model) and torch.compile's warm-up (filling inductor's cache on disk). Correctness
#      does not depend on having the GPU alone; a job still running at the phase's end is ended,
#      and said to be cut off in the report.
#   2. timed, one at a time: the MLPerf Tiny models against PyTorch, then SimpleCNN (with and
#      without Prefetch) and LeNet-5. A measurement that would end after the deadline is skipped
#      with a note (STATICNET_GPU_DEADLINE), and one that runs past it is ended 30 s later, so
#      that the command ends (and what follows it, packing the results, runs) in time.
#
# On an H200 on 2026-11-27, `scripts/gpu-lease.sh build/gpu /tmp/r1 380 160` took 353 s (the
# machine's start and the transfers another 38 s). Within the 160 s of phase 1, all but three
# jobs ended: the racechecks of ResNet-8 and MobileNetV1, and the training comparisons from
# MobileNetV1's on (bench/cuda_step/results-2026-11-27/README.md).
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

# Runs a command under `timeout $1` into $out/$2.log, ending the log with its exit status (124:
# cut off at the limit; what it wrote so far stays).
logged() {
  local limit=$1 name=$2
  shift 2
  timeout "$limit" "$@" >"$out/$name.log" 2>&1
  echo "exit $?" >>"$out/$name.log"
}

# Phase 1, side by side.
jobs=()
run_job() {
  logged "$phase1" "$@" &
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
# `timeout` signals its process group, but a test case runs under a `timeout` of its own, in a
# group of its own: anything of phase 1 still running must end before the GPU is timed. The
# patterns are anchored at the start of a command line (a bare "build/gpu/" would also match the
# shell that runs this script, if its command line names that), and $bin's own characters are
# escaped.
leftovers=("^$(printf '%s' "$bin" | sed 's/[][\\.*^$()+?{}|]/\\&/g')/"
  '^[^ ]*compute-sanitizer ' '^[^ ]*python[0-9.]* [^ ]*torch_cuda_step\.py ')
for signal in TERM TERM TERM TERM TERM KILL; do
  running=0
  for pattern in "${leftovers[@]}"; do
    pkill "-$signal" -f "$pattern" && running=1
  done
  ((running)) || break
  sleep 2
done
echo "phase 1 took $(($(date +%s) - start)) s" | tee "$out/phase1.txt"

# Phase 2: the GPU to the timings alone.
# The MLPerf Tiny models first: none of their GPU numbers exists yet.
export STATICNET_GPU_DEADLINE=$((start + total))
timed() {
  local name=$1 left=$((start + total + 30 - $(date +%s)))
  shift
  logged "$((left > 0 ? left : 1))" "$name" "${checks[@]}" "$out/$name" "$@"
}
timed timed_mlperf mlperf
timed timed_bench bench
echo "both phases took $(($(date +%s) - start)) s" | tee -a "$out/phase1.txt"

echo
for summary in "$out"/*/summary.txt; do
  name=$(basename "$(dirname "$summary")")
  echo "==== $name"
  grep -v '^GPU: ' "$summary"
  # timeout's status: what the summary lists is all that ran
  [[ $(tail -1 "$out/$name.log") == "exit 124" ]] && echo "CUT OFF at its time limit: $name.log"
done
head -1 "$out/tests/summary.txt"

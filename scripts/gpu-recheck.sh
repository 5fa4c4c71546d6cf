#!/usr/bin/env bash
# After a change to the generated CUDA code, the checks that say whether it still runs right, and
# its step time against the build before it, in one call of about five minutes (for a short GPU
# lease whose PyTorch numbers are already measured: no PyTorch timing, no torch.compile warm-up).
#
#   scripts/gpu-recheck.sh BIN_DIR BASE_BIN_DIR OUT_DIR [PHASE1_SECONDS]
#
# Phase 1, side by side, each job ended at PHASE1_SECONDS (default 170): the gpu tests, the
# training comparisons (CPU against CUDA, graph against launch by launch) and compute-sanitizer's
# memcheck and racecheck for every sample's CUDA trainer (scripts/gpu-checks.sh's tests, train and
# sanitize). Phase 2, the GPU to itself: staticnet_bench_cuda_step of BIN_DIR (the change) and of
# BASE_BIN_DIR (the build before it; it needs only that program) on each model, alternated twice,
# with the CUDA graph.
#
# BIN_DIR as scripts/gpu-bundle.sh makes it. Each job's summary is printed last.
set -uo pipefail
bin=$(cd "$1" && pwd)
base=$(cd "$2" && pwd)
out=$(mkdir -p "$3" && cd "$3" && pwd)
phase1=${4:-170}
here=$(cd "$(dirname "$0")" && pwd)
export PATH="$PATH:/usr/local/cuda/bin"
start=$(date +%s)

jobs=()
run_job() {
  local name=$1
  shift
  timeout "$phase1" "$@" >"$out/$name.log" 2>&1 &
  jobs+=($!)
}
STATICNET_TEST_JOBS=4 run_job tests "$here/gpu-checks.sh" "$bin" "$out/tests" tests
run_job train "$here/gpu-checks.sh" "$bin" "$out/train" train
for model in simple_cnn lenet5 resnet8 ds_cnn mobilenet_v1 fc_autoencoder simple_cnn_prefetch; do
  STATICNET_SANITIZE_MODELS=$model run_job "sanitize_$model" \
    "$here/gpu-checks.sh" "$bin" "$out/sanitize_$model" sanitize
done
wait "${jobs[@]}"
# What a job's own `timeout` left running (a test case, compute-sanitizer) ends before timing.
# The patterns name this run's programs only ($bin's, under compute-sanitizer or not).
escaped=$(printf '%s' "$bin" | sed 's/[][\\.*^$()+?{}|]/\\&/g')
for signal in TERM KILL; do
  pkill "-$signal" -f "^$escaped/" || true
  pkill "-$signal" -f "^[^ ]*compute-sanitizer .*$escaped/" || true
  sleep 2
done
echo "phase 1 took $(($(date +%s) - start)) s" | tee "$out/phases.txt"

# Phase 2: the step time, the change against the base, alternated.
python=${PYTHON:-python3}
site=$("$python" -c 'import site; print(site.getsitepackages()[0])' 2>/dev/null || true)
libs="$bin/lib"
for d in "$site"/nvidia/*/lib; do [[ -d $d ]] && libs="$libs:$d"; done
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for round in 1 2; do
  for model in simple_cnn lenet5_adam resnet8 ds_cnn mobilenet_v1 fc_autoencoder; do
    for build in base change; do
      dir=$([[ $build == base ]] && echo "$base" || echo "$bin")
      line=$("$dir/staticnet_bench_cuda_step" "$model" 2>&1 | grep -o 'ms_per_step=[0-9.]*')
      echo "step $round $model $build ${line:-failed}" | tee -a "$out/steps.txt"
    done
  done
done
echo "both phases took $(($(date +%s) - start)) s" | tee -a "$out/phases.txt"

echo
for summary in "$out"/*/summary.txt; do
  name=$(basename "$(dirname "$summary")")
  echo "==== $name"
  grep -v '^GPU: ' "$summary"
done
cat "$out/steps.txt"

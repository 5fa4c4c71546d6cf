#!/usr/bin/env bash
# A generated CPU trainer on a machine whose cores are busy with other work (a CI runner, a board
# running other programs): `yes` processes take 0, 1, then 2 cores while two builds of the same
# trainer (say, before and after a change) train on scikit-learn's digits at 1 and 2 compute
# threads, alternating. Prints the wall time of each run, in seconds.
#   bench/busy_machine/run.sh BEFORE_TRAINER AFTER_TRAINER [ROUNDS] [EPOCHS]
# The trainers are digits_cnn_trainer_cpu builds (samples/CMakeLists.txt).
set -euo pipefail
before=$(realpath "$1")
after=$(realpath "$2")
rounds=${3:-3}
epochs=${4:-20}
cd "$(dirname "$0")/../../samples/digits"
hogs_pids=()
stop_hogs() {
  if ((${#hogs_pids[@]})); then kill "${hogs_pids[@]}" 2>/dev/null || true; fi
  hogs_pids=()
}
trap stop_hogs EXIT
seconds() {  # the wall time of one training run
  local start end
  start=$(date +%s.%N)
  timeout 300 "$1" --data train_images.npy --labels train_labels.npy --epochs "$epochs" \
    --threads "$2" --progress none >/dev/null
  end=$(date +%s.%N)
  printf '%.3f' "$(echo "$end - $start" | bc)"
}
echo "busy cores | round | before 1 thread | before 2 threads | after 1 thread | after 2 threads"
for hogs in 0 1 2; do
  for ((i = 0; i < hogs; i++)); do
    yes >/dev/null &
    hogs_pids+=($!)
  done
  sleep 1
  for ((round = 1; round <= rounds; round++)); do
    echo "$hogs | $round | $(seconds "$before" 1) | $(seconds "$before" 2) |" \
      "$(seconds "$after" 1) | $(seconds "$after" 2)"
  done
  stop_hogs
  sleep 2
done

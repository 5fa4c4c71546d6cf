#!/usr/bin/env bash
# The third of this session's device calls, as run (README.md here): the compute-sanitizer jobs
# the first left out, a job per model side by side.
set -u
tar xJf build/gpu.tar.xz -C build
out=$OUT/s; mkdir -p $out
start=$(date +%s)
for job in "memcheck lenet5" "memcheck mobilenet_v1" "memcheck fc_autoencoder" "memcheck simple_cnn_prefetch" \
           "racecheck simple_cnn" "racecheck lenet5" "racecheck resnet8" "racecheck ds_cnn" \
           "racecheck mobilenet_v1" "racecheck fc_autoencoder" "racecheck simple_cnn_prefetch"; do
  set -- $job
  (STATICNET_SANITIZE_MODELS=$2 STATICNET_SANITIZE_TOOLS=$1 timeout 250 scripts/gpu-checks.sh build/gpu $out/$1_$2 sanitize > $out/$1_$2.log 2>&1; echo "exit $?" >> $out/$1_$2.log) &
done
wait
echo "took $(( $(date +%s) - start )) s"
for f in $out/*/summary.txt; do grep -v "^GPU" $f; done
for f in $out/*.log; do [[ $(tail -1 $f) == "exit 124" ]] && echo "CUT OFF: $f"; done
true

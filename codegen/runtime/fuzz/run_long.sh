#!/usr/bin/env bash
# A long fuzzing session over the five runtime fuzz targets, at most two at a time, each at nice 19
# for SECONDS_PER_TARGET seconds, in libFuzzer's fork mode with crashes, timeouts and OOMs
# ignored (so one known crash does not end a target's session early; every crashing input is
# still written to <work>/<target>/artifacts/). Each target starts from a fresh copy of its
# committed corpus; the committed corpora are never modified.
#
#   codegen/runtime/fuzz/run_long.sh [build dir] [work dir] [seconds per target]
#   defaults: build/fuzz, build/fuzz-long, 900
#
# Prints, per target, the last status line (executions, cov, ft, corpus size) and the crash
# count; the full logs are <work>/<target>/log.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:-build/fuzz}")
work=$(realpath -m "${2:-build/fuzz-long}")
seconds=${3:-900}
targets=(safetensors csv npy idx cifar)

mkdir -p "$work/bin"
# Copies, so that rebuilding during the session does not replace a running binary.
for t in "${targets[@]}"; do
  cp "$build/codegen/runtime/fuzz/staticnet_fuzz_$t" "$work/bin/"
done

run_one() {
  local t=$1 max_len=4096 dict=()
  [[ $t == cifar ]] && max_len=16384
  [[ -f $here/dict/$t.dict ]] && dict=(-dict="$here/dict/$t.dict")
  rm -rf "$work/$t"
  mkdir -p "$work/$t/corpus" "$work/$t/artifacts"
  cp "$here/corpus/$t/"* "$work/$t/corpus/"
  local start=$(date -u +%FT%TZ)
  set +e
  nice -n 19 "$work/bin/staticnet_fuzz_$t" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 \
    -ignore_ooms=1 -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -malloc_limit_mb=512 -max_len="$max_len" "${dict[@]}" -artifact_prefix="$work/$t/artifacts/" \
    "$work/$t/corpus" >"$work/$t/log" 2>&1
  local rc=$?
  set -e
  echo "$t: start $start end $(date -u +%FT%TZ) exit $rc" >"$work/$t/summary"
  grep -E '^#[0-9]+: cov:' "$work/$t/log" | tail -1 >>"$work/$t/summary" || true
  echo "corpus files at end: $(ls "$work/$t/corpus" | wc -l)" >>"$work/$t/summary"
  echo "artifacts: $(ls "$work/$t/artifacts" | wc -l)" >>"$work/$t/summary"
}
export -f run_one
export here work seconds

printf '%s\n' "${targets[@]}" | xargs -P 2 -I{} bash -c 'run_one {}'
cat "$work"/*/summary

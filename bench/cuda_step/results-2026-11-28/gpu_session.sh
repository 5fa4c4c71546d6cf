#!/usr/bin/env bash
# The first of this session's three device calls, as run (README.md here): the gpu tests, the
# training comparisons and memcheck over three trainers side by side, then the accumulate part.
set -u
tar xJf build/gpu.tar.xz -C build
out=$OUT/r; mkdir -p $out
b=build/gpu
start=$(date +%s)
(STATICNET_TEST_JOBS=6 timeout 230 scripts/gpu-checks.sh $b $out/tests tests > $out/tests.log 2>&1) &
(timeout 230 scripts/gpu-checks.sh $b $out/train train > $out/train.log 2>&1) &
(STATICNET_SANITIZE_MODELS="simple_cnn resnet8 ds_cnn" STATICNET_SANITIZE_TOOLS=memcheck timeout 230 scripts/gpu-checks.sh $b $out/san san sanitize > $out/san.log 2>&1) &
(export LD_LIBRARY_PATH=$(ls -d /opt/torch/.venv/lib/python3*/site-packages/nvidia/*/lib 2>/dev/null | paste -sd:):$b/lib;
 STATICNET_FIXTURE_DIR=$PWD/tests/reference/fixtures timeout 230 compute-sanitizer --tool memcheck --error-exitcode 9 $b/staticnet_cuda_tests -tc="*ds_cnn under Accumulate*" > $out/san_acc.log 2>&1; echo "exit $?" >> $out/san_acc.log) &
wait
echo "phase 1: $(( $(date +%s) - start )) s"
timeout 150 scripts/gpu-checks.sh $b $out/acc accumulate > $out/acc.log 2>&1
echo "total: $(( $(date +%s) - start )) s"
for f in $out/*/summary.txt; do echo "== $f"; cat $f; done
tail -3 $out/san_acc.log
grep -B2 -A25 "FAILED\|ERROR" $out/tests/cuda_tests.txt | head -150

#!/usr/bin/env bash
# The checks only a GPU can run, in one go, on a machine with an NVIDIA GPU, its driver, PyTorch,
# compute-sanitizer, and cuDNN/cuBLASLt (the system's or PyTorch's pip packages).
#
#   scripts/gpu-checks.sh BIN_DIR OUT_DIR [part...]
#   parts: tests train sanitize bench mlperf accumulate autocast profile warm (default: tests
#   train sanitize bench mlperf). The device tool
#   allows 10 minutes a command: run them in a few calls (tests train; sanitize; bench mlperf),
#   each under `timeout 570` so that what was done (OUT_DIR/summary.txt grows check by check)
#   still comes back when a part runs long.
#
# BIN_DIR holds the programs a Release build made (the trainers, the gpu-labelled test program and
# the benchmarks of -DSTATICNET_BUILD_BENCH=ON) and, optionally, lib/ with shared libraries the GPU
# machine lacks (OpenBLAS and its Fortran runtime). scripts/gpu-bundle.sh builds such a folder,
# build/gpu, and packs it into build/gpu.tar.xz for the trip (tar xJf build/gpu.tar.xz -C build).
# Everything lands in OUT_DIR;
# a summary is printed last, and written to OUT_DIR/summary.txt as each check ends.
#   tests     the gpu-labelled test program (staticnet_cuda_tests, each test case in a process of
#             its own, the fixtures read from this checkout): every fixture model's CUDA step and
#             the MLPerf Tiny inference programs' forward pass against PyTorch, staticnet::cuda's
#             kernels against float64 references; then the digits checkpoint through
#             digits_infer_cpu and digits_infer_cuda (the correct answers should agree, +-1)
#   train     SimpleCNN and LeNet-5 on synthetic data, 3 epochs, --metrics (compare with the CPU
#             trainer's metrics for the same arguments); SimpleCNN again launch by launch
#             (STATICNET_CUDA_GRAPHS=0): the saved checkpoints must hold the same tensors and
#             metadata, bit for bit; and
#             SimpleCNN with Prefetch (bench/cuda_step): same losses, and its samples/s beside the
#             sample's; the four MLPerf Tiny trainers on both backends, 2 epochs from one seed:
#             same losses to rounding; and each one's CUDA trainer with the graph and launch by
#             launch: the same checkpoint
#   sanitize  compute-sanitizer memcheck and racecheck over one epoch of three batches and an
#             evaluation of three, for each sample's CUDA trainer (the MLPerf Tiny ones and
#             SimpleCNN with Prefetch included): the first step runs launch by launch, the second
#             is captured, the third replays the graph, and the evaluation does the same
#   bench     step time and memory against PyTorch eager and torch.compile (its default mode and
#             reduce-overhead) (bench/cuda_step) of SimpleCNN and LeNet-5, and SimpleCNN's step
#             with Prefetch (the batch's copy overlapping the step) beside it
#   mlperf    the direct (depthwise, uneven-padded) convolution kernels against cuDNN's engines
#             (staticnet_bench_direct_conv, unless STATICNET_MLPERF_MODELS names models), then
#             the same as bench for the four MLPerf Tiny models at their reference batches
#             (torch.compile's default mode only)
#   accumulate  sn::Accumulate<4>'s price: the CUDA step of SimpleCNN and ResNet-8 with and
#             without it (bench/cuda_step/accumulate_setups.hpp), their arenas, and PyTorch eager's
#             accumulation loop for the same (its step time and max_memory_allocated)
#   autocast  PyTorch's side of mixed precision on the GPU: each sample model's eager step under
#             torch.autocast (bf16; f16 with GradScaler) beside FP32, its step time and
#             max_memory_allocated (staticnet's CUDA trainer does not render mixed precision yet)
#   profile   where the step's time goes: every cuDNN engine for the samples' convolutions
#             (staticnet_bench_conv_engines), Nsight Compute's duration of each kernel of a few
#             launch-by-launch steps, and torch.profiler's kernels for PyTorch's eager step
#   warm      torch.compile of every benchmarked model, a few steps each, untimed: it fills
#             inductor's cache on disk, so that bench and mlperf time the step and not the
#             compiler (scripts/gpu-lease.sh runs it beside the untimed parts)
#
# Environment, for fitting a lease (scripts/gpu-lease.sh sets them):
#   STATICNET_GPU_DEADLINE   a time (seconds since the epoch) after which no timed measurement
#                            starts: each is skipped with a note instead, so the parts end in time
#   STATICNET_SANITIZE_MODELS, STATICNET_SANITIZE_TOOLS   what sanitize covers (default: every
#                            sample's CUDA trainer; memcheck racecheck)
#   STATICNET_WARM_MODELS    the models warm compiles (default: all)
#   STATICNET_MLPERF_MODELS  the MLPerf Tiny models that train, sanitize, mlperf and warm cover
#                            (default: all four)
set -uo pipefail
bin=$(cd "$1" && pwd)
out=$(mkdir -p "$2" && cd "$2" && pwd)
# The trainings below are new runs: a trainer would not replace an earlier run's files.
rm -f "$out"/digits.safetensors "$out"/*_cuda.safetensors "$out"/*_cuda_nograph.safetensors \
  "$out"/*_graphs[01].safetensors "$out"/*_metrics.jsonl
shift 2
parts=${*:-tests train sanitize bench mlperf}
deadline=${STATICNET_GPU_DEADLINE:-}
mlperf=${STATICNET_MLPERF_MODELS:-resnet8 ds_cnn mobilenet_v1 fc_autoencoder}  # samples/mlperf_tiny/
here=$(cd "$(dirname "$0")/.." && pwd)

# cuDNN, cuBLASLt and NVRTC: PyTorch's pip packages where the system has none.
python=${PYTHON:-python3}
site=$("$python" -c 'import site; print(site.getsitepackages()[0])' 2>/dev/null || true)
libs="$bin/lib"
for d in "$site"/nvidia/*/lib; do [[ -d $d ]] && libs="$libs:$d"; done
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

: >"$out/summary.txt"
note() { echo "$*" >>"$out/summary.txt"; echo "== $*"; }
# Whether a measurement of about $2 seconds still ends before the deadline; if not, a note says
# that $1 was skipped.
in_time() {
  [[ -z $deadline ]] && return 0
  (($(date +%s) + $2 <= deadline)) && return 0
  note "$1: skipped, out of time"
  return 1
}

# The largest relative difference between two --metrics files' losses, epoch by epoch.
loss_difference() {
  "$python" - "$1" "$2" 2>&1 <<'PY'
import json, sys
def losses(path):
    with open(path) as f:
        return [(r["train_loss"], r.get("eval_loss", r["train_loss"])) for r in map(json.loads, f)]
try:
    a, b = losses(sys.argv[1]), losses(sys.argv[2])
except OSError as e:
    sys.exit(f"no metrics to compare ({e.filename}: {e.strerror})")
if len(a) != len(b) or not a:
    print(f"epochs differ ({len(a)} and {len(b)})")
else:
    print(max(abs(x - y) / abs(x) for ra, rb in zip(a, b) for x, y in zip(ra, rb)), "over", len(a), "epochs")
PY
}

# Whether two checkpoints hold the same training state, every tensor's bytes and the metadata;
# where they do not, which tensors or entries differ.
same_training_state() {
  "$python" - "$1" "$2" 2>&1 <<'PY'
import json, struct, sys
def read(path):
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    metadata = header.pop("__metadata__", {})
    tensors = {k: data[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]]
               for k, v in header.items()}
    return header, metadata, tensors
a, b = read(sys.argv[1]), read(sys.argv[2])
if a == b:
    print(f"identical tensors ({len(a[0])}) and metadata")
else:
    differ = [k for k in a[0] if (a[0][k], a[2][k]) != (b[0].get(k), b[2].get(k))]
    differ += [f"metadata {k}" for k in a[1] if a[1][k] != b[1].get(k)]
    print("checkpoints DIFFER:", ", ".join(differ[:5]) or "in what only one of them holds")
PY
}

# Notes whether a run with the step's CUDA graph ($2) and one launch by launch ($3) saved the same
# training state; $1 names the runs.
note_graph_replay() {
  if [[ -f $2 && -f $3 ]]; then
    note "$1 graph replay = launch by launch: $(same_training_state "$2" "$3")"
  else
    note "$1 graph replay = launch by launch: no checkpoints to compare (the runs failed)"
  fi
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$out/gpu.txt" 2>&1
note "GPU: $(cat "$out/gpu.txt")"

if [[ " $parts " == *" tests "* ]]; then
  # Each test case in a process of its own: a kernel fault leaves the CUDA context unusable, and
  # would otherwise fail every case after it. STATICNET_TEST_JOBS of them at a time (default 1).
  # The fixtures are read from this checkout.
  export STATICNET_FIXTURE_DIR="$here/tests/reference/fixtures"
  cases="$out/cases"
  rm -rf "$cases" && mkdir -p "$cases"
  mapfile -t names < <("$bin/staticnet_cuda_tests" --list-test-cases | sed -n '/^=====/,/^=====/{/^=====/!p}')
  for i in "${!names[@]}"; do
    while (($(jobs -rp | wc -l) >= ${STATICNET_TEST_JOBS:-1})); do wait -n; done
    # doctest's filters split at commas unless escaped
    timeout 600 "$bin/staticnet_cuda_tests" --test-case="${names[i]//,/\\,}" >"$cases/$i.txt" 2>&1 &
  done
  wait
  : >"$out/cuda_tests.txt"
  passed=0 failed=()
  for i in "${!names[@]}"; do
    if grep -q '^\[doctest\] test cases: *1 | *1 passed' "$cases/$i.txt"; then
      passed=$((passed + 1))
    else
      failed+=("${names[i]}")
    fi
    { echo "==== ${names[i]}"; cat "$cases/$i.txt"; } >>"$out/cuda_tests.txt"
  done
  rm -rf "$cases"
  failures=""
  ((${#failed[@]})) && failures=$(printf '; FAILED: %s' "${failed[@]}")
  # None listed is the program failing to start (a missing library), not a pass.
  ((passed + ${#failed[@]})) || failures="; NONE RAN: $("$bin/staticnet_cuda_tests" --list-test-cases 2>&1 | tail -1)"
  note "gpu tests: $passed passed, ${#failed[@]} failed$failures (cuda_tests.txt)"
  digits="$here/samples/digits"
  "$bin/digits_cnn_trainer_cpu" --data "$digits/train_images.npy" --labels "$digits/train_labels.npy" \
    --scale 0.0625 --epochs 20 --seed 0 --threads 2 --progress none \
    --save "$out/digits.safetensors" >"$out/digits_train.txt" 2>&1
  for backend in cpu cuda; do
    "$bin/digits_infer_$backend" --weights "$out/digits.safetensors" --data "$digits/test_images.npy" \
      --labels "$digits/test_labels.npy" --scale 0.0625 --output "$out/digits_$backend.npy" \
      >"$out/digits_infer_$backend.txt" 2>&1
    note "digits_infer_$backend: exit $? ($(grep -o 'accuracy.*' "$out/digits_infer_$backend.txt" | tail -1))"
  done
fi

if [[ " $parts " == *" train "* ]]; then
  for model in simple_cnn lenet5; do
    "$bin/${model}_trainer_cuda" --data synthetic:4096 --eval synthetic:1024 --epochs 3 \
      --seed 1 --metrics "$out/${model}_cuda_metrics.jsonl" --save "$out/${model}_cuda.safetensors" \
      --progress none >"$out/${model}_cuda_train.txt" 2>&1
    note "train $model: exit $? ($(tail -1 "$out/${model}_cuda_train.txt"))"
  done
  STATICNET_CUDA_GRAPHS=0 "$bin/simple_cnn_trainer_cuda" --data synthetic:4096 \
    --eval synthetic:1024 --epochs 3 --seed 1 --save "$out/simple_cnn_cuda_nograph.safetensors" \
    --progress none >"$out/simple_cnn_cuda_nograph.txt" 2>&1
  note_graph_replay "simple_cnn (3 epochs)" "$out/simple_cnn_cuda.safetensors" \
    "$out/simple_cnn_cuda_nograph.safetensors"
  # Prefetch changes when the batch is copied, not the arithmetic: the same losses epoch by epoch
  # (the checkpoints' metadata name different models, and the arena's other offsets move, so
  # cuDNN may pick another engine: compare the losses, not the files).
  "$bin/simple_cnn_prefetch_trainer_cuda" --data synthetic:4096 --eval synthetic:1024 --epochs 3 \
    --seed 1 --metrics "$out/simple_cnn_prefetch_cuda_metrics.jsonl" --progress none \
    >"$out/simple_cnn_prefetch_cuda_train.txt" 2>&1
  note "train simple_cnn with Prefetch: exit $? ($(tail -1 "$out/simple_cnn_prefetch_cuda_train.txt"))"
  note "Prefetch against none, largest relative loss difference: $(loss_difference \
    "$out/simple_cnn_cuda_metrics.jsonl" "$out/simple_cnn_prefetch_cuda_metrics.jsonl")"
  # The MLPerf Tiny models, each trainer on both backends from the same seed: the losses should
  # agree to rounding epoch by epoch (Dropout draws the same mask on both).
  # The CPU trainer on 4 threads, not one per core: beside other jobs, as in scripts/gpu-lease.sh,
  # a step waiting on 16 threads waits on the slowest scheduled one. (Another thread count rounds
  # its sums differently, as the GPU does: the comparison is to rounding either way.)
  for model in $mlperf; do
    for backend in cpu cuda; do
      threads=()
      [[ $backend == cpu ]] && threads=(--threads 4)
      "$bin/${model}_trainer_$backend" --data synthetic:2048 --eval synthetic:512 --epochs 2 \
        --seed 1 "${threads[@]}" --metrics "$out/${model}_${backend}_metrics.jsonl" --progress none \
        >"$out/${model}_${backend}_train.txt" 2>&1
      note "train $model on $backend: exit $? ($(tail -1 "$out/${model}_${backend}_train.txt"))"
    done
    note "$model CUDA against CPU, largest relative loss difference: $(loss_difference \
      "$out/${model}_cpu_metrics.jsonl" "$out/${model}_cuda_metrics.jsonl")"
    # Graph replay against launch by launch, as for SimpleCNN above: the same bits.
    for mode in 1 0; do
      STATICNET_CUDA_GRAPHS=$mode "$bin/${model}_trainer_cuda" --data synthetic:512 --epochs 1 \
        --seed 1 --save "$out/${model}_graphs$mode.safetensors" --progress none \
        >"$out/${model}_graphs$mode.txt" 2>&1
    done
    note_graph_replay "$model (1 epoch)" "$out/${model}_graphs1.safetensors" \
      "$out/${model}_graphs0.safetensors"
  done
fi

if [[ " $parts " == *" sanitize "* ]]; then
  for model in ${STATICNET_SANITIZE_MODELS:-simple_cnn lenet5 $mlperf simple_cnn_prefetch}; do
    # "Trains NAME (...): batch 32, ..." says the batch
    batch=$("$bin/${model}_trainer_cuda" --help | grep -o -m1 'batch [0-9]*' | cut -d' ' -f2)
    for tool in ${STATICNET_SANITIZE_TOOLS:-memcheck racecheck}; do
      compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin/${model}_trainer_cuda" \
        --data "synthetic:$((3 * batch))" --eval "synthetic:$((3 * batch))" --epochs 1 \
        --progress none >"$out/${model}_${tool}.txt" 2>&1
      note "compute-sanitizer $tool $model: exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/${model}_${tool}.txt" | tail -1))"
    done
  done
fi

# Step time and memory of the generated CUDA step against PyTorch eager and torch.compile; more
# torch.compile modes (reduce-overhead: CUDA graphs, as staticnet's step) after the model.
compare_with_pytorch() {
  local model=$1 torch_model=${1%_adam} mode
  shift
  in_time "staticnet and PyTorch on $model" 60 || return 0
  "$bin/staticnet_bench_cuda_step" "$model" >"$out/bench_${model}.txt" 2>&1
  note "staticnet $model: $(head -1 "$out/bench_${model}.txt")"
  STATICNET_CUDA_GRAPHS=0 "$bin/staticnet_bench_cuda_step" "$model" \
    >"$out/bench_${model}_nograph.txt" 2>&1
  note "staticnet $model launch by launch: $(head -1 "$out/bench_${model}_nograph.txt")"
  "$python" "$here/bench/cuda_step/torch_cuda_step.py" "$torch_model" >"$out/torch_${model}.txt" 2>&1
  note "torch eager $model: $(tail -1 "$out/torch_${model}.txt")"
  "$python" "$here/bench/cuda_step/torch_cuda_step.py" "$torch_model" --compile \
    >"$out/torch_compile_${model}.txt" 2>&1
  note "torch.compile $model: $(tail -1 "$out/torch_compile_${model}.txt")"
  for mode in "$@"; do
    in_time "torch.compile $mode $model" 30 || continue
    "$python" "$here/bench/cuda_step/torch_cuda_step.py" "$torch_model" --compile "$mode" \
      >"$out/torch_compile_${mode}_${model}.txt" 2>&1
    note "torch.compile $mode $model: $(tail -1 "$out/torch_compile_${mode}_${model}.txt")"
  done
}

if [[ " $parts " == *" bench "* ]]; then
  if in_time "staticnet simple_cnn with Prefetch" 10; then
    "$bin/staticnet_bench_cuda_step" simple_cnn_prefetch >"$out/bench_simple_cnn_prefetch.txt" 2>&1
    note "staticnet simple_cnn with Prefetch: $(head -1 "$out/bench_simple_cnn_prefetch.txt")"
  fi
  for model in simple_cnn lenet5_adam; do
    compare_with_pytorch "$model" reduce-overhead
  done
fi

if [[ " $parts " == *" mlperf "* ]]; then
  # Depthwise and uneven-padded convolutions: staticnet's direct kernels or cuDNN, whichever is
  # faster within the plan's workspace (its table, for bench/RESULTS.md, ends the file). First:
  # the torch.compile runs below are the part's long ones.
  if [[ -n ${STATICNET_MLPERF_MODELS:-} ]]; then
    note "direct convolutions against cuDNN: not run (STATICNET_MLPERF_MODELS names models)"
  elif in_time "direct convolutions against cuDNN" 60; then
    "$bin/staticnet_bench_direct_conv" >"$out/direct_conv.txt" 2>&1
    note "direct convolutions against cuDNN: exit $? ($(grep -c 'faster within the plan: staticnet' "$out/direct_conv.txt") of $(grep -c 'faster within the plan' "$out/direct_conv.txt") staticnet's; direct_conv.txt)"
  fi
  for model in $mlperf; do
    compare_with_pytorch "$model"
  done
fi

if [[ " $parts " == *" accumulate "* ]]; then
  for model in simple_cnn resnet8; do
    for k in 1 4; do
      name=$model
      ((k > 1)) && name=${model}_accumulate$k
      in_time "accumulation $name" 30 || continue
      "$bin/staticnet_bench_cuda_step" "$name" >"$out/bench_${name}.txt" 2>&1
      note "staticnet $name: $(head -1 "$out/bench_${name}.txt")"
      "$python" "$here/bench/cuda_step/torch_cuda_step.py" "$model" --accumulate "$k" \
        >"$out/torch_${model}_accumulate$k.txt" 2>&1
      note "torch eager $model --accumulate $k: $(tail -1 "$out/torch_${model}_accumulate$k.txt")"
    done
  done
fi

if [[ " $parts " == *" autocast "* ]]; then
  for model in simple_cnn lenet5 $mlperf; do
    for precision in fp32 bf16 f16; do
      in_time "autocast $model $precision" 20 || continue
      precision_flag=()
      [[ $precision != fp32 ]] && precision_flag=(--autocast "$precision")
      "$python" "$here/bench/cuda_step/torch_cuda_step.py" "$model" "${precision_flag[@]}" \
        --steps 100 --repeats 3 >"$out/torch_${model}_$precision.txt" 2>&1
      note "torch eager $model $precision: $(tail -1 "$out/torch_${model}_$precision.txt")"
    done
  done
fi

if [[ " $parts " == *" warm "* ]]; then
  for model in ${STATICNET_WARM_MODELS:-simple_cnn lenet5 $mlperf}; do
    for mode in default reduce-overhead; do
      [[ $mode == reduce-overhead && " $mlperf " == *" $model "* ]] && continue  # not timed
      "$python" "$here/bench/cuda_step/torch_cuda_step.py" "$model" --compile "$mode" --steps 5 \
        --repeats 1 >"$out/warm_${mode}_${model}.txt" 2>&1
      note "torch.compile $mode $model warmed: exit $?"
    done
  done
fi

if [[ " $parts " == *" profile "* ]]; then
  "$bin/staticnet_bench_conv_engines" >"$out/conv_engines.txt" 2>&1
  note "conv engines: exit $? (conv_engines.txt)"
  for model in simple_cnn lenet5_adam; do
    STATICNET_CUDA_GRAPHS=0 ncu --clock-control none --metrics gpu__time_duration.sum --csv \
      --launch-skip 300 --launch-count 60 "$bin/staticnet_bench_cuda_step" "$model" --steps 40 \
      --repeats 1 >"$out/ncu_${model}.csv" 2>"$out/ncu_${model}.err"
    note "ncu $model: exit $?"
    "$python" - "$out/ncu_${model}.csv" >"$out/ncu_${model}.txt" <<'PY'
import csv, re, sys
rows = list(csv.reader(open(sys.argv[1])))
start = next(i for i, r in enumerate(rows) if r and r[0] == "ID")  # the program's output before
head = rows[start]
name, value = head.index("Kernel Name"), head.index("Metric Value")
for r in rows[start + 1:]:
    # A pass launched through g::for_each is named by the generated function around its lambda
    # (nvcc's wrapper names it: "&(anonymous namespace)::forward_layer_5"), not by the template.
    around = re.search(r"&(?:\(anonymous namespace\)::)?(\w+)", r[name])
    shown = f"{around.group(1)} (g::for_each)" if "for_each" in r[name] and around else r[name]
    print(f"{r[value]:>10} ns  {shown[:110]}")
PY
    "$python" "$here/bench/cuda_step/torch_cuda_step.py" "${model%_adam}" --steps 50 --repeats 1 \
      --profile >"$out/torch_profile_${model}.txt" 2>&1
    note "torch profile $model: exit $?"
  done
fi

echo
echo "==== summary"
cat "$out/summary.txt"

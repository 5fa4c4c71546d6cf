#!/usr/bin/env python3
"""Memory of staticnet's generated int8 inference next to TensorFlow Lite Micro's, same models.

What it measures
----------------
For the 7 int8 models whose fixtures are in tests/reference/int8_models/ (digits_cnn, residual,
ds_block; seed-0 fixture) and tests/reference/int8_mlperf/ (resnet8, ds_cnn, mobilenet_v1,
fc_autoencoder), this rebuilds the converted int8 .tflite flatbuffer in memory with the fixture
scripts' own functions and seeds (make_int8_model_fixtures.py / make_int8_mlperf_fixtures.py:
keras.utils.set_random_seed(wseed), builder, randomize, convert_model), checks that LiteRT
(OpResolverType.BUILTIN_REF) on the fixture's input gives the fixture's output (so the model
is the fixtures' model), then runs it in TFLM's Python interpreter and prints one markdown row:

  TFLM arena used     total / head / tail bytes that TFLM's RecordingMicroAllocator prints
                      (Interpreter.print_allocations() after invoke(); the Python API has no
                      arena_used_bytes()). head = non-persistent section: the planned
                      activation tensors (input and output included) and scratch buffers,
                      max(head, temp) watermark. tail = persistent section: the allocator and
                      GreedyMemoryPlanner objects themselves, TfLiteEvalTensor array, node and
                      registration structs, persistent TfLiteTensor structs and their
                      quantization data, every kernel's OpData and the per-channel output
                      multipliers / shifts that conv / depthwise / FC Prepare() allocates with
                      AllocatePersistentBuffer. total = head + tail (= MicroInterpreter::
                      arena_used_bytes() in C++). The wheel is an x86-64 build: the tail's
                      structs hold 8-byte pointers, so on a 32-bit Cortex-M the tail is smaller;
                      the head (int8 data, 16-byte aligned) is the same. Its kernels are TFLM's
                      reference kernels (no CMSIS-NN, so no scratch buffers).
  TFLM min arena      smallest arena_size for which Interpreter.from_bytes() (which runs
                      AllocateTensors()) succeeds, bisected to the byte, each try in its own
                      process (some failing sizes end in SIGSEGV; the script lists them). It
                      can exceed "used": the peak while kernels Prepare (temporaries in the
                      head while the tail grows) is above the final head + tail.
  TFLM flatbuffer     len() of the .tflite flatbuffer, which TFLM reads in place (flash); in
                      parentheses the bytes of its constant tensor buffers (weights, biases).
  staticnet arena     arena_bytes of build/gcc/tests/int8/int8_<m>/int8_<m>_mcu.hpp (SRAM: one
                      shared region, the input a tensor in it whose bytes later tensors take;
                      no per-op state or metadata exists at run time).
  staticnet flash     weight_count + 4 * channel_number_count of the same header (int8 weights,
                      and per output channel int32 bias, multiplier, shift).
  firmware text/bss   arm-none-eabi-size of build/gcc/tests/int8/cortex_m/<fixture>.elf:
                      text holds the code, the weights and the test's input / expected arrays;
                      bss the arena plus a 16 + 5 * outputs byte print buffer ("-" if absent).
  outputs equal       TFLM's int8 output == the fixture's output (both seeds for the three
                      small models), "yes" / "no".

TFLM's own code size (interpreter, allocator, kernels) is not measured here.

Run (from the repository root, after `cmake --build build/gcc` and `ctest --test-dir build/gcc
-R cortex-m7` made the headers and ELFs; the venv is the fixture scripts' plus tflite-micro;
about a minute, most of it the bisection's one process per try):
  /tmp/tfenv/bin/pip install tflite-micro
  /tmp/tfenv/bin/python bench/mcu/tflm_memory.py [--build build/gcc] [--allocations]
--allocations also prints TFLM's whole print_allocations() log per model.

Made with tensorflow-cpu 2.21.0 (Keras 3.15.1), ai-edge-litert 2.3.0, numpy 2.4.6,
tflite-micro 0.dev20261023182759 (git 8f6596d), Python 3.11.7; the script prints the versions
it ran with.
"""
import argparse
import contextlib
import importlib.metadata
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

ROOT = pathlib.Path(__file__).resolve().parents[2]
REF = ROOT / "tests" / "reference"
sys.dont_write_bytecode = True  # no __pycache__ in tests/reference/
sys.path.insert(0, str(REF))

# (staticnet model name, fixture file(s), ELF name)
MODELS = [
    ("digits", "digits_cnn", ["int8_models/digits_cnn_s0.json", "int8_models/digits_cnn_s1.json"],
     "digits_cnn_s0"),
    ("residual", "residual", ["int8_models/residual_s0.json", "int8_models/residual_s1.json"],
     "residual_s0"),
    ("ds_block", "ds_block", ["int8_models/ds_block_s0.json", "int8_models/ds_block_s1.json"],
     "ds_block_s0"),
    ("resnet8", "resnet8", ["int8_mlperf/resnet8.json"], "resnet8"),
    ("ds_cnn", "ds_cnn", ["int8_mlperf/ds_cnn.json"], "ds_cnn"),
    ("mobilenet_v1", "mobilenet_v1", ["int8_mlperf/mobilenet_v1.json"], "mobilenet_v1"),
    ("fc_autoencoder", "fc_autoencoder", ["int8_mlperf/fc_autoencoder.json"], "fc_autoencoder"),
]


@contextlib.contextmanager
def captured_fd2():
    """Redirects file descriptor 2 (C-level stderr: MicroPrintf, converter logs) to a file;
    yields a list that holds the captured text once the block ends."""
    out = []
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield out
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            out.append(tmp.read().decode(errors="replace"))


# ----------------------------------------------------------------------------------------------
# The models, rebuilt as the fixture scripts build them

def small_model(fixture_name):
    import make_int8_model_fixtures as mf
    name, builder, wseed, rng_range, _ = next(m for m in mf.MODELS if m[0] == fixture_name)
    mf.keras.utils.set_random_seed(wseed)
    model = builder()
    mf.randomize(model, mf.np.random.default_rng([wseed, 0]))
    shape_hwc = tuple(int(v) for v in model.inputs[0].shape[1:])
    return mf.convert_model(model, shape_hwc, rng_range, wseed)


def mlperf_model(fixture_name):
    import make_int8_mlperf_fixtures as pf
    mf = pf.mf
    name, wseed, rng_range = next(m for m in pf.MODELS if m[0] == fixture_name)
    spec = pf.parse_layers(pf.LAYERS)[name]
    mf.keras.utils.set_random_seed(wseed)
    model = pf.build(spec)
    mf.randomize(model, mf.np.random.default_rng([wseed, 0]))
    shape_hwc = tuple(int(v) for v in model.inputs[0].shape[1:])
    return mf.convert_model(model, shape_hwc, rng_range, wseed)


def tflite_model(fixture_name):
    with captured_fd2():
        if fixture_name in ("digits_cnn", "residual", "ds_block"):
            return small_model(fixture_name)
        return mlperf_model(fixture_name)


def model_input(fx, np):
    x = np.array(fx["input"], dtype=np.int8).reshape(fx["input_shape"])
    return x.transpose(1, 2, 0)[None] if x.ndim == 3 else x[None]  # NCHW -> NHWC, batch 1


def buffer_bytes(tfl):
    """Bytes of the flatbuffer's constant tensor buffers (weights, biases)."""
    from make_int8_fixtures import schema
    m = schema.Model.GetRootAsModel(tfl, 0)
    return sum(m.Buffers(i).DataLength() for i in range(m.BuffersLength()))


# ----------------------------------------------------------------------------------------------
# LiteRT (check that the model is the fixtures') and TFLM

def litert_output(tfl, fx, np):
    from make_int8_fixtures import Interpreter, OpResolverType
    it = Interpreter(model_content=tfl, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], model_input(fx, np))
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"])


def tflm_interpreter(tfl, arena_size):
    """A TFLM interpreter with the default config (kAllocationRecording: RecordingMicroAllocator
    and GreedyMemoryPlanner, both placed in the arena), or None if AllocateTensors() fails."""
    from tflite_micro import runtime
    with captured_fd2():
        try:
            return runtime.Interpreter.from_bytes(tfl, arena_size=arena_size)
        except RuntimeError:
            return None


# Exit status 0: allocated; 1: AllocateTensors() failed (RuntimeError); anything else: crashed.
PROBE = """
import sys
from tflite_micro import runtime
model = open(sys.argv[1], "rb").read()
try:
    runtime.Interpreter.from_bytes(model, arena_size=int(sys.argv[2]))
except RuntimeError:
    sys.exit(1)
"""


ALLOC_RE = re.compile(r"\[RecordingMicroAllocator\] Arena allocation (total|head|tail) (\d+) bytes")


def tflm_run(tfl, fixtures, np):
    it = tflm_interpreter(tfl, max(1 << 20, 10 * len(tfl)))
    if it is None:
        sys.exit("TFLM could not allocate the model in a large arena")
    equal = True
    for fx in fixtures:
        it.set_input(model_input(fx, np), 0)
        it.invoke()
        y = it.get_output(0).reshape(-1).astype(np.int64).tolist()
        equal &= y == fx["output"]
    with captured_fd2() as log:
        it.print_allocations()
    alloc = {k: int(v) for k, v in ALLOC_RE.findall(log[0])}
    if sorted(alloc) != ["head", "tail", "total"] or alloc["total"] != alloc["head"] + alloc["tail"]:
        sys.exit("unexpected print_allocations() output:\n" + log[0])
    return alloc, equal, log[0]


def tflm_min_arena(tfl, alloc):
    """Smallest arena_size that allocates (bisection; assumes success is monotonic in size),
    and the sizes probed on the way at which TFLM crashed instead of failing.

    Each size is tried in a fresh process: some too-small arenas make AllocateTensors() end in
    SIGSEGV rather than an error (an arena too small for the allocator objects, which
    RecordingMicroAllocator::Create places in it unchecked; also sizes just under the minimum,
    where a failure leaves a temp buffer allocated). A crash counts as a failure. The lower end
    is max(head, tail): it must fail, since head and tail are both needed."""
    crashed = []
    with tempfile.NamedTemporaryFile(suffix=".tflite") as f:
        f.write(tfl)
        f.flush()

        def fits(n):
            rc = subprocess.run([sys.executable, "-c", PROBE, f.name, str(n)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
            if rc not in (0, 1):
                crashed.append(n)
            return rc == 0

        lo, hi = max(alloc["head"], alloc["tail"]), alloc["total"]
        if fits(lo):
            sys.exit(f"TFLM allocated in {lo} bytes, less than head + tail = {hi}")
        while not fits(hi):
            lo, hi = hi, hi * 2
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if fits(mid):
                hi = mid
            else:
                lo = mid
    return hi, sorted(crashed)


# ----------------------------------------------------------------------------------------------
# staticnet

def header_numbers(build, model):
    path = build / "tests" / "int8" / f"int8_{model}" / f"int8_{model}_mcu.hpp"
    text = path.read_text()
    num = {}
    for key in ("arena_bytes", "weight_count", "channel_number_count"):
        m = re.search(rf"inline constexpr std::size_t {key} = ([\d']+);", text)
        if not m:
            sys.exit(f"{path}: no {key}")
        num[key] = int(m.group(1).replace("'", ""))
    return num


def elf_size(build, elf):
    path = build / "tests" / "int8" / "cortex_m" / f"{elf}.elf"
    if not path.exists():
        return None
    out = subprocess.run(["arm-none-eabi-size", str(path)], check=True, capture_output=True,
                         text=True).stdout.splitlines()
    text, data, bss = (int(v) for v in out[1].split()[:3])
    return text, data, bss


# ----------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=str(ROOT / "build" / "gcc"),
                    help="staticnet build folder (default build/gcc)")
    ap.add_argument("--allocations", action="store_true",
                    help="also print TFLM's full print_allocations() log per model")
    args = ap.parse_args()
    build = pathlib.Path(args.build)

    with captured_fd2():
        import numpy as np
        import tflite_micro
        import make_int8_fixtures  # noqa: F401  (imports TensorFlow / LiteRT)

    versions = {p: importlib.metadata.version(p)
                for p in ("tensorflow-cpu", "keras", "ai-edge-litert", "numpy", "tflite-micro")}
    print("versions: " + ", ".join(f"{k} {v}" for k, v in versions.items())
          + f" ({tflite_micro.__version__}), Python {sys.version.split()[0]}")
    print()
    print("| model | TFLM arena used: total (head + tail) | TFLM min arena | "
          "TFLM flatbuffer (of which buffers) | staticnet SRAM arena | staticnet flash constants "
          "| firmware text / bss | outputs equal |")
    print("|---|---:|---:|---:|---:|---:|---:|:---:|")
    logs, crashes = [], []
    for model, fixture_name, fixture_files, elf in MODELS:
        fixtures = [json.loads((REF / f).read_text()) for f in fixture_files]
        tfl = tflite_model(fixture_name)
        for fx in fixtures:
            ref = litert_output(tfl, fx, np).reshape(-1).astype(np.int64).tolist()
            if ref != fx["output"]:
                sys.exit(f"{model}: the rebuilt model's LiteRT BUILTIN_REF output differs from "
                         f"the fixture's: not the fixtures' model")
        alloc, equal, log = tflm_run(tfl, fixtures, np)
        logs.append((model, log))
        min_arena, crashed = tflm_min_arena(tfl, alloc)
        sn = header_numbers(build, model)
        flash = sn["weight_count"] + 4 * sn["channel_number_count"]
        size = elf_size(build, elf)
        fw = f"{size[0]:,} / {size[2]:,}" if size else "-"
        print(f"| {model} | {alloc['total']:,} ({alloc['head']:,} + {alloc['tail']:,}) | "
              f"{min_arena:,} | {len(tfl):,} ({buffer_bytes(tfl):,}) | {sn['arena_bytes']:,} | "
              f"{flash:,} | {fw} | {'yes' if equal else 'no'} |", flush=True)
        if crashed:
            crashes.append(f"{model}: {', '.join(f'{n:,}' for n in crashed)}")
    print()
    print("TFLM min arena: the smallest arena_size for which AllocateTensors() succeeds "
          "(bisected, one process per try).")
    print("Sizes tried at which TFLM crashed (counted as failures): "
          + ("; ".join(crashes) if crashes else "none"))
    if args.allocations:
        for model, log in logs:
            print(f"\n{model}:\n{log.rstrip()}")


if __name__ == "__main__":
    main()

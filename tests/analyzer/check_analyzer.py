#!/usr/bin/env python3
"""Tests of `staticnet analyze` and `staticnet explain` as a user runs them.

    check_analyzer.py --staticnet EXE --cxx CXX --source ROOT --work DIR CHECK [--update]

CHECK is one of:
  golden        every sample in every format, against tests/analyzer/golden/ (--update rewrites
                them; review the diff by hand); the int8 digits on the microcontrollers;
                --list-devices
  hand_numbers  the JSON report's numbers against values derived by hand in samples/*.hpp; on
                a microcontroller, SRAM and flash apart, and the largest batch as budget.hpp's
                max_batch(Device) gives it (compiled here)
  exit_codes    0 fits, 1 over a budget, 2 usage errors, 3 does not compile, and the messages
  cache         a second run reuses the probe; a changed header rebuilds it
  schema        every JSON report validates against analyzer/schema/report-1.json
  emulator      --emulator runs the probe (cross compilers); a probe that cannot start says so
  svg_png       the SVG rendered to PNG by headless Chromium is a chart, not a blank page

Exit status 0 on success, 1 on a failed check, 77 when a tool the check needs is missing.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SAMPLES = ["simple_cnn", "deep_cnn", "linear_regression", "mlp", "small_network",
           "larger_conv_network", "lenet5", "digits_cnn"]
FORMATS = {"text": "txt", "markdown": "md", "json": "json", "svg": "svg"}
GOLDEN_FLAGS = ["--device", "jetson_nano", "--budget", "64MiB"]
SWEEP_FLAGS = ["--batch", "32,64,128,256", "--optimizer", "SGD,Adam", "--device", "jetson_nano",
               "--device", "t4"]

INT8_DIGITS = "tests/analyzer/data/int8_digits.hpp"
INT8_OVER = "tests/analyzer/data/int8_over_budget.hpp"
MCU_FLAGS = ["--device", "nrf52840", "--device", "stm32h743"]

# Gradient accumulation: Batch<32> as Accumulate<4>'s micro-batches of 8, swept at 1 and 4
# micro-batches over a batch 4 does not divide (30) and two it does.
ACCUMULATE = "tests/analyzer/data/accumulate.hpp"
SQUARE = "tests/analyzer/data/square.hpp"
ACCUMULATE_FLAGS = ["--device", "jetson_nano", "--accumulate", "1,4", "--batch", "30,32,64"]

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAILED: " + message)


def analyze(args, *extra, expect=None):
    command = [args.staticnet, "analyze", "--cxx", args.cxx, "--cache-dir", args.cache,
               "--color", "never", *extra]
    result = subprocess.run(command, cwd=args.source, capture_output=True, text=True)
    if expect is not None and result.returncode != expect:
        check(False, f"{' '.join(extra)}: exit {result.returncode}, expected {expect}\n"
                     f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}")
    return result


def sample(name):
    return f"samples/{name}.hpp"


# ---- golden ------------------------------------------------------------------------------------

def golden_cases():
    for name in SAMPLES:
        for fmt, ext in FORMATS.items():
            yield f"{name}.{ext}", [sample(name), "-I", ".", *GOLDEN_FLAGS, "--format", fmt]
    for fmt in ("text", "json"):
        yield f"simple_cnn_sweep.{FORMATS[fmt]}", [sample("simple_cnn"), "-I", ".", *SWEEP_FLAGS,
                                                   "--format", fmt]
    yield "two_models.txt", ["tests/analyzer/data/two_models.hpp"]
    # The microcontrollers: SRAM and flash apart, each device a row for each.
    for fmt in ("text", "markdown", "json", "svg"):
        yield f"int8_digits_mcu.{FORMATS[fmt]}", [INT8_DIGITS, *MCU_FLAGS, "--format", fmt]
    yield "int8_over_budget_mcu.txt", [INT8_OVER, *MCU_FLAGS]
    for fmt, ext in FORMATS.items():
        yield f"accumulate.{ext}", [ACCUMULATE, *ACCUMULATE_FLAGS, "--format", fmt]
    yield "list_devices.txt", ["--list-devices"]


def check_golden(args):
    directory = os.path.join(args.source, "tests", "analyzer", "golden")
    for file, flags in golden_cases():
        result = analyze(args, *flags)
        # Exit 1 is expected where a sample exceeds the 64 MiB budget.
        check(result.returncode in (0, 1), f"{file}: exit {result.returncode}: {result.stderr}")
        path = os.path.join(directory, file)
        if args.update:
            with open(path, "w", encoding="utf-8") as f:
                f.write(result.stdout)
            continue
        with open(path, encoding="utf-8") as f:
            expected = f.read()
        if file == "simple_cnn.txt":  # the README's tour shows this report verbatim
            with open(os.path.join(args.source, "README.md"), encoding="utf-8") as f:
                check(expected in f.read(), "README.md does not show simple_cnn.txt as it is")
        if file == "int8_digits_mcu.txt":  # docs/analyzer.md shows its budgets
            section = expected[expected.index("  Budgets"):].split("\n\n")[0]
            with open(os.path.join(args.source, "docs", "analyzer.md"), encoding="utf-8") as f:
                check(section in f.read(),
                      "docs/analyzer.md does not show int8_digits_mcu.txt's budgets as they are")
        if result.stdout != expected:
            fresh = os.path.join(args.work, file)
            with open(fresh, "w", encoding="utf-8") as f:
                f.write(result.stdout)
            check(False, f"{file} differs from the golden file; diff {path} {fresh}")


# ---- hand_numbers ------------------------------------------------------------------------------

def round256(n):
    return (n + 255) // 256 * 256


def report_of(args, name, *flags):
    result = analyze(args, sample(name), "-I", ".", "--format", "json", *flags)
    return json.loads(result.stdout)["models"][0]


def simple_cnn_by_hand():
    """SimpleCNN's footprint (samples/simple_cnn.hpp: B = 128, Adam) by category."""
    B = 128
    params = (16 * 3 * 3 * 3 + 16) + (4096 * 10 + 10)
    pb = round256(4 * params)
    live_peak = (B * 16 * 32 * 32 * 4 + B * 16 * 16 * 16 + round256(B * 4) + round256(B * 4)
                 + B * 4096 * 4 + B * 16 * 32 * 32 * 4)
    return {"weights": pb, "gradients": pb, "optimizer_state": 2 * pb,
            "inputs": round256(B * 3 * 32 * 32 * 4) + round256(B * 4),
            "workspace": round256(3 * 3 * 3 * 32 * 32 * 4), "activations": live_peak}


def check_hand_numbers(args):
    # SimpleCNN (samples/simple_cnn.hpp): B = 128, Adam.
    B = 128
    params = (16 * 3 * 3 * 3 + 16) + (4096 * 10 + 10)
    expected = simple_cnn_by_hand()
    live_peak = expected["activations"]
    m = report_of(args, "simple_cnn", "--device", "jetson_nano")
    check(m["parameter_count"] == 41418 == params, f"SimpleCNN parameters {m['parameter_count']}")
    for key, value in expected.items():
        check(m["footprint"][key] == value, f"SimpleCNN {key}: {m['footprint'][key]} != {value}")
    check(m["footprint"]["total"] == sum(expected.values()), "SimpleCNN total")
    persistent = sum(v for k, v in expected.items() if k != "activations")
    check(m["peak"]["step"] == 8, f"SimpleCNN peak step {m['peak']['step']}")
    check(m["peak"]["step_name"] == "backward of layer 2 (MaxPool2d)", m["peak"]["step_name"])
    check(m["peak"]["bytes"] == persistent + live_peak, f"SimpleCNN peak {m['peak']['bytes']}")
    # Saved for backward: conv1 its input, the ReLU its output, the pool 1-byte indices, the
    # Linear its (flattened) input; Flatten nothing.
    saved = [B * 3 * 32 * 32 * 4, B * 16 * 32 * 32 * 4, B * 16 * 16 * 16, 0, B * 4096 * 4]
    check([l["saved_bytes"] for l in m["layers"]] == saved, "SimpleCNN saved bytes")
    check(m["layer_totals"]["saved_bytes"] == sum(saved), "SimpleCNN saved total")
    # FLOPs: conv1 2 * outputs * 27 + a bias add per output; the first layer with parameters
    # computes no input gradient, so its backward is the weight gradient plus the bias sum.
    conv_fwd = 2 * B * 16 * 32 * 32 * 27 + B * 16 * 32 * 32
    fc_mac = 2 * B * 4096 * 10
    check(m["layers"][0]["forward_flops"] == conv_fwd, "SimpleCNN conv forward FLOPs")
    check(m["layers"][0]["backward_flops"] == conv_fwd, "SimpleCNN conv backward FLOPs")
    check(m["layers"][4]["forward_flops"] == fc_mac + B * 10, "SimpleCNN fc forward FLOPs")
    check(m["layers"][4]["backward_flops"] == 2 * fc_mac + B * 10, "SimpleCNN fc backward FLOPs")
    # The trainer's host bytes (plan.host): the loader's two slots of 128 f32 samples and i32
    # labels, the CUDA trainer's two staged copies of the inputs region and each sample's loss
    # and prediction, and one f32 copy of the parameters and Adam's two moments.
    host = {"batch_slots": 2 * B * (3 * 32 * 32 + 1) * 4,
            "pinned_staging": 2 * expected["inputs"] + B * 8,
            "checkpoint_state": params * 3 * 4}
    host["total"] = sum(host.values())
    check(m["host"] == host, f"SimpleCNN host {m['host']} != {host}")
    # Jetson Nano: 4 GiB memory, 1.5 GiB overhead, one memory with its host (the trainer's host
    # bytes count).
    nano = m["budgets"][0]
    check(nano["host"] == host["total"], f"SimpleCNN Nano host {nano.get('host')}")
    check(nano["required"] == sum(expected.values()) + host["total"] + 1536 * 2**20,
          "SimpleCNN Nano required")
    # The largest batch counts them too, as budget.hpp's max_batch(jetson_nano) does.
    nano_batch = budget_hpp_max_batches(args).get(("simple_cnn", "jetson_nano"))
    check(nano["max_batch"] == nano_batch,
          f"SimpleCNN Nano largest batch {nano['max_batch']} != max_batch's {nano_batch}")
    check(nano["margin"] == 4 * 2**30 - nano["required"] and nano["fits"], "SimpleCNN Nano margin")

    # DeepCNN (samples/deep_cnn.hpp): B = 64, Adam; peak at step 14 (pool3 backward).
    B = 64
    params = (32 * 3 * 9 + 32) + (64 * 32 * 9 + 64) + (128 * 64 * 9 + 128) + (8192 * 10 + 10)
    pb = round256(4 * params)
    live_peak = (B * 32 * 64 * 64 * 4 + B * 32 * 32 * 32 + B * 32 * 32 * 32 * 4
                 + B * 64 * 32 * 32 * 4 + B * 64 * 16 * 16 + B * 64 * 16 * 16 * 4
                 + B * 128 * 16 * 16 * 4 + B * 128 * 8 * 8 + round256(B * 4) + round256(B * 4)
                 + B * 8192 * 4 + B * 128 * 16 * 16 * 4)
    hole = 3 * 512 * 1024  # the planner's known gap, documented in test_samples.cpp
    persistent = 2 * pb + 2 * pb + round256(B * 3 * 64 * 64 * 4) + round256(B * 4) + round256(
        32 * 3 * 3 * 32 * 32 * 4)
    m = report_of(args, "deep_cnn")
    check(m["parameter_count"] == 175178 == params, "DeepCNN parameters")
    check(m["peak"]["step"] == 14, f"DeepCNN peak step {m['peak']['step']}")
    check(m["peak"]["bytes"] == persistent + live_peak, f"DeepCNN peak {m['peak']['bytes']}")
    check(m["footprint"]["total"] == persistent + live_peak + hole, "DeepCNN total")
    check(m["footprint"]["total"] == 94161664, "DeepCNN total, as samples/deep_cnn.hpp says")

    # ResNet-8 (samples/mlperf_tiny/resnet8.hpp, its hand table): the graph's reads, and 'same'
    # padding: 3x3 stride 1 pads 1 each side; 3x3 stride 2 on an even input pads 0 before, 1
    # after; the 1x1 stride-2 shortcut pads nothing.
    m = report_of(args, "mlperf_tiny/resnet8")
    layers = m["layers"]
    check(m["parameter_count"] == 78186, f"ResNet-8 parameters {m['parameter_count']}")
    # Keras' "Non-trainable params": a moving mean and variance per channel of its seven
    # BatchNorms (16, 16, 16, 32, 32, 64, 64 channels).
    check(m["non_trainable_count"] == 480 == 2 * (3 * 16 + 2 * 32 + 2 * 64),
          f"ResNet-8 non-trainable {m['non_trainable_count']}")
    check(m["layer_totals"]["non_trainable"] == 480, "ResNet-8 layer totals' non-trainable")
    check([l["non_trainable"] for l in layers if l["kind"] == "BatchNorm2d"]
          == [32, 32, 32, 64, 64, 128, 128], "ResNet-8's BatchNorms each keep 2 per channel")
    check(all(l["non_trainable"] == 0 for l in layers if l["kind"] != "BatchNorm2d"),
          "only BatchNorm keeps non-trainable values")
    check(layers[0]["inputs"] == [-1], f"ResNet-8 layer 0 reads {layers[0]['inputs']}")
    for add, reads in ((8, [7, 2]), (16, [14, 15]), (24, [22, 23])):
        check(layers[add]["kind"] == "Add" and layers[add]["inputs"] == reads,
              f"ResNet-8 layer {add}: {layers[add]['kind']} reads {layers[add]['inputs']}")
    for shortcut, reads in ((15, [9]), (23, [17])):
        check(layers[shortcut]["inputs"] == reads, f"ResNet-8 shortcut {shortcut} reads "
              f"{layers[shortcut]['inputs']}")
    for layer, before, end in ((0, [1, 1], [1, 1]), (10, [0, 0], [1, 1]), (15, [0, 0], [0, 0])):
        got = (layers[layer]["padding"], layers[layer]["padding_end"])
        check(got == (before, end), f"ResNet-8 layer {layer} padding {got}")
    text = analyze(args, sample("mlperf_tiny/resnet8"), "-I", ".", expect=0).stdout
    for cell in ("Add (7 + 2)", "Conv2d (reads 9)", "Add (22 + 23)",
                 "78,186 parameters (and 480 non-trainable)"):
        check(cell in text, f"ResNet-8's text report has no '{cell}'")
    # Training folds nothing: the BatchNorms need their batch statistics.
    check(not any(l["folded"] for l in layers), "ResNet-8's training plan folds a BatchNorm")
    # Served (batch 1): each of the seven BatchNorms reads a convolution's output that nothing
    # else reads (hand table: 1, 4, 7, 11, 14, 19, 22), so each folds into the convolution before
    # it, and, those convolutions having biases, costs no FLOPs. Layer 0's forward stays
    # 2 * 16*32*32 * 27 + 16*32*32 (multiply-adds and bias adds).
    serving = "tests/analyzer/data/resnet8_inference.hpp"
    result = analyze(args, serving, "-I", ".", "--format", "json", expect=0)
    m = next(m for m in json.loads(result.stdout)["models"] if m["name"] == "resnet8_serving")
    folded = [i for i, l in enumerate(m["layers"]) if l["folded"]]
    check(folded == [1, 4, 7, 11, 14, 19, 22], f"ResNet-8 served folds {folded}")
    check(all(m["layers"][i]["forward_flops"] == 0 for i in folded),
          "a BatchNorm folded into a convolution with a bias costs FLOPs")
    check(m["layers"][0]["forward_flops"] == 2 * 16 * 32 * 32 * 27 + 16 * 32 * 32,
          f"ResNet-8 served layer 0 FLOPs {m['layers'][0]['forward_flops']}")
    text = " ".join(analyze(args, serving, "-I", ".", expect=0).stdout.split())  # unwrapped
    for cell in ("BatchNorm2d (folded into 0)", "BatchNorm2d (folded into 21)",
                 "A BatchNorm folded into the layer it reads runs no pass of its own"):
        check(cell in text, f"ResNet-8 served: the text report has no '{cell}'")
    # DS-CNN's first convolution, 10x4 stride 2 'same' on 49x10: out 25x5, pads 4/5 and 1/1.
    m = report_of(args, "mlperf_tiny/ds_cnn")
    got = (m["layers"][0]["padding"], m["layers"][0]["padding_end"])
    check(got == ([4, 1], [5, 1]), f"DS-CNN layer 0 padding {got}")
    # Keras' DS-CNN: 1,152 non-trainable (nine BatchNorms of 64 channels, 2 per channel).
    check(m["non_trainable_count"] == 1152 == 9 * 2 * 64, f"DS-CNN {m['non_trainable_count']}")
    # Every buffer named in words: the running statistics (1,152 floats = 4,608 B), Dropout's
    # 1-bit mask (100 * 64 * 25 * 5 / 8 = 100,000 B, rounded up to 100,096) and BatchNorm's
    # batch statistics.
    text = analyze(args, sample("mlperf_tiny/ds_cnn"), "-I", ".", expect=0).stdout
    for cell in ("non-trainable         4,608 B", "97.75 KiB  activations  dropout mask of layer 3 "
                 "(Dropout)", "batch mean and 1/std of layer 1 (BatchNorm2d)"):
        check(cell in text, f"DS-CNN's text report has no '{cell}'")
    check("_mask" not in text and "batch_statistics" not in text, "a role's raw name in the text")

    # Prefetch: the next batch mirrors the batch's layout (input, then labels) right after it,
    # so the inputs region doubles: input 32*1*28*28*4 = 100,352 (a multiple of 256), labels
    # 32*4 = 128 -> 256. A swept batch keeps Prefetch.
    prefetching = "tests/analyzer/data/prefetch.hpp"
    result = analyze(args, prefetching, "-I", ".", "--format", "json", "--batch", "32,64", expect=0)
    m = json.loads(result.stdout)["models"][0]
    check(m["prefetch"] is True, f"Prefetch: the report says prefetch {m['prefetch']}")
    batch_region = lambda b: round256(b * 28 * 28 * 4) + round256(b * 4)
    check(m["footprint"]["inputs"] == 2 * batch_region(32) == 201216,
          f"Prefetch: inputs {m['footprint']['inputs']}")
    points = {p["batch"]: p["footprint"]["inputs"] for p in m["sweep"]["points"]}
    check(points[64] == 2 * batch_region(64), f"Prefetch: the sweep's inputs at 64 {points[64]}")
    text = " ".join(analyze(args, prefetching, "-I", ".", expect=0).stdout.split())
    check("Adam, CrossEntropy, FP32, Prefetch (the next batch arrives during the step)" in text,
          "Prefetch: the text report's setup line does not name it")
    check(report_of(args, "simple_cnn")["prefetch"] is False, "SimpleCNN reports prefetch")

    # LinearRegression (seed 002): nn.Linear(10, 2), 22 parameters.
    m = report_of(args, "linear_regression")
    check(m["parameter_count"] == 10 * 2 + 2, "LinearRegression parameters")

    # The sweep: batch 256 with SGD has no optimizer state and twice batch 128's inputs.
    m = report_of(args, "simple_cnn", "--batch", "128,256", "--optimizer", "SGD")
    points = {(p["batch"], p["optimizer"]): p["footprint"] for p in m["sweep"]["points"]}
    check(points[(256, "SGD")]["optimizer_state"] == 0, "sweep: SGD has no optimizer state")
    check(points[(256, "SGD")]["inputs"] == round256(256 * 3 * 32 * 32 * 4) + round256(256 * 4),
          "sweep: inputs at batch 256")

    # --precision: FP32 and Mixed<bf16> side by side. SimpleCNN under Mixed<bf16>, as
    # tests/core/test_precision.cpp derives it: the f32 master (165,888 B) and a bf16 copy of the
    # 41,418 parameters (82,836 -> 82,944), gradients and Adam's moments f32 as before, and the
    # activations' peak 9,962,496 B (its bf16 tensors half of FP32's, the u8 window index not).
    m = report_of(args, "simple_cnn", "--precision", "FP32,Mixed<bf16>")
    points = {p["precision"]: p["footprint"] for p in m["sweep"]["points"]}
    mixed = {"weights": 165888 + 82944, "gradients": 165888, "optimizer_state": 331776,
             "activations": 9962496, "workspace": 110592, "inputs": 1573376}
    check(points["FP32"]["total"] == sum(simple_cnn_by_hand().values()),
          f"--precision: FP32's total {points['FP32']['total']}")
    for key, value in mixed.items():
        check(points["Mixed<bf16>"][key] == value,
              f"--precision: Mixed<bf16>'s {key} {points['Mixed<bf16>'][key]}, by hand {value}")
    check(points["Mixed<bf16>"]["total"] == sum(mixed.values()) == 12392960,
          f"--precision: Mixed<bf16>'s total {points['Mixed<bf16>']['total']}")
    text = analyze(args, sample("simple_cnn"), "-I", ".", "--precision", "FP32,Mixed<bf16>",
                   expect=0).stdout
    check("batch 128, Adam: Mixed<bf16> is the smallest, 11.82 MiB, 8.92 MiB less than FP32 "
          "(the setup's)" in text, f"--precision names the smaller one:\n{text}")
    check("the generated CPU trainer trains Mixed<bf16> and Mixed<f16>" in text and
          "Pure<bf16> is priced only" in text,
          "--precision says which precisions the trainers train")
    # A wide Linear at batch 1 (tests/analyzer/data/wide_linear.hpp): 256·256 + 256 = 65,792
    # parameters, 263,168 B in f32 (a multiple of 256). FP32: weights and gradients 263,168 each;
    # inputs 256·4 = 1,024 and the label 4 -> 256; activations: the logits 1,024, the loss and
    # the prediction 256 each and d(logits) 1,024, all alive at the loss: 2,560. Total 530,176.
    # Mixed<bf16> adds the copy, 131,584 B, and halves the logits and d(logits) (512 each):
    # activations 1,536, total 660,736: 130,560 B (127.50 KiB) more.
    wide = "tests/analyzer/data/wide_linear.hpp"
    result = analyze(args, wide, "-I", ".", "--format", "json", "--precision", "Mixed<bf16>",
                     expect=0)
    points = {p["precision"]: p["footprint"]["total"]
              for p in json.loads(result.stdout)["models"][0]["sweep"]["points"]}
    check(points == {"Mixed<bf16>": 660736}, f"--precision on a wide Linear: {points}")
    text = analyze(args, wide, "-I", ".", "--precision", "FP32,Mixed<bf16>", expect=0).stdout
    check("batch 1, SGD: FP32 (the setup's) is the smallest, 517.75 KiB; Mixed<bf16> costs "
          "127.50 KiB more" in text, f"--precision says what Mixed costs:\n{text}")
    # The same model planned in Mixed<bf16>: its report names the working copy (131,584 B) and
    # its own precision, and the FP32 row is the smaller.
    check("batch 1, SGD: FP32 is the smallest, 517.75 KiB, 127.50 KiB less than Mixed<bf16> "
          "(the setup's)" in text, f"--precision on a Mixed<bf16> setup:\n{text}")
    text = analyze(args, wide, "-I", ".", expect=0).stdout
    check("128.50 KiB  weights      working copy of the parameters (mixed precision)" in text,
          f"the report names the working copy:\n{text}")
    check("training step: batch 1, SGD, CrossEntropy, Mixed<bf16>" in text,
          f"the setup line names the precision:\n{text}")
    r = analyze(args, sample("mlp"), "-I", ".", "--precision", "Mixed<f32>", expect=2)
    check("unknown precision 'Mixed<f32>'" in r.stderr, r.stderr)

    check_microcontroller_numbers(args)
    check_accumulate_numbers(args)
    check_batch_norm_sweep(args)
    check_fit_numbers(args)
    check_checkpoint_numbers(args)


def check_checkpoint_numbers(args):
    # data/mlp50_checkpoint.hpp, derived in tests/core/test_checkpoint.cpp: four checkpointed
    # segments of five pairs each recompute their first four pairs, 4 * 4 * (132,096 + 1,024)
    # FLOPs; the activations at the peak (the loss step) are 10 * 4,096 + 256 = 41,216 B.
    header = "tests/analyzer/data/mlp50_checkpoint.hpp"
    report = json.loads(analyze(args, header, "--format", "json", expect=0).stdout)["models"][0]
    check(report["layer_totals"]["recompute_flops"] == 2129920,
          f"checkpoint: recompute FLOPs {report['layer_totals']}")
    recomputed = [layer["index"] for layer in report["layers"] if layer["recompute_flops"] > 0]
    want = [i for segment in range(4) for i in range(10 * segment, 10 * segment + 8)]
    check(recomputed == want, f"checkpoint: recomputed layers {recomputed}, by hand {want}")
    check(report["footprint"]["activations"] == 41216,
          f"checkpoint: activations {report['footprint']}")
    text = " ".join(analyze(args, header, expect=0).stdout.split())
    check("recompute FLOPs" in text and "Recompute FLOPs (checkpointing)" in text,
          f"checkpoint: the text report prices the recomputation:\n{text}")
    # --checkpoint sweeps the policies, each with its bytes and recompute FLOPs (by hand in
    # tests/core/test_checkpoint.cpp; the step's 9,801,728 FLOPs in tests/core/test_fit.cpp).
    report = json.loads(analyze(args, header, "--format", "json", "--checkpoint",
                                "none,sqrt,every<2>", expect=0).stdout)["models"][0]
    got = [(p["checkpoint"], p["footprint"]["activations"], p["recompute_flops"], p["step_flops"])
           for p in report["sweep"]["points"]]
    want = [("None", 106752, 0, 9801728), ("Sqrt", 41216, 2129920, 9801728),
            ("Every<2>", 57600, 1597440, 9801728)]
    check(got == want, f"checkpoint sweep: {got}, by hand {want}")
    check(report["checkpoint"] == "Sqrt", f"checkpoint: the setup's policy {report['checkpoint']}")
    text = " ".join(analyze(args, header, "--checkpoint", "none,sqrt,every<2>",
                            expect=0).stdout.split())
    # 106,752 - 41,216 = 65,536 B = 64 KiB; 2,129,920 / 9,801,728 = 21.7 %, (2,129,920 -
    # 1,597,440) / 9,801,728 = 5.4 %.
    line = ("batch 16, SGD, against Sqrt (the setup's): None 924.75 KiB, 64.00 KiB more, 22 % less "
            "compute; Every<2> 876.75 KiB, 16.00 KiB more, 5 % less compute")
    check(line in text, f"checkpoint sweep: the text says '{line}':\n{text}")
    # With --accumulate too, the micro-batch lines compare points under one policy each, and say
    # which: as 4 micro-batches of 4 the activations are a quarter's, 26 * 1,024 + 256 = 26,880
    # unremedied (79,872 B less than 106,752) and 10 * 1,024 + 256 = 10,496 under Sqrt (30,720
    # less than 41,216).
    text = " ".join(analyze(args, header, "--checkpoint", "none,sqrt", "--accumulate", "1,4",
                            expect=0).stdout.split())
    for line in ("batch 16, SGD, Checkpoint<None>: as 4 micro-batches of 4, 846.75 KiB, 78.00 KiB "
                 "less than as 1 micro-batch of 16 (the setup's)",
                 "batch 16, SGD, Checkpoint<Sqrt>: as 4 micro-batches of 4, 830.75 KiB, 30.00 KiB "
                 "less than as 1 micro-batch of 16 (the setup's)"):
        check(line in text, f"checkpoint and accumulate: the text says '{line}':\n{text}")
    result = analyze(args, header, "--checkpoint", "every<0>", expect=2)
    check("unknown checkpointing policy 'every<0>'" in result.stderr,
          f"checkpoint: a bad policy: {result.stderr}")
    # --checkpoint auto fits the first budget (tests/core/test_checkpoint_auto.cpp derives it by
    # hand): in 889,600 B it recomputes 14 of the 25 pairs, 14 * 133,120 FLOPs, and holds 12
    # activations of 4,096 B and the losses' 256 at its peak; in 873,215 B nothing fits, and the
    # least any cut set needs is 873,216 B.
    report = json.loads(analyze(args, header, "--format", "json", "--checkpoint", "sqrt,auto",
                                "--budget", "889600", expect=0).stdout)["models"][0]
    got = [(p["checkpoint"], p["footprint"]["activations"], p["recompute_flops"])
           for p in report["sweep"]["points"]]
    want = [("Sqrt", 41216, 2129920), ("Auto", 49408, 1863680)]
    check(got == want, f"checkpoint auto: {got}, by hand {want}")
    # (The setup itself, under Sqrt, needs 881,408 B: over that budget, exit 1.)
    report = json.loads(analyze(args, header, "--format", "json", "--checkpoint", "auto",
                                "--budget", "873215", expect=1).stdout)["models"][0]
    got = [(p["checkpoint"], p["reason"], p["needs"]) for p in report["sweep"]["not_applicable"]]
    want = [("Auto", "checkpoint_budget_too_small", 873216)]
    check(got == want, f"checkpoint auto, nothing fits: {got}, by hand {want}")
    text = " ".join(analyze(args, header, "--checkpoint", "auto", "--budget", "873215",
                            expect=1).stdout.split())
    line = "the least needs 873,216 B (852.75 KiB): checkpoint_budget_too_small"
    check(line in text, f"checkpoint auto, nothing fits: the text says '{line}':\n{text}")
    result = analyze(args, header, "--checkpoint", "auto", expect=2)
    check("--checkpoint auto checkpoints to fit a budget" in result.stderr,
          f"checkpoint auto without a budget: {result.stderr}")
    # --fit offers checkpointing after accumulation (tests/core/test_fit.cpp derives the bytes):
    # the same MLP unremedied, in sixteen micro-batches of one sample (847,104 B), does not fit
    # 845,000 B; under Sqrt it needs 843,008 and recomputes 2,129,920 of the step's 9,801,728
    # FLOPs (22 %). No smaller batch is left: a micro-batch of one is the smallest.
    in_sixteen = ("staticnet::Training<staticnet::Input<staticnet::f32, 64>, staticnet::Batch<16>, "
                  "staticnet::Loss<staticnet::MSE>, staticnet::Accumulate<16>>")
    flags = ("--model", "mlp50::Net", "--setup", in_sixteen, "--fit", "845000")
    fits = json.loads(analyze(args, header, "--format", "json", *flags,
                              expect=0).stdout)["models"][0]["fit"][0]["options"]
    got = [(o["remedy"], o["checkpoint"], o["batch"], o["micro_batches"], o["required"],
            o["step_flops"], o["recompute_flops"]) for o in fits]
    want = [("checkpoint", "Sqrt", 16, 16, 843008, 9801728, 2129920)]
    check(got == want, f"fit with checkpointing: {got}, by hand {want}")
    text = " ".join(analyze(args, header, *flags, expect=0).stdout.split())
    for cell in ("Checkpoint<Sqrt>: batch 16 as 16 micro-batches",
                 "+22 % (2,129,920 FLOPs recomputed)"):
        check(cell in text, f"fit with checkpointing: the text report says '{cell}':\n{text}")
    # Without checkpointing nothing is said of it (the column and the field are absent).
    plain = json.loads(analyze(args, SQUARE, "--format", "json", expect=0).stdout)["models"][0]
    check("recompute_flops" not in plain["layer_totals"] and
          all("recompute_flops" not in layer for layer in plain["layers"]),
          "checkpoint: no recompute_flops without checkpointing")


def check_batch_norm_sweep(args):
    # tests/analyzer/data/batch_norm_flat.hpp: a BatchNorm1d after a Linear does not plan at batch
    # 1, nor at micro-batches of 1: the sweep leaves those points out with their reason, rather
    # than report an empty plan's 0 bytes.
    header = "tests/analyzer/data/batch_norm_flat.hpp"
    result = analyze(args, header, "--format", "json", "--batch", "1,8", "--accumulate", "1,8",
                     expect=0)
    sweep = json.loads(result.stdout)["models"][0]["sweep"]
    planned = [(p["batch"], p["micro_batches"]) for p in sweep["points"]]
    check(planned == [(8, 1)], f"batch norm sweep: planned points {planned}")
    check(all(p["footprint"]["total"] > 0 for p in sweep["points"]),
          f"batch norm sweep: {sweep['points']}")
    left_out = [(p["batch"], p["micro_batches"], p["reason"]) for p in sweep["not_applicable"]]
    check(left_out == [(1, 1, "batch_norm_one_value_per_channel"),
                       (1, 8, "micro_batches_do_not_divide"),
                       (8, 8, "batch_norm_one_value_per_channel")],
          f"batch norm sweep: left out {left_out}")
    text = " ".join(analyze(args, header, "--batch", "1,8", "--accumulate", "1,8",
                            expect=0).stdout.split())
    check("Not applicable, left out: batch 1 (a batch of one sample gives a BatchNorm one value "
          "per channel, which it cannot normalise: batch_norm_one_value_per_channel)." in text,
          f"batch norm sweep, text:\n{text}")


def check_fit_numbers(args):
    # data/square.hpp: Linear(64 -> 64), batch 16, MSE, SGD. From test_accumulate.cpp's buffers:
    # parameters and gradients 2 * 16,640; the whole batch's input and targets 2 * 4,096; as K
    # micro-batches of m = 16 / K the output and its gradient 256 * m each and the losses' slot
    # 256; a batch B not accumulated needs 33,536 + 1,024 * B.
    def accumulated(k):
        return 2 * 16640 + 8192 + 2 * 256 * (16 // k) + 256

    def batch(b):
        return 33536 + 1024 * b

    check((accumulated(1), accumulated(4), accumulated(16), batch(10)) ==
          (49920, 43776, 42240, 43776), "fit by hand")

    def menu(*fit_flags, expect):
        result = analyze(args, SQUARE, "--format", "json", *fit_flags, expect=expect)
        return json.loads(result.stdout)["models"][0]["fit"], result

    # 44,000 B: the whole batch (49,920) and two micro-batches (45,824) do not fit; four, eight
    # and sixteen do, then the largest batch not accumulated, 10 (11 needs 44,800).
    fits, _ = menu("--fit", "44000", expect=0)
    got = [(o["remedy"], o["batch"], o["micro_batches"], o["required"]) for o in fits[0]["options"]]
    want = [("accumulate", 16, 4, accumulated(4)), ("accumulate", 16, 8, accumulated(8)),
            ("accumulate", 16, 16, accumulated(16)), ("smaller_batch", 10, 1, batch(10))]
    check(got == want, f"fit 44,000 B: {got}, by hand {want}")
    check([o["margin"] for o in fits[0]["options"]] == [44000 - w[3] for w in want],
          "fit: margins")
    # Exactly the whole batch's bytes: it fits as it is, and that is the one option.
    fits, _ = menu("--fit", "49920", expect=0)
    check([(o["remedy"], o["required"]) for o in fits[0]["options"]] == [("none", 49920)],
          f"fit 49,920 B: {fits[0]['options']}")
    # A byte below a batch of one (34,560): nothing fits, exit status 1, said on stderr.
    fits, result = menu("--fit", "34559", expect=1)
    check(fits[0]["options"] == [], f"fit 34,559 B: {fits[0]['options']}")
    check("nothing fits budget" in result.stderr, f"fit: stderr {result.stderr}")
    # The stderr sentence and the report's line name the same remedies tried, in fit's order.
    tried = "not as micro-batches, not checkpointed, not a smaller batch"
    check(tried in result.stderr, f"fit: stderr names what was tried: {result.stderr}")
    text = " ".join(analyze(args, SQUARE, "--fit", "34559", expect=1).stdout.split())
    check(f"Nothing fits budget 33.75 KiB: not the batch of 16 as it is, {tried} (" in text,
          f"fit: the report names what was tried:\n{text}")
    # A device: its runtime overhead is taken off first and counted in what each option requires.
    fits, _ = menu("--fit", "jetson_nano", expect=0)
    nano = fits[0]
    check(nano["id"] == "jetson_nano" and nano["shares_host_memory"]
          and nano["options"][0]["remedy"] == "none", f"fit jetson_nano: {nano}")
    text = " ".join(analyze(args, SQUARE, "--fit", "44000", expect=0).stdout.split())
    for cell in ("What fits budget", "Accumulate<4>: batch 16 as 4 micro-batches of 4",
                 "Batch<10>", "none (the same arithmetic)"):
        check(cell in text, f"fit: the text report says '{cell}'")
    result = analyze(args, SQUARE, "--fit", "nrf52840", expect=2)
    check("microcontroller" in result.stderr, f"fit nrf52840: {result.stderr}")


def check_accumulate_numbers(args):
    # tests/analyzer/data/accumulate.hpp: Conv2d<8, 3x3> on 1x28x28, ReLU, Flatten, Linear<10>;
    # Batch<32>, Adam, Accumulate<4>: a step runs 4 micro-batches of 8 (setup.hpp).
    B, K = 32, 4
    m_ = B // K
    params = (8 * 9 + 8) + (8 * 26 * 26 * 10 + 10)  # 54,170
    pb = round256(4 * params)  # 216,680 -> 216,832
    # The inputs region holds the whole batch, whatever K: 32 images and 32 labels.
    inputs = round256(B * 28 * 28 * 4) + round256(B * 4)  # 100,352 + 256
    # The activations at the peak (backward of the Linear): the conv's output (the ReLU in place)
    # and the gradient of the Linear's input, each one micro-batch's, the gradient of the logits
    # (8 * 10 * 4 = 320 -> 512), and the per-sample losses and predicted classes, which stay the
    # whole batch's (32 * 4 = 128 -> 256 each).
    def activations(micro):
        return 2 * micro * 8 * 26 * 26 * 4 + round256(micro * 10 * 4) + 2 * round256(B * 4)
    workspace = round256(9 * 26 * 26 * 4)  # the im2col of one sample, whatever the batch
    expected = {"weights": pb, "gradients": pb, "optimizer_state": 2 * pb, "inputs": inputs,
                "workspace": workspace, "activations": activations(m_)}
    check(inputs == 100608 and activations(m_) == 347136 and activations(B) == 1386240,
          f"accumulate by hand: {inputs}, {activations(m_)}, {activations(B)}")
    result = analyze(args, ACCUMULATE, "--format", "json", "--accumulate", "1,4", "--batch",
                     "30,32", "--budget", "2MiB", expect=0)
    m = json.loads(result.stdout)["models"][0]
    check((m["batch"], m["micro_batches"], m["micro_batch"]) == (B, K, m_),
          f"accumulate: batch {m['batch']}, {m['micro_batches']} of {m['micro_batch']}")
    check(m["parameter_count"] == params, f"accumulate: parameters {m['parameter_count']}")
    for key, value in expected.items():
        check(m["footprint"][key] == value, f"accumulate: {key} {m['footprint'][key]}, by hand "
                                            f"{value}")
    check(m["footprint"]["total"] == sum(expected.values()) == 1339648,
          f"accumulate: total {m['footprint']['total']}")
    # The layers see one micro-batch: shapes and saved bytes of 8 samples; FLOPs the whole step's.
    check(m["input_shape"] == [m_, 1, 28, 28] and m["layers"][0]["input_shape"] == [m_, 1, 28, 28],
          f"accumulate: input shape {m['input_shape']}")
    check(m["layers"][0]["saved_bytes"] == m_ * 28 * 28 * 4, "accumulate: conv's saved input")
    check(m["layers"][0]["forward_flops"] == 2 * B * 8 * 26 * 26 * 9 + B * 8 * 26 * 26,
          f"accumulate: conv forward FLOPs {m['layers'][0]['forward_flops']}")
    check(m["timeline"][-1]["name"] == "optimizer update (Adam)" and len(m["timeline"]) == 10,
          f"accumulate: timeline {[s['name'] for s in m['timeline']]}")
    # The sweep: at batch 32 one micro-batch of 32 and four of 8 hold the same inputs and
    # persistent regions; only the activations differ. 4 does not divide 30.
    points = {(p["batch"], p["micro_batches"]): p["footprint"] for p in m["sweep"]["points"]}
    check(sorted(points) == [(30, 1), (32, 1), (32, 4)], f"accumulate: points {sorted(points)}")
    check(points[(32, 4)] == m["footprint"], "accumulate: the sweep's (32, 4) is the plan")
    check(points[(32, 1)]["activations"] == activations(B)
          and points[(32, 1)]["inputs"] == points[(32, 4)]["inputs"] == inputs,
          f"accumulate: one micro-batch of 32: {points[(32, 1)]}")
    check(points[(32, 1)]["total"] - points[(32, 4)]["total"] == activations(B) - activations(m_)
          == 1039104, "accumulate: 4 micro-batches save the activations' difference only")
    check(m["sweep"]["not_applicable"] == [{"batch": 30, "optimizer": "Adam", "precision": "FP32",
                                            "micro_batches": 4, "checkpoint": "None",
                                            "reason": "micro_batches_do_not_divide"}],
          f"accumulate: not applicable {m['sweep']['not_applicable']}")
    # The largest batch in 2 MiB under Accumulate<4> is a multiple of 4 that fits, the next
    # multiple does not; the budget check's is the setup's (4 micro-batches).
    largest = {p["micro_batches"]: p["by_budget"][0] for p in m["sweep"]["max_batch"]}
    check(largest[4] % 4 == 0 and largest[4] > largest[1] > 0 and
          m["budgets"][0]["max_batch"] == largest[4], f"accumulate: largest batches {largest}")
    result = analyze(args, ACCUMULATE, "--format", "json", "--batch",
                     f"{largest[4]},{largest[4] + 4}", "--budget", "2MiB", expect=0)
    fits = [p["fits"][0] for p in json.loads(result.stdout)["models"][0]["sweep"]["points"]]
    check(fits == [True, False], f"accumulate: around the largest batch {largest[4]}: {fits}")

    text = " ".join(analyze(args, ACCUMULATE, "--accumulate", "1,4", "--batch", "30,32",
                            expect=0).stdout.split())
    for cell in ("training step: batch 32 as 4 micro-batches of 8 (Accumulate<4>), Adam, "
                 "CrossEntropy, FP32",
                 "input f32 (8, 1, 28, 28) → output (8, 10) per micro-batch",
                 "Steps 0–8 (forward, loss and backward) run 4 times in a training step, once per "
                 "micro-batch of 8",
                 "the update, step 9, runs once",
                 "What-if: the footprint by batch and micro-batches",
                 "32 Adam 4 × 8 211.75 KiB 211.75 KiB 423.50 KiB 98.25 KiB 24.00 KiB 339.00 KiB "
                 "1.28 MiB",
                 "batch 32, Adam: as 1 micro-batch of 32, 2.27 MiB, 1014.75 KiB more than as 4 "
                 "micro-batches of 8 (the setup's)",
                 "Not applicable, left out: 4 micro-batches with batch 30 (Accumulate<4> splits a "
                 "batch into 4 of equal size, but 4 does not divide it)."):
        check(cell in text, f"accumulate: the text report has no '{cell}':\n{text}")
    # Without Accumulate nothing is said of micro-batches, unless --accumulate sweeps them.
    text = analyze(args, sample("mlp"), "-I", ".", expect=0).stdout
    check("micro-batch" not in text, "a setup without Accumulate mentions micro-batches")
    text = " ".join(analyze(args, sample("simple_cnn"), "-I", ".", "--accumulate", "4",
                            expect=0).stdout.split())
    check("What-if: the footprint by batch and micro-batches" in text
          and "128 Adam 4 × 32 162.00 KiB 162.00 KiB 324.00 KiB 1.50 MiB 108.00 KiB 4.63 MiB "
          "6.86 MiB" in text and "Accumulate<K> runs a step as K micro-batches" in text,
          f"--accumulate 4 on SimpleCNN:\n{text}")


def round16(n):
    return (n + 15) // 16 * 16


def budget_hpp_max_batches(args):
    """budget.hpp's max_batch(Device) for the models of the int8 test headers on each
    microcontroller, and for SimpleCNN on the Jetson Nano (whose budget counts the trainer's host
    bytes), compiled and run here: {(name, device id): batch}."""
    source = r"""
#include <cstdio>
#include "samples/simple_cnn.hpp"
#include "tests/analyzer/data/int8_digits.hpp"
#include "tests/analyzer/data/int8_over_budget.hpp"
namespace sn = staticnet;
template <class M, class S>
void show(const char* name) {
  for (const auto& p : sn::device::microcontroller_profiles)
    std::printf("%s %s %lld\n", name, p.id, static_cast<long long>(sn::max_batch<M, S>(p.device)));
}
int main() {
  show<int8::Digits, int8::DigitsInt8>("int8_digits");
  show<int8::Digits, int8::DigitsFP32>("int8::Digits");
  show<over::Vww, over::VwwInt8>("int8_vww");
  show<over::WideMlp, over::WideMlpInt8>("int8_wide_mlp");
  std::printf("simple_cnn jetson_nano %lld\n",
              static_cast<long long>(sn::max_batch<staticnet::samples::SimpleCNN,
                                                   staticnet::samples::SimpleCNNTraining>(
                  sn::device::jetson_nano)));
}
"""
    path = os.path.join(args.work, "max_batch.cpp")
    program = os.path.join(args.work, "max_batch")
    with open(path, "w") as f:
        f.write(source)
    built = subprocess.run([args.cxx, "-std=c++20", "-I", os.path.join(args.source, "include"),
                            "-I", args.source, path, "-o", program], capture_output=True, text=True)
    check(built.returncode == 0, f"budget.hpp's max_batch program: {built.stderr}")
    if built.returncode != 0:
        return {}
    ran = subprocess.run([program], capture_output=True, text=True, check=True)
    return {(name, device): int(batch)
            for name, device, batch in (line.split() for line in ran.stdout.splitlines())}


def check_microcontroller_numbers(args):
    # The digits CNN in int8 at batch 1 (tests/analyzer/data/int8_digits.hpp;
    # samples/digits_cnn.hpp's table; under Int8 every buffer rounds up to 16 B).
    # Flash: int8 weights 16*1*3*3 = 144 and 256*10 = 2,560: 2,704 (a multiple of 16); three int32
    # numbers per output channel (bias, multiplier, shift), 3 * (16 + 10) * 4 = 312 -> 320. The
    # weights region: 3,024.
    in_flash = 144 + 2560 + round16(3 * (16 + 10) * 4)
    # SRAM: one shared region. The input, 64 int8 (its 'inputs' region is empty), beside the
    # conv's output 16*8*8 = 1,024 (the ReLU in place): 1,088; then the pool's 16*4*4 = 256 over
    # the input's bytes and beyond, the conv's output still read: 1,280, the peak; the logits
    # (10 -> 16) over the conv's.
    in_sram = 16 * 8 * 8 + 16 * 4 * 4
    check(in_flash == 3024 and in_sram == 1280, f"by hand: {in_flash}, {in_sram}")
    result = analyze(args, INT8_DIGITS, *MCU_FLAGS, "--format", "json", expect=0)
    m = json.loads(result.stdout)["models"][0]
    check(m["precision"] == "Int8" and m["mode"] == "inference", f"{m['precision']}, {m['mode']}")
    check(m["footprint"]["weights"] + m["footprint"]["non_trainable"] == in_flash,
          f"int8 digits: weights {m['footprint']['weights']}")
    check(m["footprint"]["total"] - in_flash == in_sram,
          f"int8 digits: all but the weights {m['footprint']['total'] - in_flash}")
    batches = budget_hpp_max_batches(args)
    # device.hpp: nRF52840 256 KiB SRAM, 1 MiB flash; STM32H743 512 KiB (its AXI SRAM), 2 MiB;
    # both 16 KiB of SRAM (mcu_overhead) and 64 KiB of flash (mcu_flash_overhead) the firmware's.
    devices = {"nrf52840": (256 * 1024, 1024 * 1024), "stm32h743": (512 * 1024, 2 * 1024 * 1024)}
    for b in m["budgets"]:
        sram, flash = devices[b["id"]]
        # SRAM: 1,280 + 16,384 = 17,664; flash: 3,024 + 65,536 = 68,560.
        expected = {"memory": sram, "overhead": 16384, "required": 17664, "margin": sram - 17664,
                    "flash": flash, "flash_overhead": 65536, "in_flash": 3024,
                    "flash_required": 68560, "flash_margin": flash - 68560, "fits": True,
                    "fits_sram": True, "fits_flash": True,
                    "max_batch": batches.get(("int8_digits", b["id"]))}
        got = {k: b.get(k) for k in expected}
        check(got == expected, f"int8 digits on {b['id']}: {got}, by hand {expected}")
    text = analyze(args, INT8_DIGITS, *MCU_FLAGS, expect=0).stdout
    for cell in ("nRF52840: SRAM 1,280 + 16,384 = 17,664 B of 262,144 B; flash 3,024 + 65,536 = "
                 "68,560 B of 1,048,576 B.",
                 "STM32H743 (AXI SRAM): SRAM 1,280 + 16,384 = 17,664 B of 524,288 B; flash 3,024 "
                 "+ 65,536 = 68,560 B of 2,097,152 B.",
                 "each buffer rounded up to 16 B",
                 "320 B  weights      per-channel biases, multipliers and shifts (Int8)"):
        check(cell in text, f"the int8 digits' text report has no '{cell}':\n{text}")

    # The same model in FP32 inference: all of it in SRAM (budget.hpp: only an Int8 plan keeps
    # its weights in flash), the flash the firmware's code alone. Footprint: weights
    # al(4 * 2,730) = 11,008; the input 8*8*4 = 256; the im2col workspace 9*64*4 = 2,304; the
    # conv's output 4,096 and the pool's 1,024 alive at the pool: 5,120. 18,688 + 16,384 = 35,072.
    result = analyze(args, INT8_DIGITS, "--model", "int8::Digits", "--setup", "int8::DigitsFP32",
                     *MCU_FLAGS, "--format", "json", expect=0)
    m = json.loads(result.stdout)["models"][0]
    total = 11008 + 256 + 2304 + 4096 + 1024
    check(m["footprint"]["total"] == total, f"FP32 digits: total {m['footprint']['total']}")
    for b in m["budgets"]:
        got = (b["in_flash"], b["required"], b["flash_required"], b["fits"], b["max_batch"])
        expected = (0, total + 16384, 65536, True, batches.get(("int8::Digits", b["id"])))
        check(got == expected, f"FP32 digits on {b['id']}: {got}, by hand {expected}")

    # Over budget (tests/analyzer/data/int8_over_budget.hpp, numbers from the compile-fail cases
    # budget_mcu_sram_does_not_fit.cpp and budget_mcu_flash_does_not_fit.cpp).
    result = analyze(args, INT8_OVER, *MCU_FLAGS, "--format", "json", expect=1)
    models = {m["name"]: m for m in json.loads(result.stdout)["models"]}
    # VWW: SRAM 368,640 + 16,384 = 385,024 > 262,144 (fits the STM32H743's 524,288); flash
    # 148,736 + 65,536 = 214,272.
    for b in models["int8_vww"]["budgets"]:
        got = (b["required"], b["in_flash"], b["flash_required"], b["fits_sram"], b["fits_flash"],
               b["fits"], b["max_batch"])
        fits = b["id"] == "stm32h743"
        expected = (385024, 148736, 214272, fits, True, fits, batches.get(("int8_vww", b["id"])))
        check(got == expected, f"int8 VWW on {b['id']}: {got}, by hand {expected}")
    # The wide MLP: flash 1,226,528 + 65,536 = 1,292,064 > 1,048,576 (fits the STM32H743's 2 MiB);
    # SRAM the input 1,000 -> 1,008 and the first Linear's 1,200 (a multiple of 16), the second's
    # 16 over the input's bytes once read: 2,208 + 16,384 = 18,592. No batch fits the nRF52840.
    for b in models["int8_wide_mlp"]["budgets"]:
        got = (b["required"], b["flash_required"], b["fits_sram"], b["fits_flash"], b["max_batch"])
        fits = b["id"] == "stm32h743"
        expected = (18592, 1292064, True, fits, batches.get(("int8_wide_mlp", b["id"])))
        check(got == expected, f"int8 wide MLP on {b['id']}: {got}, by hand {expected}")
    check(batches.get(("int8_vww", "nrf52840")) == 0
          and batches.get(("int8_wide_mlp", "nrf52840")) == 0,
          f"budget.hpp: no batch of either fits the nRF52840: {batches}")


# ---- exit_codes --------------------------------------------------------------------------------

def check_exit_codes(args):
    r = analyze(args, sample("simple_cnn"), "-I", ".", "--device", "jetson_nano", expect=0)
    check("Jetson Nano 4GB" in r.stdout, "the device's name is in the report")
    r = analyze(args, sample("simple_cnn"), "-I", ".", "--budget", "20MiB", expect=1)
    check("NO" in r.stdout, "an exceeded budget reads NO")
    # ... and says so on stderr, the end of a CI log. SimpleCNN's footprint as check_hand_numbers
    # derives it: 21,747,200 B (20.74 MiB), 775,680 B = 757.50 KiB over 20 MiB.
    total = sum(simple_cnn_by_hand().values())
    check(total == 21747200 and total - 20 * 2**20 == 775680, f"SimpleCNN's hand total {total}")
    sentence = ("staticnet analyze: error: simple_cnn: SimpleCNN as SimpleCNNTraining does not fit "
                "budget 20.00 MiB: a step needs 21,747,200 B (20.74 MiB): 757.50 KiB over; the "
                "largest batch that fits is ")
    check(r.stderr.startswith(sentence) and r.stderr.endswith(" (this setup's is 128)\n"),
          f"an exceeded budget is said on stderr: {r.stderr!r}")
    r = analyze(args, sample("simple_cnn"), "-I", ".", "--budget", "20MiB", "--device",
                "jetson_nano", "-o", os.devnull, expect=1)
    check(r.stderr.count("staticnet analyze: error:") == 1, f"only the budget exceeded: {r.stderr}")

    r = analyze(args, sample("simple_cnn"), "-I", ".", "--device", "jetson_nanoo", expect=2)
    check("unknown device 'jetson_nanoo'" in r.stderr and "jetson_orin_nano" in r.stderr,
          f"unknown device lists the known ones: {r.stderr}")
    r = analyze(args, "samples/no_such_model.hpp", expect=2)
    check("no such header: samples/no_such_model.hpp" in r.stderr, r.stderr)
    r = analyze(args, "tests/analyzer/data/no_model.hpp", expect=2)
    check("no model is registered in tests/analyzer/data/no_model.hpp" in r.stderr
          and "STATICNET_MODEL(name, Model, Setup)" in r.stderr, r.stderr)
    r = analyze(args, "tests/analyzer/data/no_model.hpp", "--model", "plain::Net", expect=2)
    check("--model and --setup go together" in r.stderr, r.stderr)
    r = analyze(args, sample("mlp"), "-I", ".", "--budget", "lots", expect=2)
    check("'lots' is not a size" in r.stderr, r.stderr)
    r = analyze(args, sample("mlp"), "-I", ".", "--optimizer", "Adagrad", expect=2)
    check("unknown optimizer 'Adagrad'" in r.stderr, r.stderr)
    r = analyze(args, sample("mlp"), "-I", ".", "--accumulate", "0", expect=2)
    check("--accumulate takes the micro-batches of a step, at least 1, got 0" in r.stderr, r.stderr)
    # Over budget under Accumulate<4>: the largest batch is said in micro-batches.
    r = analyze(args, ACCUMULATE, "--budget", "1MiB", expect=1)
    check(r.stderr == "staticnet analyze: error: accumulating: Net as Setup does not fit budget "
          "1.00 MiB: a step needs 1,339,648 B (1.28 MiB): 284.25 KiB over; the largest batch that "
          "fits in 4 micro-batches is 8 (this setup's is 32)\n", f"accumulate over budget: {r.stderr!r}")

    # Named on the command line instead of registered.
    r = analyze(args, "tests/analyzer/data/no_model.hpp", "--model", "plain::Net", "--setup",
                "plain::Training", expect=0)
    check("plain::Net as plain::Training" in r.stdout, r.stdout)

    # Does not compile: staticnet's error decoded, the compiler's output on --verbose only.
    seed = "tests/analyzer/data/deep_cnn_seed.hpp"
    r = analyze(args, seed, expect=3)
    sentence = ("layer 10 (Linear): `InFeatures<2048>` is written, but 8192 features arrive "
                "(128 × 8 × 8)")
    check(sentence in r.stderr, f"the DeepCNN error decoded: {r.stderr}")
    check("static assert" not in r.stderr, "without --verbose the compiler's output is hidden")
    r = analyze(args, seed, "--verbose", expect=3)
    check(sentence in r.stderr and "linear_in_features_mismatch" in r.stderr,
          "--verbose shows the compiler's output too")
    r = analyze(args, "tests/analyzer/data/budget_assert.hpp", expect=3)
    check("needs 18,402,304 B (17.55 MiB)" in r.stderr and "the budget is 16,777,216 B" in r.stderr
          and "1,625,088 B (1.55 MiB) over" in r.stderr, f"the budget error decoded: {r.stderr}")
    # ... said at the user's line: the header's STATICNET_MODEL line (15).
    r = analyze(args, seed, expect=3)
    check(f"  {seed}:15:1: layer 10 (Linear)" in r.stderr,
          f"the error at the header's line: {r.stderr}")
    # A model named on the command line: its errors at the line that declares it (9), not in
    # the probe the user never wrote, with the layer's place in the model's nesting.
    wrong = "tests/analyzer/data/unregistered_wrong.hpp"
    r = analyze(args, wrong, "--model", "nested::Net", "--setup", "nested::Training", expect=3)
    check(f"  {wrong}:9:" in r.stderr and "probe.cpp" not in r.stderr
          and "layer 3 (Linear, the 2nd entry of the Sequential that is the 2nd entry of the outer "
          "Sequential): `InFeatures<64>` is written, but 32 features arrive" in r.stderr,
          f"--model's error at the header's line: {r.stderr}")
    # The JSON report of a header that does not compile: a document, in the schema, that says why.
    r = analyze(args, seed, "--format", "json", expect=3)
    report = json.loads(r.stdout)
    check(report["status"] == "does_not_compile" and report["exit_status"] == 3
          and report["models"] == [], f"does_not_compile: {report.get('status')}")
    error = report["errors"][0]
    check(error["error"] == "linear_in_features_mismatch"
          and error["message"].startswith("layer 10 (Linear): `InFeatures<2048>` is written")
          and error["location"] == {"file": seed, "line": 15, "column": 1}
          and error["layer"] == {"index": 10, "kind": "Linear", "place": None},
          f"the decoded error, its line and its layer: {error}")
    check("linear_in_features_mismatch" in report["compiler_output"], "the compiler's output")
    r = analyze(args, "samples/no_such_model.hpp", "--format", "json", expect=2)
    report = json.loads(r.stdout)
    check(report["status"] == "usage_error" and report["exit_status"] == 2
          and "no such header" in report["errors"][0]["message"], f"usage_error: {report}")
    r = analyze(args, sample("simple_cnn"), "-I", ".", "--budget", "20MiB", "--format", "json",
                expect=1)
    report = json.loads(r.stdout)
    check(report["status"] == "over_budget" and report["exit_status"] == 1
          and report["errors"][0]["error"] == "over_budget"
          and "757.50 KiB over" in report["errors"][0]["message"], f"over_budget: {report}")
    # A compiler output that is not UTF-8 (g++ echoes a Latin-1 source line) still gives a document.
    with tempfile.TemporaryDirectory() as tmp:
        latin1 = os.path.join(tmp, "latin1.hpp")
        with open(latin1, "wb") as f:
            f.write(b"#include <staticnet/staticnet.hpp>\n"
                    b"using Net = staticnet::Sequential<staticnet::Linear<2>>; // caf\xe9\n"
                    b"undeclared_name_\xe9 x;\n")
        r = subprocess.run([args.staticnet, "analyze", "--cxx", args.cxx, "--cache-dir",
                            args.cache, latin1, "--format", "json"], capture_output=True)
        check(r.returncode == 3, f"latin1: exit {r.returncode}: {r.stderr!r}")
        report = json.loads(r.stdout.decode("utf-8"))
        # g++ echoes the byte as it is (the document replaces it); clang writes it as <E9>.
        output = report["compiler_output"]
        check(report["status"] == "does_not_compile" and ("\ufffd" in output or "<E9>" in output),
              f"latin1: the document is there, the bad byte replaced: {r.stdout[:300]!r}")
    # A STATICNET_MODEL line without its ';', last in a header without a final newline.
    r = analyze(args, "tests/analyzer/data/no_semicolon.hpp", expect=0)
    check("net: user::Net as user::Training" in r.stdout, f"without ';': {r.stderr}")
    # A pool's window written as a type fails before staticnet sees the model: still explained.
    r = analyze(args, "tests/analyzer/data/pool_window_type.hpp", expect=3)
    check("tests/analyzer/data/pool_window_type.hpp:10:" in r.stderr
          and "window is a value, but sn::Kernel<3, 1> is a type: write sn::Kernel<3, 1>{}"
          in r.stderr, f"the pool's window explained: {r.stderr}")
    # Accumulate<3> with Batch<8>: the setup's error decoded, at the STATICNET_MODEL line (9).
    uneven = "tests/analyzer/data/accumulate_does_not_divide.hpp"
    r = analyze(args, uneven, expect=3)
    check(f"  {uneven}:9:1: Accumulate<3> splits Batch<8> into micro-batches of equal size, but 3 "
          "does not divide 8\n" in r.stderr, f"Accumulate<3> with Batch<8> explained: {r.stderr}")
    r = analyze(args, uneven, "--format", "json", expect=3)
    error = json.loads(r.stdout)["errors"][0]
    check(error["error"] == "micro_batches_do_not_divide"
          and error["location"] == {"file": uneven, "line": 9, "column": 1},
          f"Accumulate<3> with Batch<8> in JSON: {error}")
    # Somebody else's error passes through as the compiler wrote it.
    r = analyze(args, "tests/analyzer/data/not_cpp.hpp", expect=3)
    check("undeclared_name_in_this_header" in r.stderr and "error" in r.stderr, r.stderr)
    check("does not compile (the compiler's output is above)" in r.stderr, r.stderr)

    r = subprocess.run([args.staticnet, "analyze", "--list-devices"], capture_output=True,
                       text=True)
    check(r.returncode == 0 and "jetson_orin_nano" in r.stdout and "h100_80gb" in r.stdout
          and "nrf52840" in r.stdout and "stm32h743" in r.stdout, f"--list-devices: {r.stdout}")

    # A microcontroller: over its SRAM or its flash is over budget (1), each said apart with its
    # numbers, as assert_fits' does_not_fit_sram and does_not_fit_flash say them.
    r = analyze(args, INT8_OVER, "--device", "nrf52840", expect=1)
    sram = ("staticnet analyze: error: int8_vww: Vww as VwwInt8 does not fit the SRAM of nRF52840: "
            "a forward pass needs 385,024 B (376.00 KiB) of SRAM, the plan's 368,640 B (all but "
            "its weights, which are in flash) and the firmware's own 16,384 B, but the SRAM is "
            "262,144 B (256.00 KiB): 122,880 B (120.00 KiB) over; not even a batch of 1 fits\n")
    flash = ("staticnet analyze: error: int8_wide_mlp: WideMlp as WideMlpInt8 does not fit the "
             "flash of nRF52840: it needs 1,292,064 B (1.23 MiB) of flash, its weights and "
             "per-channel numbers 1,226,528 B and the firmware's code 65,536 B, but the flash is "
             "1,048,576 B (1.00 MiB): 243,488 B (237.78 KiB) over; no batch fits (the weights do "
             "not shrink with the batch)\n")
    check(r.stderr == sram + flash, f"the microcontroller's verdicts: {r.stderr!r}")
    lines = r.stdout.splitlines()
    for row in ("nRF52840: SRAM", "nRF52840: flash"):  # a row each model, one of them NO
        cells = [l.split() for l in lines if re.match(r"\s*" + re.escape(row) + r"\s\s", l)]
        check(len(cells) == 2 and sorted(c[10] for c in cells) == ["NO", "yes"],
              f"'{row}' rows, one NO: {cells}")
    r = analyze(args, INT8_OVER, "--device", "nrf52840", "--format", "json", expect=1)
    report = json.loads(r.stdout)
    check(report["status"] == "over_budget" and report["exit_status"] == 1
          and [e["message"] for e in report["errors"]]
          == [sram[len("staticnet analyze: error: "):-1], flash[len("staticnet analyze: error: "):-1]],
          f"the microcontroller's verdicts in JSON: {report['errors']}")
    # The STM32H743 has room for both.
    analyze(args, INT8_OVER, "--device", "stm32h743", expect=0)
    analyze(args, INT8_DIGITS, *MCU_FLAGS, expect=0)

    # staticnet explain over a log on stdin: nothing of staticnet's in it exits 1.
    r = subprocess.run([args.staticnet, "explain"], input="main.cpp:1: error: oops\n",
                       capture_output=True, text=True)
    check(r.returncode == 1 and r.stdout == "", "explain without a staticnet error exits 1")
    check(r.stderr == "staticnet explain: no staticnet error in stdin (it holds 1 other compiler "
          "error: read them as the compiler wrote them)\n", f"and says so: {r.stderr!r}")
    r = subprocess.run([args.staticnet, "explain"], input="[100%] Built target net\n",
                       capture_output=True, text=True)
    check(r.returncode == 1 and r.stderr == "staticnet explain: no staticnet error in stdin\n",
          f"a log without errors: {r.stderr!r}")


# ---- cache -------------------------------------------------------------------------------------

def check_cache(args):
    with tempfile.TemporaryDirectory() as tmp:
        args.cache = os.path.join(tmp, "cache")  # empty: the first run must build
        header = os.path.join(tmp, "net.hpp")
        text = ("#include <staticnet/staticnet.hpp>\n"
                "using Net = staticnet::Sequential<staticnet::Linear<{}>>;\n"
                "using Setup = staticnet::Training<staticnet::Input<staticnet::f32, 8>>;\n"
                "STATICNET_MODEL(net, Net, Setup);\n")
        with open(header, "w") as f:
            f.write(text.format(4))
        first = analyze(args, header, "--verbose", expect=0)
        second = analyze(args, header, "--verbose", expect=0)
        check("compiled the probe" in first.stderr, f"first run builds: {first.stderr}")
        check("the probe was in the cache" in second.stderr, f"second run reuses: {second.stderr}")
        check(first.stdout == second.stdout, "the cached probe reports the same")
        with open(header, "w") as f:
            f.write(text.format(5))
        third = analyze(args, header, "--verbose", expect=0)
        check("compiled the probe" in third.stderr, "a changed header rebuilds the probe")
        check("(1, 5)" in third.stdout, "and reports the changed model")


# ---- emulator ----------------------------------------------------------------------------------

def write_script(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)


def check_emulator(args):
    with tempfile.TemporaryDirectory() as tmp:
        args.cache = os.path.join(tmp, "cache")
        plain = analyze(args, sample("mlp"), "-I", ".", expect=0)

        # A stand-in for qemu: notes its arguments, drops `-L <sysroot>`, runs the program.
        log = os.path.join(tmp, "emulator.log")
        emulator = os.path.join(tmp, "emulator")
        write_script(emulator, f'#!/bin/sh\necho "$@" >> {log}\nshift 2\nexec "$@"\n')
        r = analyze(args, sample("mlp"), "-I", ".", "--emulator", f"{emulator} -L /sysroot",
                    expect=0)
        check(r.stdout == plain.stdout, "through the emulator the report is the same")
        ran = open(log).read() if os.path.exists(log) else ""
        check(ran.startswith("-L /sysroot ") and "probe" in ran,
              f"the emulator ran the probe with its own arguments first: {ran!r}")

        # A probe built for another machine and no emulator: the error says what to pass.
        real = args.cxx
        cross = os.path.join(tmp, "cross-c++")
        write_script(cross, "#!/bin/sh\n"
                            f'for a; do case "$a" in -E|--version) exec {real} "$@";; esac; done\n'
                            "out=; prev=\n"
                            'for a; do [ "$prev" = -o ] && out="$a"; prev="$a"; done\n'
                            'printf "not a program for this machine\\001" > "$out"\n'
                            'chmod +x "$out"\n')
        args.cxx = cross
        # A failed exec is an error from posix_spawn natively, exit 127 when the analyzer itself
        # runs under qemu-user (the aarch64 build's tests).
        r = analyze(args, sample("mlp"), "-I", ".", expect=1)
        check(("Exec format error" in r.stderr or "(exit 127)" in r.stderr)
              and "pass --emulator" in r.stderr and "CMAKE_CROSSCOMPILING_EMULATOR" in r.stderr,
              f"a probe that cannot start names --emulator: {r.stderr}")
        r = analyze(args, sample("mlp"), "-I", ".", "--emulator", "/no/such/qemu", expect=1)
        check(("cannot run /no/such/qemu" in r.stderr or "(exit 127)" in r.stderr)
              and "through --emulator '/no/such/qemu'" in r.stderr,
              f"a missing emulator is named: {r.stderr}")
        # ... and in JSON, a document that says so, telling it from a model over budget.
        r = analyze(args, sample("mlp"), "-I", ".", "--emulator", "/no/such/qemu", "--format",
                    "json", expect=1)
        report = json.loads(r.stdout)
        check(report["status"] == "error" and report["exit_status"] == 1
              and "/no/such/qemu" in report["errors"][0]["message"], f"error: {report}")
        args.cxx = real


# ---- schema ------------------------------------------------------------------------------------

def check_schema(args):
    try:
        import jsonschema
    except ImportError:
        print("SKIPPED: python3-jsonschema is not installed (scripts/install-deps.sh installs it)")
        sys.exit(77)
    with open(os.path.join(args.source, "analyzer", "schema", "report-1.json")) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    runs = [[sample(n), "-I", ".", *GOLDEN_FLAGS] for n in SAMPLES]
    runs.append([sample("simple_cnn"), "-I", ".", *SWEEP_FLAGS])
    runs.append(["tests/analyzer/data/two_models.hpp", "--budget", "1KiB"])
    runs += [[sample(f"mlperf_tiny/{n}"), "-I", "."] for n in ("resnet8", "ds_cnn")]
    runs.append(["tests/analyzer/data/resnet8_inference.hpp", "-I", "."])
    runs.append(["tests/analyzer/data/prefetch.hpp"])
    runs.append([ACCUMULATE, *ACCUMULATE_FLAGS, "--precision", "FP32,Mixed<bf16>"])
    runs.append([ACCUMULATE, "--accumulate", "3"])  # every point not applicable
    runs.append(["tests/analyzer/data/accumulate_does_not_divide.hpp"])
    runs.append([INT8_DIGITS, *MCU_FLAGS, "--budget", "64KiB"])
    runs.append([INT8_DIGITS, "--model", "int8::Digits", "--setup", "int8::DigitsFP32", *MCU_FLAGS])
    runs.append([INT8_OVER, *MCU_FLAGS])
    # Every way a run ends is a document in the schema: over a budget, not compiling, a usage error.
    runs.append(["tests/analyzer/data/deep_cnn_seed.hpp"])
    runs.append(["tests/analyzer/data/pool_window_type.hpp"])
    runs.append(["tests/analyzer/data/not_cpp.hpp"])
    runs.append(["samples/no_such_model.hpp"])
    for flags in runs:
        result = analyze(args, *flags, "--format", "json")
        errors = list(validator.iter_errors(json.loads(result.stdout)))
        check(not errors, f"{flags[0]}: {[e.message for e in errors[:3]]}")
    # The validator is real: a report with a field of the wrong type fails.
    report = json.loads(analyze(args, sample("mlp"), "-I", ".", "--format", "json").stdout)
    report["models"][0]["footprint"]["total"] = "a lot"
    check(not validator.is_valid(report), "a broken report must not validate")


# ---- svg_png -----------------------------------------------------------------------------------

def check_svg_png(args):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from PIL import Image
    except ImportError:
        Image = None
    if not chromium or Image is None:
        print("SKIPPED: needs chromium and python3-pil (scripts/install-deps.sh installs them)")
        sys.exit(77)
    for name in ("simple_cnn", "deep_cnn"):
        svg = os.path.join(args.work, f"{name}.svg")
        png = os.path.join(args.work, f"{name}.png")
        analyze(args, sample(name), "-I", ".", "--device", "jetson_nano", "--budget", "100MiB",
                "--format", "svg", "-o", svg)
        if os.path.exists(png):
            os.remove(png)
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                        "--hide-scrollbars", f"--user-data-dir={args.work}/chromium-profile",
                        "--window-size=1000,560", f"--screenshot={png}", f"file://{svg}"],
                       capture_output=True, timeout=120)
        check(os.path.exists(png), f"{name}: chromium wrote no PNG")
        if not os.path.exists(png):
            continue
        image = Image.open(png).convert("RGB")
        pixels = list(image.getdata())
        white = sum(1 for p in pixels if p == (255, 255, 255))
        check(white < 0.9 * len(pixels), f"{name}: the PNG is almost blank ({white} white)")
        # Every drawn category's colour is on the page: the stack was drawn, not just text.
        for colour in ((0x4E, 0x79, 0xA7), (0x76, 0xB7, 0xB2), (0xED, 0xC9, 0x48)):
            check(sum(1 for p in pixels if p == colour) > 50, f"{name}: no {colour} in the PNG")
        print(f"{name}: {png} {image.size}, {len(pixels) - white} non-white pixels")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--staticnet", required=True)
    parser.add_argument("--cxx", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--update", action="store_true")
    parser.add_argument("check", choices=["golden", "hand_numbers", "exit_codes", "cache",
                                          "schema", "emulator", "svg_png"])
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    args.work = os.path.abspath(args.work)
    args.cache = os.path.join(os.path.dirname(args.work), "analyzer-cache")
    globals()["check_" + args.check](args)
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""CPU step time: the generated CPU trainer's step against PyTorch eager on the same model, batch,
optimizer and thread count (SimpleCNN: batch 128, Adam; LeNet-5 and the tutorials' ReLU LeNet:
batch 64, Adam; the MLPerf Tiny models at their reference batches, Adam), alternating the two RUNS
times and printing a Markdown table of the medians, with the machine and its load.

usage: bench/cpu_step/run.py --bench BUILD/bench/cpu_step/staticnet_bench_cpu_step
                             [--python PYTHON_WITH_TORCH] [--threads 2] [--runs 5] [--compile]
                             [--models simple_cnn,lenet5_adam,lenet_relu | mlperf] [--steps 50]
Not a test: run it by hand on a machine as quiet as you can get (see bench/RESULTS.md).
"""
import argparse
import os
import pathlib
import platform
import re
import statistics
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent


def ms(command):
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    match = re.search(r"ms_per_step=([0-9.]+)", out)
    if not match:
        sys.exit(f"no ms_per_step in the output of {' '.join(command)}:\n{out}")
    return float(match.group(1))


def cpu_name():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bench", required=True, help="staticnet_bench_cpu_step")
    p.add_argument("--python", default=sys.executable, help="a Python with torch")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--compile", action="store_true", help="also time torch.compile")
    p.add_argument("--models", default="simple_cnn,lenet5_adam,lenet_relu",
                   help="comma-separated, or 'mlperf' for resnet8,ds_cnn,mobilenet_v1,fc_autoencoder")
    p.add_argument("--steps", type=int, default=50, help="steps per timed repeat")
    args = p.parse_args()
    models = ("resnet8,ds_cnn,mobilenet_v1,fc_autoencoder" if args.models == "mlperf"
              else args.models).split(",")
    rows = []
    load_before = os.getloadavg()[0]
    for model in models:
        torch_model = model.replace("_adam", "")
        common = ["--threads", str(args.threads), "--steps", str(args.steps), "--repeats", "3"]
        ours, eager, compiled = [], [], []
        for _ in range(args.runs):
            ours.append(ms([args.bench, model] + common))
            eager.append(ms([args.python, str(HERE / "torch_step.py"), torch_model] + common))
            if args.compile:
                compiled.append(ms([args.python, str(HERE / "torch_step.py"), torch_model,
                                    "--compile"] + common))
        rows.append((model, statistics.median(ours), statistics.median(eager),
                     statistics.median(compiled) if compiled else None))
    load_after = os.getloadavg()[0]
    print(f"CPU: {cpu_name()}, {os.cpu_count()} cores; threads {args.threads}; "
          f"median of {args.runs} alternating runs (each the median of 3 x {args.steps} steps); "
          f"load average {load_before:.2f} before, {load_after:.2f} after\n")
    print("| model | staticnet ms/step | PyTorch eager ms/step | eager / staticnet |"
          + (" torch.compile ms/step |" if args.compile else ""))
    print("|---|---|---|---|" + ("---|" if args.compile else ""))
    for model, ours, eager, compiled in rows:
        line = f"| {model} | {ours:.2f} | {eager:.2f} | {eager / ours:.2f}x |"
        if compiled is not None:
            line += f" {compiled:.2f} |"
        print(line)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Data-loading benchmark: staticnet's BatchLoader against PyTorch's DataLoader on the same files.

For each format (npy, cifar10), augmentation (off; random crop pad 4 + flip) and worker count
(1, 2), runs staticnet_bench_loader and torch_loader.py alternately, RUNS times each, and prints
a Markdown table of median batches per second (batch 128, normalisation on), the ratio, and the
load average before and after. Generates the data first when missing (make_data.py).

usage: bench/loader/run.py --bench BUILD/bench/loader/staticnet_bench_loader
                           [--python PYTHON_WITH_TORCH] [--data build/bench-data] [--runs 3]
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
ROOT = HERE.parent.parent


def files_for(data, fmt):
    if fmt == "npy":
        return [str(data / "npy" / "inputs.npy"), str(data / "npy" / "labels.npy")]
    return [str(data / "cifar10" / f"data_batch_{k}.bin") for k in range(1, 6)]


def rate(command):
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    match = re.search(r"batches_per_s=([0-9.]+)", out)
    if not match:
        sys.exit(f"no rate in the output of {' '.join(command)}:\n{out}")
    return float(match.group(1))


def load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bench", required=True, help="the staticnet_bench_loader binary")
    parser.add_argument("--python", default=sys.executable, help="a Python with torch, numpy")
    parser.add_argument("--data", type=pathlib.Path, default=ROOT / "build" / "bench-data")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--staticnet-batches", type=int, default=2000)
    parser.add_argument("--torch-batches", type=int, default=300)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--formats", default="npy,cifar10")
    args = parser.parse_args()

    if not (args.data / "npy" / "labels.npy").exists():
        subprocess.run([args.python, str(HERE / "make_data.py"), str(args.data)], check=True)

    print(f"load average before: {load()}", flush=True)
    rows = []
    for fmt in args.formats.split(","):
        for augment in (False, True):
            for workers in [int(w) for w in args.workers.split(",")]:
                flags = ["--format", fmt, "--workers", str(workers)] + (["--augment"] if augment else [])
                ours, theirs = [], []
                for _ in range(args.runs):
                    ours.append(rate([args.bench, *flags, "--batches", str(args.staticnet_batches),
                                      *files_for(args.data, fmt)]))
                    theirs.append(rate([args.python, str(HERE / "torch_loader.py"), *flags,
                                        "--batches", str(args.torch_batches),
                                        *files_for(args.data, fmt)]))
                row = (fmt, "crop+flip" if augment else "none", workers,
                       statistics.median(ours), statistics.median(theirs), ours, theirs, load())
                rows.append(row)
                print(f"{fmt} augment={row[1]} workers={workers}: staticnet {ours} torch {theirs} "
                      f"(load {row[7]})", flush=True)
    print(f"load average after: {load()}\n")
    print("| data | augmentation | workers | staticnet batches/s | PyTorch batches/s | ratio |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for fmt, aug, workers, ours, theirs, *_ in rows:
        print(f"| {fmt} | {aug} | {workers} | {ours:.0f} | {theirs:.1f} | {ours / theirs:.1f}x |")
    print(f"\nmachine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Gradient checkpointing's step-time price on the CPU: the generated CPU trainer's step as it is
and under Checkpoint<Sqrt>, beside PyTorch eager's step as it is and under torch.utils.checkpoint
over the same segments (torch_step.py --checkpoint), for SimpleCNN (batch 128, Adam) and a 50-layer
MLP (checkpoint_setups.hpp: batch 256, Adam), the four alternating RUNS times; prints a Markdown
table of the medians and each side's price, with the machine and its load.

usage: bench/cpu_step/checkpoint.py --bench BUILD/bench/cpu_step/staticnet_bench_cpu_step
                                    [--python PYTHON_WITH_TORCH] [--threads 2] [--runs 5]
Not a test: run it by hand on a machine as quiet as you can get (see bench/RESULTS.md).
"""
import argparse
import os
import pathlib
import statistics

from run import cpu_name, ms

HERE = pathlib.Path(__file__).resolve().parent


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bench", required=True, help="staticnet_bench_cpu_step")
    p.add_argument("--python", default="python3", help="a Python with torch")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--steps", type=int, default=20, help="steps per timed repeat")
    args = p.parse_args()
    common = ["--threads", str(args.threads), "--steps", str(args.steps), "--repeats", "3"]
    torch_step = [args.python, str(HERE / "torch_step.py")]
    load_before = os.getloadavg()[0]
    rows = []
    for model in ["simple_cnn", "mlp50"]:
        times = {k: [] for k in ("ours", "ours_ck", "torch", "torch_ck")}
        for _ in range(args.runs):
            times["ours"].append(ms([args.bench, model] + common))
            times["ours_ck"].append(ms([args.bench, model + "_checkpoint_sqrt"] + common))
            times["torch"].append(ms(torch_step + [model] + common))
            times["torch_ck"].append(ms(torch_step + [model, "--checkpoint"] + common))
        rows.append((model, {k: statistics.median(v) for k, v in times.items()}))
    load_after = os.getloadavg()[0]
    print(f"CPU: {cpu_name()}, {os.cpu_count()} cores; threads {args.threads}; median of "
          f"{args.runs} alternating runs (each the median of 3 x {args.steps} steps); load "
          f"average {load_before:.2f} before, {load_after:.2f} after\n")
    print("| model | staticnet ms/step | under Sqrt | price | PyTorch eager ms/step | "
          "under checkpoint | price |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for model, t in rows:
        print(f"| {model} | {t['ours']:.2f} | {t['ours_ck']:.2f} | "
              f"{100 * (t['ours_ck'] / t['ours'] - 1):+.1f} % | {t['torch']:.2f} | "
              f"{t['torch_ck']:.2f} | {100 * (t['torch_ck'] / t['torch'] - 1):+.1f} % |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Real data, side by side: samples/digits_cnn.hpp trained on scikit-learn's digits by the
generated CPU trainer and, with the same model, data, batch, optimizer and epochs, by PyTorch
(torch_digits.py). Prints a Markdown table of test accuracy and loss at some epochs, and the
wall time of each whole run.

usage: bench/digits/run.py --trainer BUILD/samples/digits_cnn_trainer_cpu
                           [--python PYTHON_WITH_TORCH] [--epochs 20] [--threads 2]
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
DATA = HERE.parents[1] / "samples" / "digits"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--trainer", required=True)
    p.add_argument("--python", default=sys.executable)
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        metrics = pathlib.Path(tmp) / "metrics.jsonl"
        start = time.perf_counter()
        subprocess.run([args.trainer, "--data", DATA / "train_images.npy", "--labels",
                        DATA / "train_labels.npy", "--eval", DATA / "test_images.npy",
                        "--eval-labels", DATA / "test_labels.npy", "--scale", "0.0625",
                        "--epochs", str(args.epochs), "--threads", str(args.threads),
                        "--progress", "none", "--metrics", metrics], check=True,
                       capture_output=True)
        ours_seconds = time.perf_counter() - start
        ours = [json.loads(line) for line in metrics.read_text().splitlines()]
    start = time.perf_counter()
    torch_out = subprocess.run([args.python, str(HERE / "torch_digits.py"), "--epochs",
                                str(args.epochs), "--threads", str(args.threads)], check=True,
                               capture_output=True, text=True).stdout
    torch_seconds = time.perf_counter() - start
    theirs = [json.loads(line) for line in torch_out.splitlines()]
    print(f"{os.cpu_count()} cores, {args.threads} threads; whole runs: staticnet "
          f"{ours_seconds:.2f} s, PyTorch {torch_seconds:.2f} s (including Python's start-up)\n")
    print("| epoch | staticnet test accuracy | PyTorch test accuracy | staticnet test loss |"
          " PyTorch test loss |")
    print("|---|---|---|---|---|")
    for e in sorted({1, 5, 10, args.epochs // 2, args.epochs}):
        a, b = ours[e - 1], theirs[e - 1]
        print(f"| {e} | {100 * a['eval_accuracy']:.1f}% | {100 * b['eval_accuracy']:.1f}% | "
              f"{a['eval_loss']:.4f} | {b['eval_loss']:.4f} |")


if __name__ == "__main__":
    main()

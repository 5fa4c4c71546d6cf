#!/usr/bin/env python3
"""Writes the data the loader benchmark reads: N CIFAR-shaped samples (3x32x32 u8, 10 classes)
twice, as CIFAR-10 binary batches (data_batch_1.bin .. data_batch_5.bin) and as an .npy pair
(inputs.npy u8 (N, 3, 32, 32), labels.npy i64 (N,)). 50,000 samples are ~150 MB per format.

usage: make_data.py OUT_DIR [--samples 50000] [--seed 0]
"""
import argparse
import pathlib

import numpy as np


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--samples", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    images = rng.integers(0, 256, size=(args.samples, 3, 32, 32), dtype=np.uint8)
    labels = rng.integers(0, 10, size=args.samples, dtype=np.int64)

    (args.out / "npy").mkdir(parents=True, exist_ok=True)
    np.save(args.out / "npy" / "inputs.npy", images)
    np.save(args.out / "npy" / "labels.npy", labels)

    cifar = args.out / "cifar10"
    cifar.mkdir(parents=True, exist_ok=True)
    records = np.empty((args.samples, 1 + 3072), dtype=np.uint8)
    records[:, 0] = labels
    records[:, 1:] = images.reshape(args.samples, 3072)
    for k, part in enumerate(np.array_split(records, 5), start=1):
        part.tofile(cifar / f"data_batch_{k}.bin")
    print(f"wrote {args.samples} samples to {args.out}/npy and {args.out}/cifar10")


if __name__ == "__main__":
    main()

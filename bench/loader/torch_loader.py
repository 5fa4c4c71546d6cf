#!/usr/bin/env python3
"""The PyTorch side of the loader benchmark: torch.utils.data.DataLoader over the SAME files
staticnet_bench_loader reads, doing the same work per sample: u8 -> f32, /255, per-channel
normalisation with CIFAR-10's statistics, optionally torchvision-style RandomCrop(32, padding=4)
and RandomHorizontalFlip (written in torch, so torchvision is not needed). shuffle=True,
drop_last=True, persistent_workers=True, pin_memory=False, default prefetch_factor (2).

usage: torch_loader.py --format npy|cifar10 [--workers N] [--augment] [--batch 128]
                       [--warmup 20] [--batches 300] FILE...
prints the same line as staticnet_bench_loader.
"""
import argparse
import random
import time

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

MEAN = torch.tensor([0.4914, 0.4822, 0.4465]).view(3, 1, 1)
STD = torch.tensor([0.2470, 0.2435, 0.2616]).view(3, 1, 1)


def transform(image_u8, augment):
    """image_u8: a (3, 32, 32) uint8 tensor -> a normalised float32 tensor."""
    if augment:
        padded = torch.nn.functional.pad(image_u8, (4, 4, 4, 4))  # zeros, like RandomCrop
        top = random.randint(0, 8)
        left = random.randint(0, 8)
        image_u8 = padded[:, top:top + 32, left:left + 32]
        if random.random() < 0.5:
            image_u8 = image_u8.flip(-1)
    return (image_u8.float().div_(255.0) - MEAN).div_(STD)


class NpyImages(Dataset):
    """inputs.npy (N, 3, 32, 32) u8 and labels.npy (N,) through numpy memory maps."""

    def __init__(self, inputs, labels, augment):
        self.inputs_path, self.labels_path, self.augment = inputs, labels, augment
        self.inputs = self.labels = None
        self.size = np.load(labels, mmap_mode="r").shape[0]

    def __len__(self):
        return self.size

    def __getitem__(self, i):
        if self.inputs is None:  # opened in each worker
            self.inputs = np.load(self.inputs_path, mmap_mode="r")
            self.labels = np.load(self.labels_path, mmap_mode="r")
        image = torch.from_numpy(np.array(self.inputs[i]))
        return transform(image, self.augment), int(self.labels[i])


class CifarBinary(Dataset):
    """CIFAR-10 binary batches (1 label byte + 3072 pixel bytes per record) via numpy memmaps."""

    def __init__(self, paths, augment):
        self.paths, self.augment = paths, augment
        self.parts = None
        self.counts = [np.memmap(p, dtype=np.uint8, mode="r").size // 3073 for p in paths]
        self.starts = np.cumsum([0] + self.counts)

    def __len__(self):
        return int(self.starts[-1])

    def __getitem__(self, i):
        if self.parts is None:
            self.parts = [np.memmap(p, dtype=np.uint8, mode="r").reshape(-1, 3073)
                          for p in self.paths]
        part = int(np.searchsorted(self.starts, i, side="right")) - 1
        record = self.parts[part][i - self.starts[part]]
        image = torch.from_numpy(np.array(record[1:])).view(3, 32, 32)
        return transform(image, self.augment), int(record[0])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--format", choices=["npy", "cifar10"], required=True)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--augment", action="store_true")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--batches", type=int, default=300)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()

    if args.format == "npy":
        dataset = NpyImages(args.files[0], args.files[1], args.augment)
    else:
        dataset = CifarBinary(args.files, args.augment)
    loader = DataLoader(dataset, batch_size=args.batch, shuffle=True, drop_last=True,
                        num_workers=args.workers, persistent_workers=args.workers > 0,
                        pin_memory=False)

    def batches():
        while True:  # epochs back to back; persistent workers survive between them
            yield from loader

    stream = batches()
    for _ in range(args.warmup):
        next(stream)
    start = time.perf_counter()
    sink = 0.0
    for _ in range(args.batches):
        inputs, labels = next(stream)
        sink += float(inputs[0, 0, 0, 0]) + float(labels[0])
    seconds = time.perf_counter() - start
    print(f"format={args.format} workers={args.workers} augment={int(args.augment)} "
          f"batch={args.batch} batches={args.batches} seconds={seconds:.4f} "
          f"batches_per_s={args.batches / seconds:.2f}")


if __name__ == "__main__":
    main()

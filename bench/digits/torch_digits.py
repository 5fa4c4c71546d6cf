#!/usr/bin/env python3
"""samples/digits_cnn.hpp's model in PyTorch, trained as the generated trainer trains it: the
same data (samples/digits/, pixels scaled by 1/16), batch 32 with the last partial batch dropped
and a fresh shuffle every epoch, Adam at lr 1e-3, PyTorch's default initialisation, 20 epochs.
Prints one JSON object per epoch (train loss and accuracy, test loss and accuracy), like the
trainer's --metrics.

usage: torch_digits.py [--epochs 20] [--seed 0] [--threads 2]
"""
import argparse
import json
import pathlib

import numpy as np
import torch

DATA = pathlib.Path(__file__).resolve().parents[2] / "samples" / "digits"


def load(split):
    x = np.load(DATA / f"{split}_images.npy").astype(np.float32) / 16.0
    y = np.load(DATA / f"{split}_labels.npy")
    return torch.from_numpy(x), torch.from_numpy(y)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    nn = torch.nn
    model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(256, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    x, y = load("train")
    tx, ty = load("test")
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=32,
                                         shuffle=True, drop_last=True)
    for epoch in range(1, args.epochs + 1):
        model.train()
        total, correct, seen = 0.0, 0, 0
        for bx, by in loader:
            optimizer.zero_grad()
            out = model(bx)
            loss = loss_fn(out, by)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(by)
            correct += (out.argmax(1) == by).sum().item()
            seen += len(by)
        with torch.no_grad():
            out = model(tx)
            test_loss = loss_fn(out, ty).item()
            test_accuracy = (out.argmax(1) == ty).float().mean().item()
        print(json.dumps({"epoch": epoch, "train_loss": total / seen, "train_accuracy": correct / seen,
                          "eval_loss": test_loss, "eval_accuracy": test_accuracy}))


if __name__ == "__main__":
    main()

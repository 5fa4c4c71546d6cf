#!/usr/bin/env python3
"""Activation memory of one training step of the MLPerf Tiny models: the plan's against PyTorch's.

PyTorch side: the tensors autograd saves for backward during forward and the loss
(torch.autograd.graph.saved_tensors_hooks), counted once per storage, leaving out the parameters,
the BatchNorm buffers and the batch (inputs, labels or targets), which are model state or data,
not activations. What the loss saves (log-softmax, or the output under MSE) counts: it is held
from forward to backward like any activation.
staticnet side: staticnet_bench_planned_bytes, the same definition on the plan (buffers that
forward writes and backward reads), and the plan's whole activation region.

usage: bench/cpu_step/saved_bytes.py --planned BUILD/bench/cpu_step/staticnet_bench_planned_bytes
                                     [--python PYTHON_WITH_TORCH]
Runs itself under --python for the PyTorch half when the current interpreter has no torch.
"""
import argparse
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent


def torch_saved_bytes():
    import torch

    import mlperf_models

    torch.manual_seed(0)
    result = {}
    for name in mlperf_models.MODELS:
        model = mlperf_models.build(name).train()
        x, y, loss_fn = mlperf_models.batch(name)
        state = {t.untyped_storage().data_ptr() for t in list(model.parameters()) +
                 list(model.buffers())}
        state |= {x.untyped_storage().data_ptr(), y.untyped_storage().data_ptr()}
        storages = {}

        def pack(t):
            s = t.untyped_storage()
            if s.data_ptr() not in state:
                storages[s.data_ptr()] = s.nbytes()
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            loss = loss_fn(model(x), y)
        loss.backward()
        result[name] = sum(storages.values())
    return result


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--planned", help="staticnet_bench_planned_bytes")
    p.add_argument("--python", default=sys.executable, help="a Python with torch")
    p.add_argument("--torch-only", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.torch_only:
        for name, n in torch_saved_bytes().items():
            print(f"model={name} saved={n}")
        return
    out = subprocess.run([args.python, __file__, "--torch-only"], check=True, capture_output=True,
                         text=True, cwd=HERE).stdout
    theirs = {m: int(n) for m, n in re.findall(r"model=(\S+) saved=(\d+)", out)}
    out = subprocess.run([args.planned], check=True, capture_output=True, text=True).stdout
    ours = {m: (int(b), int(s), int(a)) for m, b, s, a in
            re.findall(r"model=(\S+) batch=(\d+) saved=(\d+) activations=(\d+)", out)}
    print("| model | batch | staticnet saved for backward (B) | PyTorch saved for backward (B) "
          "| staticnet / PyTorch | staticnet activation region (B) |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, (batch, saved, region) in ours.items():
        print(f"| {name} | {batch} | {saved:,} | {theirs[name]:,} | {saved / theirs[name]:.2f} "
              f"| {region:,} |")


if __name__ == "__main__":
    main()

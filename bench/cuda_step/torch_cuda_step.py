#!/usr/bin/env python3
"""The PyTorch side of scripts/gpu-checks.sh's bench part: the same model, batch and optimizer as
staticnet_bench_cuda_step, on the GPU, FP32 (TF32 off: staticnet's setups say FP32), timed the same
way: warm-up, then repeats of N steps, median milliseconds per step. A step is the batch's copy
from pinned host memory (staticnet's step copies its batch in too), zero_grad, forward, loss,
backward, optimizer.step() and loss.item() (a training loop reads its loss; the staticnet side
reads every sample's). Also prints torch.cuda.max_memory_allocated over the steps.

usage: torch_cuda_step.py MODEL [--steps N] [--repeats N] [--compile [MODE]] [--profile]
                          [--accumulate K] [--autocast bf16|f16]
MODEL: simple_cnn, lenet5, or an MLPerf Tiny model (resnet8, ds_cnn, mobilenet_v1, fc_autoencoder:
bench/cpu_step/mlperf_models.py, Adam, the reference batch, in training mode as the trainers run)
(--compile: torch.compile's default mode; --compile reduce-overhead: its CUDA graphs, as staticnet's
step is one; --profile: after the timing, the kernels of 20 steps from torch.profiler, by GPU time;
--accumulate K: PyTorch's gradient accumulation loop, K micro-batches of batch/K samples per step,
each micro-batch's loss divided by K, as staticnet's sn::Accumulate<K> computes; --autocast: the
forward under torch.autocast in bfloat16, or float16 with GradScaler's defaults, the loss in float32,
as staticnet's Mixed<bf16> and Mixed<f16> compute)
"""
import argparse
import pathlib
import statistics
import sys
import time

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "cpu_step"))
import mlperf_models  # noqa: E402  the same models as the CPU benchmark
from torch_step import model_and_batch  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model", choices=["simple_cnn", "lenet5"] + list(mlperf_models.MODELS))
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--compile", nargs="?", const="default", default=None,
                   choices=["default", "reduce-overhead", "max-autotune"])
    p.add_argument("--profile", action="store_true")
    p.add_argument("--accumulate", type=int, default=1)
    p.add_argument("--autocast", choices=["bf16", "f16"], default=None)
    args = p.parse_args()
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(0)
    if args.model in mlperf_models.MODELS:
        model = mlperf_models.build(args.model).train().cuda()
        x, y, loss_fn = mlperf_models.batch(args.model)
    else:
        model, shape, _ = model_and_batch(args.model)
        model = model.cuda()
        x = torch.randn(shape)
        y = torch.randint(0, 10, (shape[0],))
        loss_fn = torch.nn.CrossEntropyLoss()
    x_host, y_host = x.pin_memory(), y.pin_memory()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    compiled = torch.compile(model, mode=args.compile) if args.compile else model
    dtype = {"bf16": torch.bfloat16, "f16": torch.float16}.get(args.autocast)
    scaler = torch.amp.GradScaler("cuda") if dtype == torch.float16 else None

    def forward(x):
        if dtype is None:
            return compiled(x)
        with torch.autocast(device_type="cuda", dtype=dtype):
            return compiled(x).float()

    def backward(loss):
        (loss if scaler is None else scaler.scale(loss)).backward()

    def optimizer_step():
        if scaler is None:
            optimizer.step()
        else:
            scaler.step(optimizer)
            scaler.update()

    def step():
        x = x_host.to("cuda", non_blocking=True)
        y = y_host.to("cuda", non_blocking=True)
        optimizer.zero_grad()
        if args.accumulate == 1:
            loss = loss_fn(forward(x), y)
            backward(loss)
        else:
            loss = 0.0
            for xs, ys in zip(x.chunk(args.accumulate), y.chunk(args.accumulate)):
                part = loss_fn(forward(xs), ys) / args.accumulate
                backward(part)
                loss = loss + part.detach()
        optimizer_step()
        return loss.item()

    for _ in range(20):
        step()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    times = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        for _ in range(args.steps):
            step()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1000.0 / args.steps)
    print(f"model={args.model} torch={torch.__version__} compile={args.compile or False} "
          f"accumulate={args.accumulate} autocast={args.autocast or False} "
          f"ms_per_step={statistics.median(times):.4f} min={min(times):.4f} max={max(times):.4f} "
          f"max_memory_allocated={torch.cuda.max_memory_allocated()}")
    if args.profile:
        activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        with torch.profiler.profile(activities=activities) as prof:
            for _ in range(20):
                step()
            torch.cuda.synchronize()
        print(prof.key_averages().table(sort_by="self_device_time_total", row_limit=30,
                                        max_name_column_width=90))


if __name__ == "__main__":
    main()

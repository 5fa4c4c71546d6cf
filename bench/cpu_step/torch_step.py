#!/usr/bin/env python3
"""The PyTorch side of bench/cpu_step/run.py: the same sample model, batch, optimizer and thread
count as staticnet_bench_cpu_step, timed the same way (warm-up, then repeats of N steps, median
milliseconds per step). A step is zero_grad, forward, loss, backward, optimizer.step().

usage: torch_step.py simple_cnn|lenet5|lenet_relu|mlp50|resnet8|ds_cnn|mobilenet_v1|fc_autoencoder
                     [--threads N] [--steps N] [--repeats N] [--compile] [--checkpoint]

The MLPerf Tiny models (mlperf_models.py) train with Adam at their reference batches, in training
mode (batch statistics, Dropout on), as the generated trainers do.
"""
import argparse
import statistics
import time

import torch

import checkpointed
import mlperf_models


def model_and_batch(name):
    nn = torch.nn
    if name == "simple_cnn":  # samples/simple_cnn.hpp: batch 128, Adam
        model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                              nn.Flatten(), nn.Linear(4096, 10))
        return model, (128, 3, 32, 32), torch.optim.Adam(model.parameters(), lr=1e-3)
    if name == "lenet_relu":  # bench/cpu_step/lenet_relu.hpp: batch 64, Adam
        model = nn.Sequential(
            nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(),
            nn.MaxPool2d(2), nn.Flatten(), nn.Linear(256, 120), nn.ReLU(), nn.Linear(120, 84),
            nn.ReLU(), nn.Linear(84, 10))
        return model, (64, 1, 28, 28), torch.optim.Adam(model.parameters(), lr=1e-3)
    model = nn.Sequential(  # samples/lenet5.hpp with Adam (bench/cpu_step/lenet5_adam.hpp): batch 64
        nn.Conv2d(1, 6, 5, padding=2), nn.Tanh(), nn.AvgPool2d(2), nn.Conv2d(6, 16, 5), nn.Tanh(),
        nn.AvgPool2d(2), nn.Flatten(), nn.Linear(400, 120), nn.Tanh(), nn.Linear(120, 84),
        nn.Tanh(), nn.Linear(84, 10))
    return model, (64, 1, 28, 28), torch.optim.Adam(model.parameters(), lr=1e-3)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model", choices=["simple_cnn", "lenet5", "lenet_relu", "mlp50"] +
                   list(mlperf_models.MODELS))
    p.add_argument("--checkpoint", action="store_true",
                   help="simple_cnn, mlp50: under torch.utils.checkpoint, as Checkpoint<Sqrt>")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--compile", action="store_true", help="time torch.compile'd forward")
    args = p.parse_args()
    if args.checkpoint and (args.compile or args.model not in checkpointed.MODELS):
        p.error(f"--checkpoint times {' or '.join(checkpointed.MODELS)} in eager mode only")
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    # Random normal inputs and random labels, as bench_step.cpp uses (the same distribution, not
    # the same numbers: a step's time does not depend on which random numbers they are).
    if args.model in mlperf_models.MODELS:
        model = mlperf_models.build(args.model).train()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        x, y, loss_fn = mlperf_models.batch(args.model)
    elif args.model == "mlp50":  # checkpoint_setups.hpp: batch 256, MSE, Adam
        model = checkpointed.mlp50()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        x = torch.randn(256, 256)
        y = torch.randn(256, 256)
        loss_fn = torch.nn.MSELoss()
    else:
        model, shape, optimizer = model_and_batch(args.model)
        x = torch.randn(shape)
        y = torch.randint(0, 10, (shape[0],))
        loss_fn = torch.nn.CrossEntropyLoss()
    forward = torch.compile(model) if args.compile else model
    if args.checkpoint:
        forward = checkpointed.checkpointed_forward(args.model, model)

    def step():
        optimizer.zero_grad()
        loss = loss_fn(forward(x), y)
        loss.backward()
        optimizer.step()

    for _ in range(10):
        step()
    times = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        for _ in range(args.steps):
            step()
        times.append((time.perf_counter() - start) * 1000.0 / args.steps)
    print(f"model={args.model} threads={args.threads} torch={torch.__version__} "
          f"compile={args.compile} checkpoint={args.checkpoint} ms_per_step={statistics.median(times):.3f} "
          f"min={min(times):.3f} max={max(times):.3f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""PyTorch fixtures for the generated CPU step (tests/codegen/test_pytorch_fixtures.cpp).

For each sample model (samples/*.hpp), built here as the nn.Sequential it flattens to, with
PyTorch's default initialisation from torch.manual_seed(0), and each optimizer, this runs three
optimizer steps on one batch and stores, in fixtures/<model>.safetensors:

  init.<param>          the initial weights (PyTorch's state-dict names, as our checkpoints)
  grad1.<param>         the gradients of the first step (the same for every optimizer)
  <optimizer>.loss      the batch's mean loss before each of the three steps, shape (3,)
  <optimizer>.final.<param>  the weights after the third step

and, in the metadata, each optimizer's settings ("<optimizer>.lr", ...), the fixture version and
PyTorch's version. The batch is not stored: both sides compute it from integer formulas that
numpy and C++ evaluate to the same bits (see batch() below and the C++ test).

Run with a Python that has torch, numpy and safetensors (CI uses the committed files):
  python3 tests/reference/make_fixtures.py
"""
import pathlib

import numpy as np
import torch
from safetensors.torch import save_file

FIXTURE_VERSION = "1"
HERE = pathlib.Path(__file__).resolve().parent


def models():
    nn = torch.nn
    return {
        # samples/simple_cnn.hpp, batch 128, (3, 32, 32), CrossEntropy
        "simple_cnn": (lambda: nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
            nn.Linear(4096, 10)), 128, (3, 32, 32), "cross_entropy", 10),
        # samples/lenet5.hpp, batch 64, (1, 28, 28), CrossEntropy
        "lenet5": (lambda: nn.Sequential(
            nn.Conv2d(1, 6, 5, padding=2), nn.Tanh(), nn.AvgPool2d(2),
            nn.Conv2d(6, 16, 5), nn.Tanh(), nn.AvgPool2d(2), nn.Flatten(),
            nn.Linear(400, 120), nn.Tanh(), nn.Linear(120, 84), nn.Tanh(),
            nn.Linear(84, 10)), 64, (1, 28, 28), "cross_entropy", 10),
        # samples/mlp.hpp, batch 64, (100,), CrossEntropy
        "mlp": (lambda: nn.Sequential(
            nn.Linear(100, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(),
            nn.Linear(64, 10)), 64, (100,), "cross_entropy", 10),
        # samples/linear_regression.hpp, batch 5, (10,), MSE with 2 targets
        "linear_regression": (lambda: nn.Sequential(nn.Linear(10, 2)), 5, (10,), "mse", 2),
    }


# Each optimizer's settings. Weight decay is exercised through the gradient (L2) by SGD with
# momentum and decoupled by AdamW. Adam runs without it: an L2 term that nearly cancels a small
# gradient leaves a component below Adam's eps, where f32 rounding on either side decides the
# update's sign (seen with 1e-4 on SimpleCNN: one weight 5e-3 of the tensor's scale apart).
# Adam's L2 arithmetic is checked by hand in tests/codegen/test_kernels.cpp instead.
OPTIMIZERS = {
    "sgd": dict(lr=0.05, weight_decay=0.0),
    "sgd_momentum": dict(lr=0.05, momentum=0.9, weight_decay=1e-3),
    "adam": dict(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0),
    "adamw": dict(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01),
}


def make_optimizer(name, parameters):
    s = OPTIMIZERS[name]
    if name == "sgd":
        return torch.optim.SGD(parameters, lr=s["lr"], weight_decay=s["weight_decay"])
    if name == "sgd_momentum":
        return torch.optim.SGD(parameters, lr=s["lr"], momentum=s["momentum"],
                               weight_decay=s["weight_decay"])
    if name == "adam":
        return torch.optim.Adam(parameters, lr=s["lr"], betas=s["betas"], eps=s["eps"],
                                weight_decay=s["weight_decay"])
    return torch.optim.AdamW(parameters, lr=s["lr"], betas=s["betas"], eps=s["eps"],
                             weight_decay=s["weight_decay"])


def batch(batch_size, sample_shape, loss, outputs, offset=0):
    """The batch, from integer formulas C++ reproduces exactly (tests/codegen/fixture_batch.hpp):
    input element i = float32((((i + offset) * 2654435761) mod 2001 - 1000) / 1000), in [-1, 1];
    label of sample n = (n * 7 + 3) mod classes;
    target element i = float32(((i * 40503) mod 1001 - 500) / 250), in [-2, 2].
    The offset (0 here; make_mlperf_fixtures.py chooses one per model) gives other batches."""
    count = batch_size * int(np.prod(sample_shape))
    i = np.arange(count, dtype=np.uint64) + np.uint64(offset)
    x = ((i * np.uint64(2654435761)) % np.uint64(2001)).astype(np.float64)
    x = ((x - 1000.0) / 1000.0).astype(np.float32).reshape((batch_size,) + tuple(sample_shape))
    if loss == "cross_entropy":
        n = np.arange(batch_size, dtype=np.int64)
        y = torch.from_numpy((n * 7 + 3) % outputs)
    else:
        j = np.arange(batch_size * outputs, dtype=np.uint64)
        t = ((j * np.uint64(40503)) % np.uint64(1001)).astype(np.float64)
        y = torch.from_numpy(((t - 500.0) / 250.0).astype(np.float32).reshape(batch_size, outputs))
    return torch.from_numpy(x), y


def record_run(tensors, metadata, opt_name, model, losses):
    """One optimizer's run into the fixture: its losses and final weights as tensors, its
    settings as metadata (make_mixed_fixtures.py records its runs the same way)."""
    tensors[f"{opt_name}.loss"] = torch.tensor(losses, dtype=torch.float64)
    for k, v in model.state_dict().items():
        tensors[f"{opt_name}.final.{k}"] = v.detach().clone().contiguous()
    for key, value in OPTIMIZERS[opt_name].items():
        if key == "betas":
            metadata[f"{opt_name}.beta1"], metadata[f"{opt_name}.beta2"] = map(repr, value)
        else:
            metadata[f"{opt_name}.{key}"] = repr(value)


def main():
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    out = HERE / "fixtures"
    out.mkdir(exist_ok=True)
    for name, (build, batch_size, sample_shape, loss_name, outputs) in models().items():
        torch.manual_seed(0)
        initial = build()
        init_state = {k: v.detach().clone() for k, v in initial.state_dict().items()}
        x, y = batch(batch_size, sample_shape, loss_name, outputs)
        loss_fn = torch.nn.CrossEntropyLoss() if loss_name == "cross_entropy" else torch.nn.MSELoss()
        tensors = {f"init.{k}": v.contiguous() for k, v in init_state.items()}
        metadata = {"fixture_version": FIXTURE_VERSION, "torch_version": torch.__version__}
        for opt_name in OPTIMIZERS:
            model = build()
            model.load_state_dict(init_state)
            optimizer = make_optimizer(opt_name, model.parameters())
            losses = []
            for step in range(3):
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                losses.append(loss.item())
                if step == 0 and opt_name == "sgd":
                    for k, p in model.named_parameters():
                        tensors[f"grad1.{k}"] = p.grad.detach().clone().contiguous()
                optimizer.step()
            record_run(tensors, metadata, opt_name, model, losses)
            print(f"{name} {opt_name}: losses {losses}")
        save_file(tensors, str(out / f"{name}.safetensors"), metadata=metadata)


if __name__ == "__main__":
    main()

"""The PyTorch side of staticnet's Checkpoint<Sqrt> (bench/cpu_step/checkpoint_setups.hpp), shared
by torch_step.py (step time) and torch_peak.py (peak memory): the 50-layer MLP, and a model's
forward through torch.utils.checkpoint (use_reentrant=False) over the segments staticnet cuts."""
import torch
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

# The models with a checkpointed form here.
MODELS = ("simple_cnn", "mlp50")


def mlp50():
    """25 pairs of Linear(256) and ReLU (checkpoint_setups.hpp's Mlp50)."""
    layers = []
    for _ in range(25):
        layers += [torch.nn.Linear(256, 256), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers)


def checkpointed_forward(name, model):
    """model (a Sequential) run over Checkpoint<Sqrt>'s segments: SimpleCNN's Conv2d, ReLU and
    MaxPool2d as one segment (⌈√4⌉ = 2 units: {Conv2d, ReLU}, {MaxPool2d}) and the rest as it is;
    the MLP's 50 layers as five segments of ten, the last kept (checkpoint_sequential keeps it, as
    staticnet does)."""
    if name == "mlp50":
        return lambda x: checkpoint_sequential(model, 5, x, use_reentrant=False)
    if name == "simple_cnn":
        head, tail = model[:3], model[3:]
        return lambda x: tail(checkpoint(head, x, use_reentrant=False))
    raise ValueError(f"no checkpointed form of {name}: only {', '.join(MODELS)}")

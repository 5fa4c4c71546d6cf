#!/usr/bin/env python3
"""A checkpoint of tests/codegen/trainer/cli_net.hpp's model, read with Python's safetensors:
the parameters under PyTorch's state-dict names for the model as an nn.Sequential
(Conv2d(1, 2, 3, padding=1), ReLU, Flatten, Linear(32, 3)), the momentum buffers under the
optimizer's names, and the training state in the metadata. With PyTorch installed, the
parameters also load into that nn.Sequential with nothing missing."""
import sys

from safetensors import safe_open

EXPECTED = {"0.weight": (2, 1, 3, 3), "0.bias": (2,), "3.weight": (3, 32), "3.bias": (3,)}


def main(path):
    with safe_open(path, framework="numpy") as f:
        names = set(f.keys())
        for name, shape in EXPECTED.items():
            assert f.get_tensor(name).shape == shape, (name, f.get_tensor(name).shape)
            state = f"optimizer.sgd_momentum.momentum_buffer.{name}"
            assert f.get_tensor(state).shape == shape, state
        assert names == set(EXPECTED) | {f"optimizer.sgd_momentum.momentum_buffer.{n}"
                                         for n in EXPECTED}, names
        meta = f.metadata()
        assert meta["staticnet.step"] == "3" and meta["model"] == "cli_net", meta
        tensors = {n: f.get_tensor(n) for n in EXPECTED}
    try:
        import torch
    except ImportError:
        print("checkpoint read with safetensors (PyTorch not installed here)")
        return
    model = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3, padding=1), torch.nn.ReLU(),
                                torch.nn.Flatten(), torch.nn.Linear(32, 3))
    result = model.load_state_dict({n: torch.from_numpy(t) for n, t in tensors.items()})
    assert not result.missing_keys and not result.unexpected_keys, result
    print("checkpoint read with safetensors and loaded into PyTorch", torch.__version__)


if __name__ == "__main__":
    main(sys.argv[1])

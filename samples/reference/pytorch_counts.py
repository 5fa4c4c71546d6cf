"""Independent cross-check of the samples' shapes and parameter counts with PyTorch.

The models are written as the seeds write them (nn.Module subclasses with their own forward),
not translated from the C++ headers, then run forward on zero batches of each sample's batch size
on the CPU. Prints, per model: every layer's output shape, each parameterised layer's count, the
total, and the output shape. tests/core/test_samples.cpp must agree with what this prints.

    python3 -m venv venv && venv/bin/pip install torch && venv/bin/python pytorch_counts.py
"""
import torch
import torch.nn as nn


class SimpleCNN(nn.Module):  # seed 001, example 1
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, kernel_size=3, padding=1)
        self.relu1 = nn.ReLU()
        self.pool1 = nn.MaxPool2d(2)
        self.fc = nn.Linear(16 * 16 * 16, 10)

    def forward(self, x):
        x = self.pool1(self.relu1(self.conv1(x)))
        x = x.view(x.size(0), -1)
        return self.fc(x)


class DeepCNN(nn.Module):  # seed 001, example 2; fc_in=128*4*4 is the seed's, 128*8*8 correct
    def __init__(self, fc_in=128 * 8 * 8):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, kernel_size=3, padding=1)
        self.relu1 = nn.ReLU()
        self.conv2 = nn.Conv2d(32, 64, kernel_size=3, padding=1)
        self.relu2 = nn.ReLU()
        self.conv3 = nn.Conv2d(64, 128, kernel_size=3, padding=1)
        self.relu3 = nn.ReLU()
        self.pool1 = nn.MaxPool2d(2)
        self.fc = nn.Linear(fc_in, 10)

    def forward(self, x):
        x = self.pool1(self.relu1(self.conv1(x)))
        x = self.pool1(self.relu2(self.conv2(x)))
        x = self.pool1(self.relu3(self.conv3(x)))
        x = x.view(x.size(0), -1)
        return self.fc(x)


class SmallNetwork(nn.Module):  # seed 004, example 1
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, kernel_size=3)
        self.fc1 = nn.Linear(16 * 30 * 30, 128)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = x.view(-1, 16 * 30 * 30)
        return self.fc1(x)


class LargerConvNetwork(nn.Module):  # seed 004, example 2
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, kernel_size=3)
        self.fc1 = nn.Linear(64 * 30 * 30, 128)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = x.view(-1, 64 * 30 * 30)
        return self.fc1(x)


def mlp():  # seed 003's data (100 features, 10 classes); the hidden sizes are samples/mlp.hpp's
    return nn.Sequential(nn.Linear(100, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(),
                         nn.Linear(64, 10))


def lenet5():  # classic LeNet-5: tanh, average pooling, 28x28 input padded by 2
    return nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Tanh(), nn.AvgPool2d(2),
        nn.Conv2d(6, 16, kernel_size=5), nn.Tanh(), nn.AvgPool2d(2),
        nn.Flatten(),
        nn.Linear(16 * 5 * 5, 120), nn.Tanh(),
        nn.Linear(120, 84), nn.Tanh(),
        nn.Linear(84, 10))


def report(name, model, input_shape):
    shapes = []
    hooks = [m.register_forward_hook(
        lambda m, i, o, n=n: shapes.append((n, type(m).__name__, tuple(o.shape))))
        for n, m in model.named_modules() if not list(m.children())]
    with torch.no_grad():
        out = model(torch.zeros(*input_shape))
    for h in hooks:
        h.remove()
    print(f"{name}: input {tuple(input_shape)}")
    for n, kind, shape in shapes:  # forward order (a module reused, like DeepCNN's pool1, repeats)
        params = sum(p.numel() for p in dict(model.named_modules())[n].parameters())
        print(f"  {n or '(root)':8} {kind:10} -> {str(shape):22} params {params}")
    print(f"  parameters {sum(p.numel() for p in model.parameters())}, output {tuple(out.shape)}")


if __name__ == "__main__":
    torch.manual_seed(0)
    print(f"torch {torch.__version__}")
    report("SimpleCNN", SimpleCNN(), (128, 3, 32, 32))
    report("DeepCNN (corrected fc: 128*8*8 -> 10)", DeepCNN(), (64, 3, 64, 64))
    try:
        DeepCNN(fc_in=128 * 4 * 4)(torch.zeros(64, 3, 64, 64))
        print("DeepCNN as the seed writes it: runs (unexpected)")
    except RuntimeError as e:
        print(f"DeepCNN as the seed writes it (fc 128*4*4 -> 10): RuntimeError: {e}")
    report("LinearRegression (seed 002)", nn.Linear(10, 2), (5, 10))
    report("MLP", mlp(), (64, 100))
    report("SmallNetwork", SmallNetwork(), (4, 3, 32, 32))
    report("LargerConvNetwork", LargerConvNetwork(), (4, 3, 32, 32))
    report("LeNet5", lenet5(), (64, 1, 28, 28))

# Output (torch 2.15.0 from PyPI, run on the CPU; the DeepCNN pool1 line repeats because the
# seed applies one MaxPool2d module three times; Flatten/view is not a module in the seed classes):
# torch 2.15.0+cu132
# SimpleCNN: input (128, 3, 32, 32)
#   conv1    Conv2d     -> (128, 16, 32, 32)      params 448
#   relu1    ReLU       -> (128, 16, 32, 32)      params 0
#   pool1    MaxPool2d  -> (128, 16, 16, 16)      params 0
#   fc       Linear     -> (128, 10)              params 40970
#   parameters 41418, output (128, 10)
# DeepCNN (corrected fc: 128*8*8 -> 10): input (64, 3, 64, 64)
#   conv1    Conv2d     -> (64, 32, 64, 64)       params 896
#   relu1    ReLU       -> (64, 32, 64, 64)       params 0
#   pool1    MaxPool2d  -> (64, 32, 32, 32)       params 0
#   conv2    Conv2d     -> (64, 64, 32, 32)       params 18496
#   relu2    ReLU       -> (64, 64, 32, 32)       params 0
#   pool1    MaxPool2d  -> (64, 64, 16, 16)       params 0
#   conv3    Conv2d     -> (64, 128, 16, 16)      params 73856
#   relu3    ReLU       -> (64, 128, 16, 16)      params 0
#   pool1    MaxPool2d  -> (64, 128, 8, 8)        params 0
#   fc       Linear     -> (64, 10)               params 81930
#   parameters 175178, output (64, 10)
# DeepCNN as the seed writes it (fc 128*4*4 -> 10): RuntimeError: addmm: mat1 and mat2 shapes cannot be multiplied (64x8192 and 2048x10)
# LinearRegression (seed 002): input (5, 10)
#   (root)   Linear     -> (5, 2)                 params 22
#   parameters 22, output (5, 2)
# MLP: input (64, 100)
#   0        Linear     -> (64, 128)              params 12928
#   1        ReLU       -> (64, 128)              params 0
#   2        Linear     -> (64, 64)               params 8256
#   3        ReLU       -> (64, 64)               params 0
#   4        Linear     -> (64, 10)               params 650
#   parameters 21834, output (64, 10)
# SmallNetwork: input (4, 3, 32, 32)
#   conv1    Conv2d     -> (4, 16, 30, 30)        params 448
#   fc1      Linear     -> (4, 128)               params 1843328
#   parameters 1843776, output (4, 128)
# LargerConvNetwork: input (4, 3, 32, 32)
#   conv1    Conv2d     -> (4, 64, 30, 30)        params 1792
#   fc1      Linear     -> (4, 128)               params 7372928
#   parameters 7374720, output (4, 128)
# LeNet5: input (64, 1, 28, 28)
#   0        Conv2d     -> (64, 6, 28, 28)        params 156
#   1        Tanh       -> (64, 6, 28, 28)        params 0
#   2        AvgPool2d  -> (64, 6, 14, 14)        params 0
#   3        Conv2d     -> (64, 16, 10, 10)       params 2416
#   4        Tanh       -> (64, 16, 10, 10)       params 0
#   5        AvgPool2d  -> (64, 16, 5, 5)         params 0
#   6        Flatten    -> (64, 400)              params 0
#   7        Linear     -> (64, 120)              params 48120
#   8        Tanh       -> (64, 120)              params 0
#   9        Linear     -> (64, 84)               params 10164
#   10       Tanh       -> (64, 84)               params 0
#   11       Linear     -> (64, 10)               params 850
#   parameters 61706, output (64, 10)

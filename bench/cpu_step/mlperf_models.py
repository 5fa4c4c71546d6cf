"""The four MLPerf Tiny models as a PyTorch user writes them, for the side-by-side benchmarks.

Plain nn.Sequential/nn.Module code with PyTorch's own layers: nn.BatchNorm*, nn.Dropout, and
TensorFlow's uneven 'same' padding as an nn.ZeroPad2d before the convolution (the odd row and
column at the bottom and right). tests/reference/make_mlperf_fixtures.py ports the same models
for exact numbers (a hashed Dropout mask, integer initial weights); this file is about speed, so it
uses what PyTorch users use. Keras's BatchNorm defaults (epsilon 1e-3, momentum 0.99, which is
PyTorch's 0.01) as samples/mlperf_tiny/keras_layers.hpp.

MODELS maps a name to (build, input shape of one sample, loss, outputs, reference batch,
trainable count, non-trainable count); the counts are the issue's table and are checked on build.
"""
import torch
from torch import nn


def batch_norm2d(c):
    return nn.BatchNorm2d(c, eps=1e-3, momentum=0.01)


def conv_bn_relu(cin, cout, kernel, stride=1, groups=1, pad=None):
    """Conv2d 'same' (no bias: BatchNorm follows), BatchNorm, ReLU. `pad` is (left, right, top,
    bottom) when 'same' is uneven; otherwise the padding is symmetric, kernel // 2."""
    layers = []
    if pad is not None:
        layers.append(nn.ZeroPad2d(pad))
        padding = 0
    else:
        padding = (kernel[0] // 2, kernel[1] // 2) if isinstance(kernel, tuple) else kernel // 2
    layers += [nn.Conv2d(cin, cout, kernel, stride, padding, groups=groups, bias=True),
               batch_norm2d(cout), nn.ReLU()]
    return layers


class ResNetStack(nn.Module):
    """conv-BN-ReLU-conv-BN plus the shortcut (identity, or a 1x1 stride-2 conv with bias), ReLU."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        first = conv_bn_relu(cin, cout, 3, stride, pad=(0, 1, 0, 1) if stride == 2 else None)
        self.body = nn.Sequential(*first, nn.Conv2d(cout, cout, 3, 1, 1), batch_norm2d(cout))
        self.shortcut = nn.Conv2d(cin, cout, 1, stride) if stride != 1 else nn.Identity()
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.relu(self.body(x) + self.shortcut(x))


def resnet8():
    return nn.Sequential(*conv_bn_relu(3, 16, 3), ResNetStack(16, 16, 1), ResNetStack(16, 32, 2),
                         ResNetStack(32, 64, 2), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Linear(64, 10))


def ds_cnn():
    layers = conv_bn_relu(1, 64, (10, 4), 2, pad=(1, 1, 4, 5)) + [nn.Dropout(0.2)]
    for _ in range(4):
        layers += conv_bn_relu(64, 64, 3, groups=64) + conv_bn_relu(64, 64, 1)
    layers += [nn.Dropout(0.4), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 12)]
    return nn.Sequential(*layers)


def mobilenet_v1():
    layers = conv_bn_relu(3, 8, 3, 2, pad=(0, 1, 0, 1))
    channels = 8
    blocks = [(1, 16), (2, 32), (1, 32), (2, 64), (1, 64), (2, 128)] + [(1, 128)] * 5 + \
        [(2, 256), (1, 256)]
    for stride, out in blocks:
        layers += conv_bn_relu(channels, channels, 3, stride, groups=channels,
                               pad=(0, 1, 0, 1) if stride == 2 else None)
        layers += conv_bn_relu(channels, out, 1)
        channels = out
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(256, 2)]
    return nn.Sequential(*layers)


def fc_autoencoder():
    layers, width = [], 640
    for units in (128, 128, 128, 128, 8, 128, 128, 128, 128):
        layers += [nn.Linear(width, units), nn.BatchNorm1d(units, eps=1e-3, momentum=0.01),
                   nn.ReLU()]
        width = units
    layers.append(nn.Linear(width, 640))
    return nn.Sequential(*layers)


MODELS = {
    "resnet8": (resnet8, (3, 32, 32), "cross_entropy", 10, 32, 78186, 480),
    "ds_cnn": (ds_cnn, (1, 49, 10), "cross_entropy", 12, 100, 23756, 1152),
    "mobilenet_v1": (mobilenet_v1, (3, 96, 96), "cross_entropy", 2, 32, 216322, 5472),
    "fc_autoencoder": (fc_autoencoder, (640,), "mse", 640, 512, 267928, 2064),
}


def build(name):
    """The model, checked against the reference counts."""
    make, _, _, _, _, trainable, non_trainable = MODELS[name]
    model = make()
    got = sum(p.numel() for p in model.parameters())
    stats = sum(b.numel() for n, b in model.named_buffers() if not n.endswith("num_batches_tracked"))
    if (got, stats) != (trainable, non_trainable):
        raise SystemExit(f"{name}: {got} trainable and {stats} non-trainable values, "
                         f"the reference has {trainable} and {non_trainable}")
    return model


def batch(name, size=None):
    """Random normal inputs and random labels (or targets) for one step."""
    _, sample, loss, outputs, reference_batch, _, _ = MODELS[name]
    n = size or reference_batch
    x = torch.randn((n,) + sample)
    if loss == "cross_entropy":
        return x, torch.randint(0, outputs, (n,)), nn.CrossEntropyLoss()
    return x, torch.randn(n, outputs), nn.MSELoss()

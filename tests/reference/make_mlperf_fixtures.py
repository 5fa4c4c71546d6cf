#!/usr/bin/env python3
"""PyTorch fixtures for the MLPerf Tiny models' generated CPU step
(tests/codegen/test_mlperf_fixtures.cpp).

Each model of samples/mlperf_tiny/ is ported here by hand from the reference Keras code, as
staticnet flattens it: one module per layer, registered under its layer index (a residual
block's body, then its shortcut, then the sum), so the state-dict names are staticnet's. Keras'
'same' padding becomes explicit zero padding (the odd row or column after), BatchNorm takes
Keras' epsilon 1e-3 and momentum 0.99 (PyTorch's 0.01).

The fixture batch is smaller than the reference batch (the arithmetic per sample is the same)
and the optimizer is SGD with momentum: a convolution's bias before a BatchNorm has a gradient
that is zero but for rounding, which Adam would divide by its own square root and turn into
full-size steps of either sign. For each model, fixtures/mlperf_<model>.safetensors holds, for
`steps` steps (metadata; 3, or 1 where MODELS says why):

  grad1.<param>        the gradients of the first step
  loss                 the batch's mean loss before each step, shape (steps,)
  final.<param>        the weights after the last step
  final.<layer>.running_mean, final.<layer>.running_var   BatchNorm's running statistics then
  eval_loss            the mean loss of the same batch in evaluation (running statistics, no
                       dropout) after the last step, shape (1,)

The values are the float64 run's (see "ReLU's kink" below for why there are two runs); the
metadata holds the batch size, steps, input_offset, dropout_seed, the optimizer's settings,
kink_clearance and float32_gradient_noise (the float32 run's largest gradient error, which the test
scales into its tolerance for the worse-conditioned models).

Neither the batch nor the initial weights are stored: both sides compute them from integer
formulas that numpy and C++ evaluate to the same bits (batch() at the fixture's input_offset,
initial_value()). Dropout draws its mask from staticnet's counter-based hash
(staticnet/kernels/dropout.hpp), reimplemented below, with seed DROPOUT_SEED and steps 1, 2, 3.

Run with a Python that has torch, numpy and safetensors (CI uses the committed files):
  python3 tests/reference/make_mlperf_fixtures.py
"""
import copy
import math
import pathlib

import numpy as np
import torch
from safetensors.torch import save_file

from make_fixtures import batch

FIXTURE_VERSION = "2"  # 2: the input offset, float64 values
HERE = pathlib.Path(__file__).resolve().parent
DROPOUT_SEED = 7
SETTINGS = dict(lr=0.05, momentum=0.9, weight_decay=0.0)
EPS, MOMENTUM = 1e-3, 0.01  # Keras' BatchNormalization defaults, in PyTorch's convention

# ---- staticnet's Dropout mask -------------------------------------------------------------------

M64 = (1 << 64) - 1


def splitmix64(z):
    """splitmix64 over a numpy uint64 array (wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def dropout_keep(count, seed, step, layer, p, q):
    layer_mix = (layer * 0xD1B54A32D192ED03) & M64
    inner = splitmix64(np.array([seed ^ layer_mix], dtype=np.uint64))
    with np.errstate(over="ignore"):
        key = splitmix64(inner + np.uint64(step))
        e = np.arange(count, dtype=np.uint64)
        h = splitmix64(key + e * np.uint64(0x9E3779B97F4A7C15))
    threshold = (p << 24) // q
    return (h >> np.uint64(40)) >= np.uint64(threshold)


class HashDropout(torch.nn.Module):
    step = 0  # set before each training step

    def __init__(self, layer, p, q=100):
        super().__init__()
        self.layer, self.p, self.q = layer, p, q

    def forward(self, x):
        if not self.training:
            return x
        keep = dropout_keep(x.numel(), DROPOUT_SEED, HashDropout.step, self.layer, self.p, self.q)
        scale = np.float32(self.q / (self.q - self.p))
        mask = torch.from_numpy((keep.astype(np.float32) * scale).reshape(x.shape))
        if x.dtype in (torch.bfloat16, torch.float16):  # under autocast (make_mixed_fixtures.py)
            # In float, rounded once to x's dtype, as CUDA's fused dropout and staticnet's keep it.
            return (x.float() * mask).to(x.dtype)
        return x * mask


# ---- layers as staticnet lowers them ------------------------------------------------------------


class SameConv2d(torch.nn.Conv2d):
    """Conv2d with TensorFlow's 'same' padding for one input size: out = ceil(in / stride), the
    odd row or column padded after."""

    def __init__(self, cin, cout, kernel, stride, in_hw, groups=1):
        super().__init__(cin, cout, kernel, stride, padding=0, groups=groups)
        pads = []
        for size, k, s in zip(in_hw, self.kernel_size, self.stride):
            out = -(-size // s)
            total = max((out - 1) * s + k - size, 0)
            pads.append((total // 2, total - total // 2))
        (top, bottom), (left, right) = pads
        self.pad = (left, right, top, bottom)

    def forward(self, x):
        return super().forward(torch.nn.functional.pad(x, self.pad))


class Add(torch.nn.Module):
    def forward(self, a, b):
        return a + b


class Graph(torch.nn.Module):
    """Modules registered as "0", "1", ...; each reads the outputs of the layers it names (-1:
    the model's input)."""

    def __init__(self):
        super().__init__()
        self.reads = []
        self.shapes = []  # each layer's output shape, without the batch

    def add(self, module, shape, reads=None):
        index = len(self.reads)
        self.add_module(str(index), module)
        self.reads.append(reads if reads is not None else [index - 1])
        self.shapes.append(shape)
        return index

    def shape(self, layer):
        return self.input_shape if layer < 0 else self.shapes[layer]

    def forward(self, x):
        outputs = []
        for i, reads in enumerate(self.reads):
            args = [x if r < 0 else outputs[r] for r in reads]
            outputs.append(getattr(self, str(i))(*args))
        return outputs[-1]


class Builder:
    def __init__(self, input_shape):
        self.g = Graph()
        self.g.input_shape = tuple(input_shape)
        self.last = -1

    def _add(self, module, shape, reads=None):
        self.last = self.g.add(module, tuple(shape), reads if reads is not None else [self.last])
        return self.last

    def conv(self, cout, kernel, stride=1, depthwise=False, src=None):
        src = self.last if src is None else src
        c, h, w = self.g.shape(src)
        kh, kw = (kernel, kernel) if isinstance(kernel, int) else kernel
        cout = c if depthwise else cout
        m = SameConv2d(c, cout, (kh, kw), stride, (h, w), groups=c if depthwise else 1)
        return self._add(m, (cout, -(-h // stride), -(-w // stride)), [src])

    def batch_norm(self):
        shape = self.g.shape(self.last)
        bn = torch.nn.BatchNorm2d if len(shape) == 3 else torch.nn.BatchNorm1d
        return self._add(bn(shape[0], eps=EPS, momentum=MOMENTUM), shape)

    def relu(self):
        return self._add(torch.nn.ReLU(), self.g.shape(self.last))

    def dropout(self, p):
        return self._add(HashDropout(len(self.g.reads), p), self.g.shape(self.last))

    def add(self, a, b):
        return self._add(Add(), self.g.shape(a), [a, b])

    def global_avg_pool(self):
        c = self.g.shape(self.last)[0]
        return self._add(torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten()),
                         (c,))

    def linear(self, out):
        return self._add(torch.nn.Linear(self.g.shape(self.last)[0], out), (out,))


# ---- the four models (samples/mlperf_tiny/*.hpp) ------------------------------------------------


def resnet8():
    b = Builder((3, 32, 32))
    b.conv(16, 3), b.batch_norm(), b.relu()
    for channels, stride in ((16, 1), (32, 2), (64, 2)):
        block_input = b.last
        b.conv(channels, 3, stride), b.batch_norm(), b.relu()
        b.conv(channels, 3)
        body = b.batch_norm()
        shortcut = block_input if stride == 1 else b.conv(channels, 1, 2, src=block_input)
        b.add(body, shortcut), b.relu()
    b.global_avg_pool(), b.linear(10)
    return b.g


def ds_cnn():
    b = Builder((1, 49, 10))
    b.conv(64, (10, 4), 2), b.batch_norm(), b.relu(), b.dropout(20)
    for _ in range(4):
        b.conv(0, 3, depthwise=True), b.batch_norm(), b.relu()
        b.conv(64, 1), b.batch_norm(), b.relu()
    b.dropout(40), b.global_avg_pool(), b.linear(12)
    return b.g


def mobilenet_v1():
    b = Builder((3, 96, 96))
    b.conv(8, 3, 2), b.batch_norm(), b.relu()
    blocks = [(1, 16), (2, 32), (1, 32), (2, 64), (1, 64), (2, 128)] + [(1, 128)] * 5 + \
        [(2, 256), (1, 256)]
    for stride, channels in blocks:
        b.conv(0, 3, stride, depthwise=True), b.batch_norm(), b.relu()
        b.conv(channels, 1), b.batch_norm(), b.relu()
    b.global_avg_pool(), b.linear(2)
    return b.g


def fc_autoencoder():
    b = Builder((640,))
    for units in (128, 128, 128, 128, 8, 128, 128, 128, 128):
        b.linear(units), b.batch_norm(), b.relu()
    b.linear(640)
    return b.g


# name: (build, fixture batch, loss, classes or target size, steps)
# MobileNetV1 is checked over one step: from the second on, its loss on this batch is chaotic in
# the weights (PyTorch itself, its initial weights scaled by 1 + 1e-7·N(0, 1), moves the second
# step's loss by 7%, at any learning rate from 0.05 down to 0.001), so no two implementations can
# agree there to rounding.
MODELS = {
    "resnet8": (resnet8, 4, "cross_entropy", 10, 3),
    "ds_cnn": (ds_cnn, 4, "cross_entropy", 12, 3),
    "mobilenet_v1": (mobilenet_v1, 2, "cross_entropy", 2, 1),
    "fc_autoencoder": (fc_autoencoder, 16, "mse", 640, 3),
}

# ---- the initial weights, from integer formulas (tests/codegen/fixture_init.hpp) ---------------


def initial_value(tensor_index, count):
    """v_j = ((j · 2654435761 + 7919 · (t + 1)) mod 2001 − 1000) / 1000, in [−1, 1], in double."""
    j = np.arange(count, dtype=np.uint64)
    with np.errstate(over="ignore"):
        raw = (j * np.uint64(2654435761) + np.uint64(7919 * (tensor_index + 1))) % np.uint64(2001)
    return (raw.astype(np.float64) - 1000.0) / 1000.0


def initialize(model):
    """Weights and biases v·(1/√fan_in); BatchNorm γ = 1 + v/10, β = v/10 (all rounded once to
    f32). Tensors are numbered in state-dict order, parameters only."""
    for t, (name, p) in enumerate(model.named_parameters()):
        module = model.get_submodule(name.rsplit(".", 1)[0])
        v = initial_value(t, p.numel())
        if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
            values = 1.0 + v / 10.0 if name.endswith("weight") else v / 10.0
        else:
            weight = module.weight
            fan_in = weight.numel() // weight.shape[0]
            values = v * (1.0 / math.sqrt(fan_in))
        with torch.no_grad():
            p.copy_(torch.from_numpy(values.astype(np.float32).reshape(p.shape)))


# ---- ReLU's kink --------------------------------------------------------------------------------
#
# ReLU's derivative jumps at 0. An input within rounding of 0 is positive in one implementation
# and not in another, and then that one element's gradient flows back in one only; through the
# BatchNorm before it, it reaches its whole channel. At batch 8 each model had a few of its 10^5
# to 10^6 ReLU inputs per step that close to 0: DS-CNN's step-1 gradients then differed from
# PyTorch's by 1e-3 with OpenBLAS's AMD kernel and agreed to 1e-6 with its Intel kernel.
#
# So each fixture is computed twice, in float32 and in float64 from the same float32 weights, and
# its batch is chosen (by batch()'s input offset) so that every ReLU input of every step lies at
# least MIN_KINK_CLEARANCE times float32's rounding noise from 0: the float64 input's distance
# from 0 over the RMS of (float32 − float64) inputs of that ReLU. The noise grows with depth (in
# MobileNetV1, from 1e-7 of a channel's RMS at the first layer to 3e-5 at the last), and the
# smaller fixture batches leave fewer inputs to keep clear. Two float32 implementations differ by
# about √2 times that noise; an input 5 times the noise from 0 crosses it with a probability of
# about 4e-4. The stored values are the float64 run's.
MIN_KINK_CLEARANCE = 5.0
OFFSETS = 2001  # batch()'s inputs repeat with the offset modulo 2001


class ReluInputs:
    """Records the input of every ReLU of `model`, in call order."""

    def __init__(self, model):
        self.inputs = []
        for m in model.modules():
            if isinstance(m, torch.nn.ReLU):
                m.register_forward_hook(lambda module, args, out: self.inputs.append(
                    args[0].detach().double()))

    def take(self):
        inputs, self.inputs = self.inputs, []
        return inputs


def kink_clearance(inputs32, inputs64):
    """The smallest |ReLU input| in units of its ReLU's float32 rounding noise, both measured in
    each channel's RMS."""
    smallest = math.inf
    for a, b in zip(inputs32, inputs64, strict=True):
        per_channel = [0] + list(range(2, b.dim()))
        rms = b.square().mean(dim=per_channel, keepdim=True).sqrt()
        noise = ((a - b) / rms).square().mean().sqrt().item()
        if noise > 0:  # else both runs agree to the bit: no side of 0 to disagree on
            smallest = min(smallest, (b.abs() / rms).min().item() / noise)
    return smallest


def float32_gradient_noise(model32, model64):
    """The largest error of the float32 run's gradients against the float64 run's, each tensor's
    largest difference over its largest element, as the C++ test measures it. A tensor that is
    zero but for rounding (below 1e-4 of the model's largest gradient: a bias before a
    BatchNorm) is left out, as there."""
    pairs = [(p32.grad.double(), p64.grad) for p32, p64 in
             zip(model32.parameters(), model64.parameters(), strict=True)]
    model_scale = max(g64.abs().max().item() for _, g64 in pairs)
    return max(((g32 - g64).abs().max() / g64.abs().max()).item() for g32, g64 in pairs
               if g64.abs().max().item() >= 1e-4 * model_scale)


def train(name, offset):
    """The fixture's tensors (float64), the losses and the kink clearance of `name` on
    batch(..., offset)."""
    build, batch_size, loss_name, outputs, steps = MODELS[name]
    model32 = build()
    initialize(model32)
    model64 = copy.deepcopy(model32).double()
    x, y = batch(batch_size, model32.input_shape, loss_name, outputs, offset)
    loss_fn = torch.nn.CrossEntropyLoss() if loss_name == "cross_entropy" else torch.nn.MSELoss()
    y64 = y.double() if loss_name == "mse" else y
    runs = [(model32, x, y, torch.optim.SGD(model32.parameters(), **SETTINGS), ReluInputs(model32)),
            (model64, x.double(), y64, torch.optim.SGD(model64.parameters(), **SETTINGS),
             ReluInputs(model64))]
    tensors, losses, clearance = {}, [], math.inf
    for step in range(1, steps + 1):
        HashDropout.step = step
        for model, inputs, labels, optimizer, _ in runs:
            model.train()
            optimizer.zero_grad()
            loss = loss_fn(model(inputs), labels)
            loss.backward()
            optimizer.step()
        losses.append(loss.item())
        if step == 1:
            for k, p in model64.named_parameters():
                tensors[f"grad1.{k}"] = p.grad.detach().clone().contiguous()
            noise = float32_gradient_noise(model32, model64)
        clearance = min(clearance, kink_clearance(runs[0][4].take(), runs[1][4].take()))
    model64.eval()
    with torch.no_grad():
        eval_loss = loss_fn(model64(x.double()), y64).item()
    tensors["loss"] = torch.tensor(losses, dtype=torch.float64)
    tensors["eval_loss"] = torch.tensor([eval_loss], dtype=torch.float64)
    for k, v in model64.state_dict().items():
        if not k.endswith("num_batches_tracked"):
            tensors[f"final.{k}"] = v.detach().clone().contiguous()
    return tensors, losses, eval_loss, clearance, noise


def main():
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    out = HERE / "fixtures"
    out.mkdir(exist_ok=True)
    for name, (_, batch_size, _, _, steps) in MODELS.items():
        for offset in range(OFFSETS):  # the first batch that keeps clear of the kink
            tensors, losses, eval_loss, clearance, noise = train(name, offset)
            if clearance >= MIN_KINK_CLEARANCE:
                break
        else:
            raise SystemExit(f"{name}: no input offset keeps every ReLU input {MIN_KINK_CLEARANCE}"
                             " times float32's rounding noise from 0; use a smaller batch")
        metadata = {"fixture_version": FIXTURE_VERSION, "torch_version": torch.__version__,
                    "batch": str(batch_size), "steps": str(steps), "input_offset": str(offset),
                    "kink_clearance": f"{clearance:.3g}",
                    "float32_gradient_noise": f"{noise:.3g}", "dropout_seed": str(DROPOUT_SEED)}
        metadata.update({k: repr(v) for k, v in SETTINGS.items()})
        print(f"{name}: batch {batch_size}, input offset {offset}, kink clearance {clearance:.3g}, "
              f"float32 gradient noise {noise:.3g}, "
              f"losses {losses}, eval {eval_loss}")
        save_file(tensors, str(out / f"mlperf_{name}.safetensors"), metadata=metadata)


if __name__ == "__main__":
    main()

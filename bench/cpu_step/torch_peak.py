#!/usr/bin/env python3
"""PyTorch's own peak memory of one CPU training step, to put beside staticnet's planned footprints
(`staticnet analyze --precision FP32,Mixed<bf16>,Mixed<f16>`).

Six models, each at its reference batch and optimizer, built from the PyTorch ports in
tests/reference (make_fixtures.py, make_mlperf_fixtures.py), in three precisions:

  fp32  plain float32
  bf16  forward under torch.autocast("cpu", dtype=torch.bfloat16)
  f16   forward under torch.autocast("cpu", dtype=torch.float16), with torch.amp.GradScaler("cpu")

A step is zero_grad(set_to_none=False) (the gradients stay allocated, as a plan keeps them),
forward, the loss in float32 from the logits (.float()), backward and the optimizer's step (for
f16: scaler.scale(loss).backward(), scaler.step, scaler.update). The models train in training mode
(batch statistics, Dropout on).

What is measured: the peak of the bytes held by live CPU tensors during one step, everything
included: parameters, gradients, optimizer state, BatchNorm buffers, the batch, the activations
saved for backward and the temporaries. The step measured comes after warm-up steps (until the
optimizer has updated every parameter once, so its state exists; under f16 the scaler skips the
updates of steps that overflow), and it must not be skipped itself.

How: torch.profiler with profile_memory=True records every allocation and free of PyTorch's CPU
allocator during the step; prof.export_memory_timeline(path, device="cpu") turns them into
[times, bytes by category], counting the tensors that were alive before the step and that the
step uses as "pre-existing", from its start. The peak is the largest total over time. Two checks
that do not rely on the timeline's inference:
  live_before  the bytes of the distinct storages alive before the step (parameters, gradients,
               buffers, optimizer state, the scaler's scale, the batch), counted from the objects;
  event_peak   live_before plus the largest running sum of the raw allocation events (allocations
               positive, frees negative, in time order) of the profiler's event tree.
A MISMATCH line is printed where the timeline's start differs from live_before or its peak from
event_peak. The event tree, the timeline's categories and the scaler's tensors are torch
internals (torch 2.15); the timeline's export is deprecated, for a CUDA-only replacement.

Cross-check outside the allocator (--no-rss to skip): in a fresh process per configuration, the
growth of the peak RSS across the measured step, the peak having been reset to the current RSS
just before the step (writing "5" to /proc/self/clear_refs) after malloc_trim(0) gave the heap
pages freed by the warm-up back to the system. The peak is VmHWM of /proc/self/status, the
process's high-water mark that getrusage's ru_maxrss reports too; ru_maxrss itself is no use
here, as it also keeps the high-water mark of the process before exec (the parent that forked
it, torch imported and a profile taken), which the reset does not clear. Compare it with
step_growth = peak_bytes - live_before, the tensor bytes the step adds on top of what it starts
with; RSS also sees what the allocator does not (numpy arrays, oneDNN's primitives, glibc's
free lists and page granularity).

make_mlperf_fixtures.HashDropout builds its mask in numpy and wraps it with torch.from_numpy: that
memory is numpy's and torch's allocator never sees it, though the mask is saved for backward.
While a forward runs here, torch.from_numpy copies into a tensor of torch's own
(torch_owned_numpy_arrays), so the mask is counted as the float32 mask nn.Dropout would keep;
the numpy temporaries of the hash remain uncounted (RSS sees them).

usage: python3 bench/cpu_step/torch_peak.py [--models simple_cnn,...] [--precisions fp32,bf16,f16]
                                            [--threads 1] [--no-rss] [--breakdown]
Prints one line per (model, precision), bytes. Not a test; takes a few minutes on 2 cores.
"""
import argparse
import contextlib
import ctypes
import dataclasses
import gc
import json
import pathlib
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable

import torch
from torch._C._profiler import _EventType
from torch.profiler import ProfilerActivity, profile
from torch.profiler._memory_profiler import _CATEGORY_TO_INDEX

REFERENCE = pathlib.Path(__file__).resolve().parents[2] / "tests" / "reference"
sys.path.insert(0, str(REFERENCE))
import make_fixtures  # noqa: E402

import checkpointed  # noqa: E402  (bench/cpu_step/checkpointed.py)
import make_mlperf_fixtures as mlperf  # noqa: E402


@dataclasses.dataclass(frozen=True)
class Model:
    build: Callable[[], torch.nn.Module]
    batch: int
    input_shape: tuple
    loss: str  # "cross_entropy" or "mse"
    outputs: int  # classes, or the target's size under MSE
    optimizer: str  # a key of make_fixtures.OPTIMIZERS


class Checkpointed(torch.nn.Module):
    """A model's forward over staticnet's Checkpoint<Sqrt> segments (checkpointed.py)."""

    def __init__(self, name, model):
        super().__init__()
        self.model = model
        self.forward_ = checkpointed.checkpointed_forward(name, model)

    def forward(self, x):
        return self.forward_(x)


def reference_models():
    fixtures = make_fixtures.models()

    def sample(name, optimizer):  # make_fixtures.py gives the reference batch
        build, batch, shape, loss, outputs = fixtures[name]
        return Model(build, batch, shape, loss, outputs, optimizer)

    def tiny(build, batch):  # make_mlperf_fixtures.py's MODELS holds its smaller fixture batch
        _, _, loss, outputs, _ = mlperf.MODELS[build.__name__]
        return Model(build, batch, build().input_shape, loss, outputs, "adam")

    simple_cnn = fixtures["simple_cnn"][0]
    return {
        "simple_cnn": sample("simple_cnn", "adam"),
        # Under torch.utils.checkpoint over staticnet's Checkpoint<Sqrt> segments (Checkpointed).
        "simple_cnn_checkpoint": Model(lambda: Checkpointed("simple_cnn", simple_cnn()), 128,
                                       (3, 32, 32), "cross_entropy", 10, "adam"),
        "mlp50": Model(checkpointed.mlp50, 256, (256,), "mse", 256, "adam"),
        "mlp50_checkpoint": Model(lambda: Checkpointed("mlp50", checkpointed.mlp50()), 256, (256,),
                                  "mse", 256, "adam"),
        "lenet5": sample("lenet5", "sgd_momentum"),
        "resnet8": tiny(mlperf.resnet8, 32),
        "ds_cnn": tiny(mlperf.ds_cnn, 100),
        "mobilenet_v1": tiny(mlperf.mobilenet_v1, 32),  # MobileNetV1 x0.25
        "fc_autoencoder": tiny(mlperf.fc_autoencoder, 512),
    }


MODELS = reference_models()
PRECISIONS = {"fp32": None, "bf16": torch.bfloat16, "f16": torch.float16}
WARMUP_LIMIT = 50  # steps; f16 skips the updates of steps that overflow until the scale has fallen


@contextlib.contextmanager
def torch_owned_numpy_arrays():
    """torch.from_numpy copies into a tensor of torch's allocator (see the module's docstring).
    numpy does the copy: a torch op reading numpy's memory (even the aten::lift_fresh of
    torch.from_numpy) shows that memory to the profiler as a tensor alive for the whole step,
    since its allocation and free are not torch's."""
    from_numpy = torch.from_numpy

    def copy(array):
        tensor = torch.empty(array.shape, dtype=getattr(torch, array.dtype.name))
        tensor.numpy()[...] = array
        return tensor

    torch.from_numpy = copy
    try:
        yield
    finally:
        torch.from_numpy = from_numpy


class Trainer:
    def __init__(self, name, precision):
        torch.manual_seed(0)
        spec = MODELS[name]
        self.model = spec.build().train()
        self.optimizer = make_fixtures.make_optimizer(spec.optimizer, self.model.parameters())
        self.x, self.y = make_fixtures.batch(spec.batch, spec.input_shape, spec.loss, spec.outputs)
        self.loss_fn = (torch.nn.CrossEntropyLoss() if spec.loss == "cross_entropy"
                        else torch.nn.MSELoss())
        self.dtype = PRECISIONS[precision]
        self.scaler = torch.amp.GradScaler("cpu") if precision == "f16" else None
        self.steps = 0

    def step(self):
        """One training step; False when the scaler skipped the update (an overflow)."""
        self.steps += 1
        mlperf.HashDropout.step = self.steps
        self.optimizer.zero_grad(set_to_none=False)
        with torch.autocast("cpu", dtype=self.dtype, enabled=self.dtype is not None), \
                torch_owned_numpy_arrays():
            output = self.model(self.x)
        loss = self.loss_fn(output.float(), self.y)
        if self.scaler is None:
            loss.backward()
            self.optimizer.step()
            return True
        scale = self.scaler.get_scale()
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return self.scaler.get_scale() >= scale  # update() lowers the scale after an overflow

    def warm_up(self):
        params = list(self.model.parameters())
        for _ in range(WARMUP_LIMIT):
            if self.step() and all(p in self.optimizer.state for p in params):
                return
        raise RuntimeError(f"no update in {WARMUP_LIMIT} warm-up steps")

    def live_bytes(self):
        """Bytes of the distinct storages alive between steps."""
        tensors = [*self.model.parameters(), *self.model.buffers(), self.x, self.y]
        tensors += [p.grad for p in self.model.parameters()]
        tensors += [t for state in self.optimizer.state.values() for t in state.values()
                    if isinstance(t, torch.Tensor)]
        if self.scaler is not None:
            tensors += [self.scaler._scale, self.scaler._growth_tracker]
        storages = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in tensors}
        return sum(storages.values())


def allocation_events(prof):
    """(time ns, bytes) of every CPU allocation (+) and free (-) the profiler recorded."""
    events, stack = [], list(prof.profiler.kineto_results.experimental_event_tree())
    while stack:
        event = stack.pop()
        if event.typed[0] == _EventType.Allocation and event.typed[1].device.type == "cpu":
            events.append((event.start_time_ns, event.typed[1].alloc_size))
        stack.extend(event.children)
    return sorted(events, key=lambda e: e[0])


def profiled_step(trainer):
    trainer.warm_up()
    live_before = trainer.live_bytes()
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=True,
                 with_stack=True) as prof:
        updated = trainer.step()
    if not updated:
        raise RuntimeError("the measured step overflowed and skipped its update")
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # deprecated in favour of a CUDA-only API
        path = pathlib.Path(tmp) / "timeline.json"
        prof.export_memory_timeline(str(path), device="cpu")
        _, sizes = json.loads(path.read_text())  # [times, [0, bytes per category...] per time]
    totals = [sum(row) for row in sizes]
    at_peak = sizes[totals.index(max(totals))]
    running = growth = 0
    for _, nbytes in allocation_events(prof):
        running += nbytes
        growth = max(growth, running)
    return dict(peak=max(totals), timeline_start=totals[0], live_before=live_before,
                event_peak=live_before + growth,
                breakdown={c.name if c else "unknown": at_peak[i + 1]
                           for c, i in _CATEGORY_TO_INDEX.items()})


def status_kib(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def rss_step_growth(trainer):
    """Growth of the peak RSS (bytes) across one step after warm-up; run in a fresh process."""
    trainer.warm_up()
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # resets the peak RSS (VmHWM) to the current RSS
    before = status_kib("VmHWM")
    trainer.step()
    return (status_kib("VmHWM") - before) * 1024


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--precisions", default=",".join(PRECISIONS))
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--no-rss", action="store_true", help="skip the RSS cross-check")
    p.add_argument("--breakdown", action="store_true",
                   help="also print the timeline's categories at the peak")
    p.add_argument("--rss-child", nargs=2, metavar=("MODEL", "PRECISION"), help=argparse.SUPPRESS)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    if args.rss_child:
        print(rss_step_growth(Trainer(*args.rss_child)))
        return

    print(f"torch {torch.__version__}, {torch.get_num_threads()} thread(s); bytes")
    print(f"{'model':15} {'precision':9} {'peak_bytes':>11} {'live_before':>11} "
          f"{'step_growth':>11} {'rss_step_growth':>15}")
    mismatches = []
    for name in args.models.split(","):
        for precision in args.precisions.split(","):
            r = profiled_step(Trainer(name, precision))
            rss = "-"
            if not args.no_rss:
                rss = subprocess.run(
                    [sys.executable, __file__, "--threads", str(args.threads), "--rss-child",
                     name, precision], check=True, capture_output=True, text=True).stdout.strip()
            print(f"{name:15} {precision:9} {r['peak']:11d} {r['live_before']:11d} "
                  f"{r['peak'] - r['live_before']:11d} {rss:>15}", flush=True)
            if args.breakdown:
                parts = (f"{category} {n}" for category, n in r["breakdown"].items())
                print("    at the peak: " + ", ".join(parts))
            if (r["peak"], r["timeline_start"]) != (r["event_peak"], r["live_before"]):
                mismatches.append(f"{name} {precision}: timeline peak {r['peak']}, start "
                                  f"{r['timeline_start']}; live before {r['live_before']}, "
                                  f"event peak {r['event_peak']}")
    for line in mismatches:
        print("MISMATCH " + line)


if __name__ == "__main__":
    main()

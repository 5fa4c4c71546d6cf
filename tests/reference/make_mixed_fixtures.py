#!/usr/bin/env python3
"""PyTorch fixtures for mixed precision (bf16, and f16 with GradScaler) on the generated CPU step
(tests/codegen/test_mixed_fixtures.cpp):

  fixtures/<model>_mixed_<bf16|f16>.safetensors   make_fixtures.py's models, batches, initial
      weights and optimizer settings, in its format (SimpleCNN, LeNet-5, the MLP and the linear
      regression in bf16; SimpleCNN, LeNet-5 and the MLP in f16, the MLP's with a forced overflow);
  fixtures/mlperf_<model>_mixed_<bf16|f16>.safetensors   make_mlperf_fixtures.py's ResNet-8 and
      DS-CNN, with a float64 run beside autocast's (mlperf_mixed() says why).

Each step runs the model under torch.autocast(dtype=torch.bfloat16 or torch.float16), as a user's
loop does, and takes the loss in float32 from the float32 logits: what CUDA's autocast does
(cross_entropy and mse_loss are on its float32 list). Linear layers and convolutions then run in
the low dtype from a copy of their weights and bias, with float32 accumulation, the activations
and pools in the low dtype; the gradients reach the float32 master parameters through the casts.
The optimizers step the float32 masters; under f16, GradScaler (its defaults) scales the loss and
the gradients are recorded unscaled, as the optimizer sees them.

Run with a Python that has torch, numpy and safetensors (CI uses the committed files); one thread,
so that a run reproduces the committed tensors:
  python3 tests/reference/make_mixed_fixtures.py
"""
import copy

import torch
from safetensors import safe_open
from safetensors.torch import save_file

import make_fixtures as fp32
import make_mlperf_fixtures as mlperf

MODELS = ["simple_cnn", "lenet5", "mlp", "linear_regression"]
OPTIMIZERS = ["sgd", "adam"]
# (Not in f16: test_mixed_fixtures.cpp says why.)
MLPERF_MODELS = {"bf16": ["resnet8", "ds_cnn"]}


# Mixed<f16> adds GradScaler with its defaults (initial scale 2^16). For the MLP, one more Adam run
# starts the scale at OVERFLOW_SCALE, where the scaled gradients overflow f16 (they do from 2^22,
# and not at 2^21): its first step is skipped and the scale halved, and the next two steps are
# Adam's first and second (GradScaler does not call the optimizer on a skipped step, so Adam does
# not count it). The fixture records the scale after each step, for the test that forces it.
PRECISIONS = {"bf16": torch.bfloat16, "f16": torch.float16}
OVERFLOW_SCALE = 2.0 ** 22


def finish_step(model, optimizer, scaler, first_step, grad1, scales):
    """A step's end, after its backward: GradScaler's unscale_ (f16), the first step's float32
    master gradients into grad1, then the optimizer's step (GradScaler's, which skips a step whose
    gradients overflowed, then moves the scale, appended to scales)."""
    if scaler is not None:
        scaler.unscale_(optimizer)
    if first_step:
        for k, p in model.named_parameters():
            assert p.grad.dtype == torch.float32
            grad1[k] = p.grad.detach().clone().contiguous()
    if scaler is None:
        optimizer.step()
    else:
        scaler.step(optimizer)
        scaler.update()
        scales.append(scaler.get_scale())


def record_overflow(tensors, metadata, model, losses, scales, initial_scale):
    """A run forced to overflow, from initial_scale: overflow.loss, overflow.scale (after each
    step), overflow.final.<param> and metadata overflow.initial_scale."""
    tensors["overflow.loss"] = torch.tensor(losses, dtype=torch.float64)
    tensors["overflow.scale"] = torch.tensor(scales, dtype=torch.float64)
    for k, v in model.state_dict().items():
        tensors[f"overflow.final.{k}"] = v.detach().clone().contiguous()
    metadata["overflow.initial_scale"] = repr(initial_scale)


def run(build, init_state, x, y, loss_fn, opt_name, dtype, init_scale=None):
    """Three steps under autocast; (model, losses, first-step gradients, scales after each step).
    The gradients are the unscaled ones, as the optimizer sees them."""
    model = build()
    model.load_state_dict(init_state)
    optimizer = fp32.make_optimizer(opt_name, model.parameters())
    scaler = None
    if dtype == torch.float16:
        scaler = torch.amp.GradScaler("cpu", **({"init_scale": init_scale} if init_scale else {}))
    losses, grad1, scales = [], {}, []
    for step in range(3):
        optimizer.zero_grad()
        with torch.autocast(device_type="cpu", dtype=dtype):
            logits = model(x)
        assert logits.dtype == dtype
        loss = loss_fn(logits.float(), y)
        losses.append(loss.item())
        (loss if scaler is None else scaler.scale(loss)).backward()
        finish_step(model, optimizer, scaler, step == 0, grad1, scales)
    return model, losses, grad1, scales


def main():
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    out = fp32.HERE / "fixtures"
    for suffix, dtype in PRECISIONS.items():
        for name in MODELS if dtype == torch.bfloat16 else ["simple_cnn", "lenet5", "mlp"]:
            build, batch_size, sample_shape, loss_name, outputs = fp32.models()[name]
            torch.manual_seed(0)
            initial = build()
            init_state = {k: v.detach().clone() for k, v in initial.state_dict().items()}
            x, y = fp32.batch(batch_size, sample_shape, loss_name, outputs)
            loss_fn = (torch.nn.CrossEntropyLoss() if loss_name == "cross_entropy"
                       else torch.nn.MSELoss())
            tensors = {f"init.{k}": v.contiguous() for k, v in init_state.items()}
            metadata = {"fixture_version": fp32.FIXTURE_VERSION,
                        "torch_version": torch.__version__, "precision": f"Mixed<{suffix}>"}
            for opt_name in OPTIMIZERS:
                model, losses, grad1, scales = run(build, init_state, x, y, loss_fn, opt_name,
                                                   dtype)
                if opt_name == "sgd":
                    tensors.update({f"grad1.{k}": g for k, g in grad1.items()})
                fp32.record_run(tensors, metadata, opt_name, model, losses)
                print(f"{name} {suffix} {opt_name}: losses {losses}, scales {scales}")
            if dtype == torch.float16 and name == "mlp":
                model, losses, _, scales = run(build, init_state, x, y, loss_fn, "adam", dtype,
                                               OVERFLOW_SCALE)
                record_overflow(tensors, metadata, model, losses, scales, OVERFLOW_SCALE)
                print(f"{name} {suffix} overflow: losses {losses}, scales {scales}")
            save_file(tensors, str(out / f"{name}_mixed_{suffix}.safetensors"), metadata=metadata)


def mlperf_mixed(name, suffix):
    """fixtures/mlperf_<name>_mixed_<suffix>.safetensors: make_mlperf_fixtures.py's model, initial
    weights, batch (at its fixture's input offset), Dropout masks and SGD with momentum, three
    steps, run twice: under autocast (bf16, or f16 with GradScaler's defaults) and in float64 from
    the same float32 weights. Its
    tensors are named as make_mlperf_fixtures.py's, the autocast run's, plus the float64 run's
    under "exact." (exact.grad1.<param>, exact.final.<param>, exact.loss).

    Autocast's result is not the exact one, and at these batches ReLU inputs within bf16's
    rounding of 0 (thousands per step) decide on either side which gradients flow, so no
    tolerance around PyTorch's values can be derived from bf16's precision alone. The test asks
    instead that the generated step be as close to the float64 values as autocast is, within a
    factor it names; the float64 run is the yardstick for both."""
    build, batch_size, loss_name, outputs, steps = mlperf.MODELS[name]
    with safe_open(str(fp32.HERE / "fixtures" / f"mlperf_{name}.safetensors"), "pt") as f:
        offset = int(f.metadata()["input_offset"])
    model = build()
    mlperf.initialize(model)
    exact = copy.deepcopy(model).double()
    x, y = fp32.batch(batch_size, model.input_shape, loss_name, outputs, offset)
    loss_fn = torch.nn.CrossEntropyLoss() if loss_name == "cross_entropy" else torch.nn.MSELoss()
    dtype = PRECISIONS[suffix]
    runs = [(model, x, torch.optim.SGD(model.parameters(), **mlperf.SETTINGS), True, ""),
            (exact, x.double(), torch.optim.SGD(exact.parameters(), **mlperf.SETTINGS), False,
             "exact.")]
    tensors = {}
    for m, inputs, optimizer, autocast, prefix in runs:
        scaler = torch.amp.GradScaler("cpu") if autocast and dtype == torch.float16 else None
        losses = []
        for step in range(1, steps + 1):
            mlperf.HashDropout.step = step
            m.train()
            optimizer.zero_grad()
            with torch.autocast(device_type="cpu", dtype=dtype, enabled=autocast):
                logits = m(inputs)
            assert logits.dtype == (dtype if autocast else torch.float64)
            loss = loss_fn(logits.float() if autocast else logits, y)
            if scaler is None:
                loss.backward()
            else:
                scaler.scale(loss).backward()
                scaler.unscale_(optimizer)  # the gradients as the optimizer sees them
            if step == 1:
                for k, p in m.named_parameters():
                    tensors[f"{prefix}grad1.{k}"] = p.grad.detach().double().clone().contiguous()
            if scaler is None:
                optimizer.step()
            else:
                scaler.step(optimizer)
                scaler.update()
                assert scaler.get_scale() == 65536.0, "a step was skipped"
            losses.append(loss.item())
        tensors[f"{prefix}loss"] = torch.tensor(losses, dtype=torch.float64)
        for k, v in m.state_dict().items():
            if not k.endswith("num_batches_tracked"):
                tensors[f"{prefix}final.{k}"] = v.detach().double().clone().contiguous()
        print(f"{name} {suffix if autocast else 'float64'}: losses {losses}")
    metadata = {"fixture_version": mlperf.FIXTURE_VERSION, "torch_version": torch.__version__,
                "precision": f"Mixed<{suffix}>", "batch": str(batch_size), "steps": str(steps),
                "input_offset": str(offset), "dropout_seed": str(mlperf.DROPOUT_SEED)}
    metadata.update({k: repr(v) for k, v in mlperf.SETTINGS.items()})
    save_file(tensors, str(fp32.HERE / "fixtures" / f"mlperf_{name}_mixed_{suffix}.safetensors"),
              metadata=metadata)


if __name__ == "__main__":
    main()
    for mlperf_suffix, mlperf_names in MLPERF_MODELS.items():
        for mlperf_name in mlperf_names:
            mlperf_mixed(mlperf_name, mlperf_suffix)

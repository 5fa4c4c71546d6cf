#!/usr/bin/env python3
"""PyTorch fixtures for mixed precision (bf16) on the generated CPU step
(tests/codegen/test_mixed_fixtures.cpp), in make_fixtures.py's format and with its models,
batches, initial weights and optimizer settings, for the models the CPU backend renders under
Mixed<bf16> so far (no convolutions): fixtures/<model>_mixed_bf16.safetensors.

Each step runs the model under torch.autocast(dtype=torch.bfloat16), as a user's loop does, and
takes the loss in float32 from the float32 logits: what CUDA's autocast does (cross_entropy and
mse_loss are on its float32 list). Linear layers then run in bf16 from a bf16 copy of their
weights and bias, with float32 accumulation, and the ReLUs in bf16; the gradients reach the float32
master parameters through the casts. The optimizers step the float32 masters.

Run with a Python that has torch, numpy and safetensors (CI uses the committed files):
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
MLPERF_MODELS = ["resnet8", "ds_cnn"]


def main():
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    out = fp32.HERE / "fixtures"
    for name in MODELS:
        build, batch_size, sample_shape, loss_name, outputs = fp32.models()[name]
        torch.manual_seed(0)
        initial = build()
        init_state = {k: v.detach().clone() for k, v in initial.state_dict().items()}
        x, y = fp32.batch(batch_size, sample_shape, loss_name, outputs)
        loss_fn = torch.nn.CrossEntropyLoss() if loss_name == "cross_entropy" else torch.nn.MSELoss()
        tensors = {f"init.{k}": v.contiguous() for k, v in init_state.items()}
        metadata = {"fixture_version": fp32.FIXTURE_VERSION, "torch_version": torch.__version__,
                    "precision": "Mixed<bf16>"}
        for opt_name in OPTIMIZERS:
            model = build()
            model.load_state_dict(init_state)
            optimizer = fp32.make_optimizer(opt_name, model.parameters())
            losses = []
            for step in range(3):
                optimizer.zero_grad()
                with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
                    logits = model(x)
                assert logits.dtype == torch.bfloat16
                loss = loss_fn(logits.float(), y)
                loss.backward()
                losses.append(loss.item())
                if step == 0 and opt_name == "sgd":
                    for k, p in model.named_parameters():
                        assert p.grad.dtype == torch.float32
                        tensors[f"grad1.{k}"] = p.grad.detach().clone().contiguous()
                optimizer.step()
            fp32.record_run(tensors, metadata, opt_name, model, losses)
            print(f"{name} {opt_name}: losses {losses}")
        save_file(tensors, str(out / f"{name}_mixed_bf16.safetensors"), metadata=metadata)


def mlperf_mixed(name):
    """fixtures/mlperf_<name>_mixed_bf16.safetensors: make_mlperf_fixtures.py's model, initial
    weights, batch (at its fixture's input offset), Dropout masks and SGD with momentum, three
    steps, run twice: under autocast (bf16) and in float64 from the same float32 weights. Its
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
    runs = [(model, x, torch.optim.SGD(model.parameters(), **mlperf.SETTINGS), True, ""),
            (exact, x.double(), torch.optim.SGD(exact.parameters(), **mlperf.SETTINGS), False,
             "exact.")]
    tensors = {}
    for m, inputs, optimizer, autocast, prefix in runs:
        losses = []
        for step in range(1, steps + 1):
            mlperf.HashDropout.step = step
            m.train()
            optimizer.zero_grad()
            with torch.autocast(device_type="cpu", dtype=torch.bfloat16, enabled=autocast):
                logits = m(inputs)
            assert logits.dtype == (torch.bfloat16 if autocast else torch.float64)
            loss = loss_fn(logits.float() if autocast else logits, y)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            if step == 1:
                for k, p in m.named_parameters():
                    tensors[f"{prefix}grad1.{k}"] = p.grad.detach().double().clone().contiguous()
        tensors[f"{prefix}loss"] = torch.tensor(losses, dtype=torch.float64)
        for k, v in m.state_dict().items():
            if not k.endswith("num_batches_tracked"):
                tensors[f"{prefix}final.{k}"] = v.detach().double().clone().contiguous()
        print(f"{name} {'autocast' if autocast else 'float64'}: losses {losses}")
    metadata = {"fixture_version": mlperf.FIXTURE_VERSION, "torch_version": torch.__version__,
                "precision": "Mixed<bf16>", "batch": str(batch_size), "steps": str(steps),
                "input_offset": str(offset), "dropout_seed": str(mlperf.DROPOUT_SEED)}
    metadata.update({k: repr(v) for k, v in mlperf.SETTINGS.items()})
    save_file(tensors, str(fp32.HERE / "fixtures" / f"mlperf_{name}_mixed_bf16.safetensors"),
              metadata=metadata)


if __name__ == "__main__":
    main()
    for mlperf_name in MLPERF_MODELS:
        mlperf_mixed(mlperf_name)

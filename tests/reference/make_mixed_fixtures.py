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
import torch
from safetensors.torch import save_file

import make_fixtures as fp32

MODELS = ["simple_cnn", "lenet5", "mlp", "linear_regression"]
OPTIMIZERS = ["sgd", "adam"]


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


if __name__ == "__main__":
    main()

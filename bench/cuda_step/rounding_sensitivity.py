#!/usr/bin/env python3
"""How far a training run drifts from a change of one rounding: the yardstick for the CUDA
trainers' loss curves against the CPU trainers' (scripts/gpu-checks.sh's train part).

The CUDA step sums in other orders than the CPU step (cuDNN's and cuBLASLt's reductions), so the
two runs part at the last bit of the first step and drift apart from there, the more so in deep
models with batch statistics under Adam, whose update divides by the gradient's own size. How much
is rounding and how much would be a bug? This runs each model's CPU trainer twice from one set of
weights (the seeded ones after one step, the trainer keeping no file of its initial weights),
the second with every weight moved by one unit in the last place (numpy.nextafter), each with
fresh optimizer state and the train part's data, epochs and seed (on 2 threads), and prints the
largest relative difference of the two runs' losses, train and eval, epoch by epoch. A
CPU-vs-CUDA difference of about that size is rounding; one far above it is not.

usage: rounding_sensitivity.py BIN_DIR [MODEL...]   (BIN_DIR holds MODEL_trainer_cpu; the default
models are the four MLPerf Tiny ones; needs numpy and safetensors: build/python-env)
"""
import json
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
from safetensors.numpy import load_file, save_file

TRAIN = ["--data", "synthetic:2048", "--eval", "synthetic:512", "--epochs", "2", "--seed", "1",
         "--progress", "none", "--threads", "2"]


def run(command):
    """Runs a trainer; on failure, says what it said."""
    result = subprocess.run([str(c) for c in command], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{command[0]} exited {result.returncode}:\n{result.stdout}{result.stderr}")


def losses(metrics):
    rows = [json.loads(line) for line in metrics.read_text().splitlines()]
    return [(r["train_loss"], r["eval_loss"]) for r in rows]


def main():
    bin_dir = pathlib.Path(sys.argv[1])
    models = sys.argv[2:] or ["resnet8", "ds_cnn", "mobilenet_v1", "fc_autoencoder"]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        for model in models:
            trainer = bin_dir / f"{model}_trainer_cpu"
            if not trainer.is_file():
                sys.exit(f"no {trainer}: build it first (cmake --build ... --target {trainer.name})")
            start = tmp / f"{model}_start.safetensors"
            # The weights after one step (the seeded initial weights are not kept in a file).
            run([trainer, *TRAIN, "--max-steps", "1", "--save", start])
            weights = {k: v for k, v in load_file(start).items() if not k.startswith("optimizer.")}
            nudged = {k: np.nextafter(v, np.inf).astype(v.dtype) if v.dtype == np.float32 else v
                      for k, v in weights.items()}
            save_file(weights, tmp / f"{model}_a.safetensors")
            save_file(nudged, tmp / f"{model}_b.safetensors")
            runs = []
            for name in ("a", "b"):
                metrics = tmp / f"{model}_{name}.jsonl"
                run([trainer, *TRAIN, "--init", tmp / f"{model}_{name}.safetensors", "--metrics",
                     metrics])
                runs.append(losses(metrics))
            drift = [max(abs(x - y) / abs(x) for x, y in zip(ra, rb))
                     for ra, rb in zip(runs[0], runs[1])]
            print(f"{model}: one ulp on every weight, largest relative loss difference by epoch: "
                  + ", ".join(f"{d:.2e}" for d in drift))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Data files for the trainer program tests (tests/codegen/trainer/trainer_cli.cmake), for
cli_net.hpp's model: samples of shape (1, 4, 4), 3 classes.

  train.npy, train_labels.npy   12 samples, labels 0, 1, 2, 0, 1, 2, ...; class c's pixels are
                                c + small noise, so the model learns them
  eval.npy, eval_labels.npy     6 samples of the same kind (the last batch of 4 is partial)
  wrong_shape.npy               12 samples of shape (1, 5, 5)
  label_out_of_range.npy        train_labels with sample 7's label 3 (the model has 3 classes)
  nan.npy                       train.npy with sample 5, element 9 NaN
  truncated.npy                 train.npy without its last 10 bytes
  train.csv                     train.npy's samples as CSV rows: 16 values, then the label
  train_label_first.csv         the same rows with the label first, under a header
  train_pipe.csv                the same rows separated by '|', under a header of numbers (0 to
                                16), which only --header tells from data
  train_f16.npy                 train.npy as float16
  train_f16_as_f32.npy          train_f16.npy widened to float32 by NumPy: the same values
Run: python3 make_fixtures.py (needs numpy); the files are committed."""
import pathlib

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent


def samples(n, seed):
    rng = np.random.default_rng(seed)
    labels = np.arange(n) % 3
    x = labels[:, None, None, None] + 0.1 * rng.standard_normal((n, 1, 4, 4))
    return x.astype(np.float32), labels.astype(np.int64)


def main():
    x, y = samples(12, 1)
    np.save(HERE / "train.npy", x)
    np.save(HERE / "train_labels.npy", y)
    ex, ey = samples(6, 2)
    np.save(HERE / "eval.npy", ex)
    np.save(HERE / "eval_labels.npy", ey)
    np.save(HERE / "wrong_shape.npy", np.zeros((12, 1, 5, 5), np.float32))
    bad = y.copy()
    bad[7] = 3
    np.save(HERE / "label_out_of_range.npy", bad)
    nan = x.copy()
    nan.reshape(12, 16)[5, 9] = np.nan
    np.save(HERE / "nan.npy", nan)
    np.save(HERE / "train_f16.npy", x.astype(np.float16))
    np.save(HERE / "train_f16_as_f32.npy", x.astype(np.float16).astype(np.float32))
    data = (HERE / "train.npy").read_bytes()
    (HERE / "truncated.npy").write_bytes(data[:-10])
    with open(HERE / "train.csv", "w") as f:
        f.write(",".join(f"p{i}" for i in range(16)) + ",label\n")
        for row, label in zip(x.reshape(12, 16), y):
            f.write(",".join(f"{v:.6f}" for v in row) + f",{label}\n")
    with open(HERE / "train_label_first.csv", "w") as f:
        f.write("label," + ",".join(f"p{i}" for i in range(16)) + "\n")
        for row, label in zip(x.reshape(12, 16), y):
            f.write(f"{label}," + ",".join(f"{v:.6f}" for v in row) + "\n")
    with open(HERE / "train_pipe.csv", "w") as f:
        f.write("|".join(str(i) for i in range(17)) + "\n")
        for row, label in zip(x.reshape(12, 16), y):
            f.write("|".join(f"{v:.6f}" for v in row) + f"|{label}\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""scikit-learn's 8x8 handwritten digits (sklearn.datasets.load_digits: 1,797 images, pixel
values 0-16; a copy of the UCI ML hand-written digits data set, CC BY 4.0) as .npy files for the
generated trainers, split once, reproducibly, into 1,437 training and 360 test images:

  train_images.npy  u8 (1437, 1, 8, 8)   train_labels.npy  i64 (1437,)
  test_images.npy   u8 (360, 1, 8, 8)    test_labels.npy   i64 (360,)

The images stay u8 0-16, as the data set has them: train with --scale 0.0625 to bring them to
[0, 1]. The split is a permutation drawn from numpy's default_rng(0); the first 1,437 train.
Run once (needs numpy and scikit-learn); the files are committed:
  python3 samples/digits/make_digits.py
"""
import pathlib

import numpy as np
from sklearn.datasets import load_digits

HERE = pathlib.Path(__file__).resolve().parent
TRAIN = 1437


def main():
    digits = load_digits()
    images = digits.images.astype(np.uint8).reshape(-1, 1, 8, 8)
    labels = digits.target.astype(np.int64)
    order = np.random.default_rng(0).permutation(len(labels))
    train, test = order[:TRAIN], order[TRAIN:]
    np.save(HERE / "train_images.npy", images[train])
    np.save(HERE / "train_labels.npy", labels[train])
    np.save(HERE / "test_images.npy", images[test])
    np.save(HERE / "test_labels.npy", labels[test])
    print(f"{len(train)} training and {len(test)} test images in {HERE}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Checks that Python's `safetensors` package reads a checkpoint staticnet wrote with the exact
values: the tensors of make_fixtures.py's fixture_tensors() and its CHECKPOINT_METADATA (see the
test case "checkpoint interop: the file for the Python check"). Exit status 0 only on success;
a missing `safetensors` package is a failure, never a skip.

    python_interop_check.py FILE
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "data" / "safetensors"))

import numpy as np  # noqa: E402
import safetensors  # noqa: E402
from make_fixtures import CHECKPOINT_METADATA, fixture_tensors  # noqa: E402


def main(path):
    problems = []
    expected = fixture_tensors()

    # 1. The high-level API: metadata, names, and every dtype numpy has, as numpy arrays.
    with safetensors.safe_open(path, framework="numpy") as f:
        if f.metadata() != CHECKPOINT_METADATA:
            problems.append(f"metadata: expected {CHECKPOINT_METADATA}, found {f.metadata()}")
        if set(f.keys()) != set(expected):
            problems.append(f"names: expected {sorted(expected)}, found {sorted(f.keys())}")
        for name, (dtype, want) in expected.items():
            if dtype == "BF16" or name not in f.keys():
                continue  # numpy has no bfloat16; checked below
            have = f.get_tensor(name)
            if have.dtype != want.dtype or have.shape != want.shape:
                problems.append(f"{name}: expected {want.dtype} {want.shape}, "
                                f"found {have.dtype} {have.shape}")
            elif have.tobytes() != want.tobytes():  # bit-exact: -0.0, inf, denormals
                problems.append(f"{name}: expected {want!r}, found {have!r}")

    # 2. The raw deserializer: every dtype, bfloat16 included, byte for byte.
    raw = dict(safetensors.deserialize(pathlib.Path(path).read_bytes()))
    for name, (dtype, want) in expected.items():
        have = raw.get(name)
        if have is None:
            problems.append(f"{name}: missing")
            continue
        if have["dtype"] != dtype or list(have["shape"]) != list(want.shape):
            problems.append(f"{name}: expected {dtype} {list(want.shape)}, "
                            f"found {have['dtype']} {have['shape']}")
        if bytes(have["data"]) != want.tobytes():
            problems.append(f"{name}: data differs")

    for problem in problems:
        print(f"{path}: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"{path}: safetensors {safetensors.__version__} (numpy {np.__version__}) read "
          f"{len(expected)} tensors and the metadata exactly")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))

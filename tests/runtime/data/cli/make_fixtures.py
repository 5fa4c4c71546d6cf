#!/usr/bin/env python3
"""Writes the small fixtures the `staticnet` CLI tests read (tests/runtime/cli.cmake).

Every expected number in those tests is derived by hand from the values below. Needs only numpy
(safetensors is written by hand, so the checkpoint is also an interoperability check).
Run from anywhere: python3 make_fixtures.py
"""
import json
import pathlib
import struct

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent


def write_idx(path, array, type_code):
    dims = b"".join(struct.pack(">I", d) for d in array.shape)
    header = bytes([0, 0, type_code, array.ndim]) + dims
    path.write_bytes(header + array.astype(array.dtype.newbyteorder(">")).tobytes())


# IDX: 10 images of 4x4 u8; labels 0,1,2,0,1,2,0,1,2,0 -> counts 4, 3, 3 (40%, 30%, 30%).
images = (np.arange(10 * 16) % 256).astype(np.uint8).reshape(10, 4, 4)
idx_labels = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2, 0], dtype=np.uint8)
write_idx(HERE / "images.idx", images, 0x08)
write_idx(HERE / "labels.idx", idx_labels, 0x08)
# Truncated: header says 10x4x4 = 160 bytes of data after the 16-byte header; 155 are there,
# so the parser reports byte 171 (the end of the file).
good = (HERE / "images.idx").read_bytes()
(HERE / "truncated_images.idx").write_bytes(good[:-5])

# npy: 8 samples of (2, 3) f32; labels (i8) 3,1,1,0,1,3,1,2 -> counts 1, 4, 1, 2
# (12.5%, 50.0%, 12.5%, 25.0%).
np.save(HERE / "inputs.npy", np.linspace(-1, 1, 8 * 6, dtype=np.float32).reshape(8, 2, 3))
np.save(HERE / "labels.npy", np.array([3, 1, 1, 0, 1, 3, 1, 2], dtype=np.int64))
# A negative label (sample 5): the parser names the label's byte offset, 128 + 5 * 8 = 168.
np.save(HERE / "labels_negative.npy", np.array([3, 1, 1, 0, 1, -1, 1, 2], dtype=np.int64))
# A NaN in sample 2, element 4: found by the full scan.
with_nan = np.linspace(-1, 1, 8 * 6, dtype=np.float32).reshape(8, 2, 3)
with_nan[2, 1, 1] = np.nan
np.save(HERE / "inputs_nan.npy", with_nan)

# CIFAR-10: 5 records, labels 9,0,9,3,9 -> counts 0:1, 3:1, 9:3 (20%, 20%, 60%) of 10 classes.
records = []
for i, label in enumerate([9, 0, 9, 3, 9]):
    records.append(bytes([label]) + bytes((i * 7 + j) % 256 for j in range(3072)))
(HERE / "data_batch_1.bin").write_bytes(b"".join(records))
# Label 10 in record 2: the parser names the label byte, 2 * 3073 = 6146.
bad = bytearray(b"".join(records))
bad[2 * 3073] = 10
(HERE / "bad_label.bin").write_bytes(bytes(bad))

# CSV with a header: labels 0,1,1,2,2,2 -> counts 1, 2, 3 (16.7%, 33.3%, 50.0%).
(HERE / "table.csv").write_text(
    "x0,x1,x2,label\n"
    "0.5,1.0,-2.0,0\n"
    "1.5,2.0,-1.0,1\n"
    "2.5,3.0,0.0,1\n"
    "3.5,4.0,1.0,2\n"
    "4.5,5.0,2.0,2\n"
    "5.5,6.0,3.0,2\n")
# Line 3, column 5: a field that is not a number.
(HERE / "bad_field.csv").write_text("x0,x1,label\n1.0,2.0,0\n3.0,abc,1\n")


def write_safetensors(path, tensors, metadata):
    """tensors: list of (name, dtype name, numpy array); written in the given order."""
    header = {"__metadata__": metadata}
    offset = 0
    blobs = []
    for name, dtype, array in tensors:
        data = array.astype(array.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))


# A checkpoint as a trainer at step 1234 of epoch 3 would write it: weights, SGD momentum,
# 16 bytes of RNG state, 256 samples into the epoch of seed 42, and one metadata key of its own.
write_safetensors(
    HERE / "checkpoint.safetensors",
    [("fc.weight", "F32", np.arange(12, dtype=np.float32).reshape(3, 4)),
     ("optimizer.sgd.momentum.fc.weight", "F32", np.zeros((3, 4), dtype=np.float32)),
     ("fc.bias", "F32", np.array([0.5, -0.5, 0.25], dtype=np.float32)),
     ("steps_per_class", "I64", np.array([1, 2, 3], dtype=np.int64))],
    {"staticnet.format_version": "1", "staticnet.step": "1234", "staticnet.epoch": "3",
     "staticnet.rng_state": "00112233445566778899aabbccddeeff",
     "staticnet.data_order.epoch_seed": "42", "staticnet.data_order.index_in_epoch": "256",
     "model": "tiny-mlp"})
# A safetensors file written without staticnet's keys (e.g. by PyTorch): listed, no state.
write_safetensors(HERE / "plain.safetensors",
                  [("w", "F16", np.ones((2, 2), dtype=np.float16))], {"format": "pt"})
# A checkpoint whose weights diverged: w holds 2 NaN and an infinity (the first at element 1),
# b's second BF16 value is -Inf (0xFF80), and big's 1e300 is finite (F64), but no F32 holds it.
write_safetensors(
    HERE / "diverged.safetensors",
    [("w", "F32", np.array([1.0, np.nan, np.inf, np.nan], dtype=np.float32)),
     ("b", "BF16", np.array([0x3F80, 0xFF80], dtype=np.uint16)),
     ("big", "F64", np.array([1e300, 2.0], dtype=np.float64))],
    {"format": "pt"})

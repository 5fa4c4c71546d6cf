#!/usr/bin/env python3
"""Writes the safetensors fixtures staticnet's runtime tests read, using the Python `safetensors`
package (the reference implementation), so the tests prove staticnet reads what others write.

    build/python-env/bin/python3 tests/runtime/data/safetensors/make_fixtures.py

The values are the ones tests/runtime/test_checkpoint_interop.cpp expects, and the ones
tests/runtime/python_interop_check.py expects in files staticnet writes: change all three together.
"""
import pathlib
import sys

import numpy as np
import safetensors
import safetensors.numpy

HERE = pathlib.Path(__file__).resolve().parent


def bf16_bits(values):
    """bfloat16 is the top half of a float32; these values are exact in bfloat16."""
    bits = np.array(values, dtype=np.float32).view(np.uint32)
    assert np.all(bits & 0xFFFF == 0), "value not exact in bfloat16"
    return (bits >> 16).astype(np.uint16)


def fixture_tensors():
    """name -> (safetensors dtype, numpy array holding the exact little-endian bytes)."""
    return {
        "f64": ("F64", np.array([[0.0, -1.5, 3.141592653589793], [1e300, 5e-324, -np.inf]],
                                dtype=np.float64)),
        "f32": ("F32", np.array([1.0, -0.0, 3.4028234663852886e38], dtype=np.float32)),
        "f16": ("F16", np.array([[1.0, -2.5], [65504.0, 2.0**-14]], dtype=np.float16)),
        "bf16": ("BF16", bf16_bits([1.0, -2.0, 0.5])),
        "i64": ("I64", np.array([-(2**63), 2**63 - 1], dtype=np.int64)),
        "i32": ("I32", np.array([[-(2**31), 2**31 - 1], [0, -1]], dtype=np.int32)),
        "i16": ("I16", np.array([-32768, 32767, 12345], dtype=np.int16)),
        "i8": ("I8", np.array([-128, 127, 0, -1], dtype=np.int8)),
        "u8": ("U8", np.array([[0, 1, 2], [253, 254, 255]], dtype=np.uint8)),
        "bool": ("BOOL", np.array([True, False, False, True], dtype=np.bool_)),
        "scalar": ("F32", np.array(42.5, dtype=np.float32)),
        "empty": ("F32", np.zeros((0, 3), dtype=np.float32)),
    }


FIXTURE_METADATA = {"format": "pt", "note": "made by make_fixtures.py", "unicode": "h\u00e9llo \u2713"}

# A staticnet checkpoint written by Python: the format is plain safetensors plus metadata.
CHECKPOINT_METADATA = {
    "staticnet.format_version": "1",
    "staticnet.step": "1234",
    "staticnet.epoch": "7",
    "staticnet.rng_state": "00ff10ab",
    "staticnet.data_order.epoch_seed": "18446744073709551615",
    "staticnet.data_order.index_in_epoch": "96",
    "user.comment": "kept",
}

SAFETENSORS_DTYPE_FOR_BINDINGS = {"BF16": "bfloat16"}


def serialize_file(tensors, path, metadata):
    """The bindings' own serializer, which (unlike safetensors.numpy) handles bfloat16."""
    specs, keep_alive = {}, []
    for name, (dtype, array) in tensors.items():
        array = np.array(array, order="C")  # ascontiguousarray would make 0-d arrays 1-d
        keep_alive.append(array)
        dtype_name = SAFETENSORS_DTYPE_FOR_BINDINGS.get(dtype, array.dtype.name)
        if hasattr(safetensors, "TensorSpec"):  # safetensors >= 0.7
            specs[name] = safetensors.TensorSpec(dtype=dtype_name, shape=list(array.shape),
                                                 data_ptr=array.ctypes.data, data_len=array.nbytes)
        else:
            specs[name] = {"dtype": dtype_name, "shape": list(array.shape), "data": array.tobytes()}
    safetensors.serialize_file(specs, str(path), metadata=metadata)


def main():
    tensors = fixture_tensors()
    serialize_file(tensors, HERE / "all_dtypes.safetensors", None)
    numpy_only = {name: array for name, (dtype, array) in tensors.items() if dtype != "BF16"}
    safetensors.numpy.save_file({"weight": numpy_only["f32"]}, HERE / "with_metadata.safetensors",
                                metadata=FIXTURE_METADATA)
    safetensors.numpy.save_file(
        {"fc.weight": np.arange(6, dtype=np.float32).reshape(2, 3) / 4,
         "optimizer.adam.m.fc.weight": np.full((2, 3), 0.125, dtype=np.float32)},
        HERE / "python_checkpoint.safetensors", metadata=CHECKPOINT_METADATA)
    print(f"wrote fixtures with safetensors {safetensors.__version__} into {HERE}", file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes the .npy fixtures that tests/runtime/test_formats_npy.cpp reads.

Values are small and exact in every dtype, so the C++ tests can compare them by hand-written
literals. Run from anywhere: `python3 make_fixtures.py` (needs numpy); outputs are committed.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def save(name, array, version=None):
    path = os.path.join(HERE, name)
    with open(path, "wb") as f:
        np.lib.format.write_array(f, array, version=version, allow_pickle=True)


# Inputs: 2 samples of shape (3,) in each supported dtype.
save("inputs_f4.npy", np.array([[0.5, -1.25, 2.0], [3.0, 4.75, -0.125]], dtype="<f4"))
save("inputs_f8.npy", np.array([[0.5, -1.25, 2.0], [3.0, 4.75, -0.125]], dtype="<f8"))
# float16: the same values (exact in it), then its largest, its smallest subnormal (2^-24) and -0.
save("inputs_f2.npy", np.array([[0.5, -1.25, 2.0], [3.0, 4.75, -0.125], [65504.0, 2.0**-24, -0.0]],
                               dtype="<f2"))
save("inputs_u1.npy", np.array([[0, 7, 255], [1, 2, 3]], dtype="|u1"))
save("inputs_i1.npy", np.array([[-128, -1, 127], [0, 5, -6]], dtype="|i1"))
save("inputs_i4.npy", np.array([[-100000, 0, 7], [1, -2, 3]], dtype="<i4"))
save("inputs_i8.npy", np.array([[-5, 0, 9], [1 << 40, -2, 3]], dtype="<i8"))
# Images: 2 samples of shape (2, 2), version 2.0 and 3.0 headers.
save("images_v2.npy", np.arange(8, dtype="<f4").reshape(2, 2, 2), version=(2, 0))
save("images_v3.npy", np.arange(8, dtype="|u1").reshape(2, 2, 2), version=(3, 0))

# Labels: class indices in several integer dtypes, and float regression targets.
save("labels_i8.npy", np.array([1, 0], dtype="<i8"))
save("labels_u1.npy", np.array([2, 1], dtype="|u1"))
save("labels_i4.npy", np.array([0, 3], dtype="<i4"))
save("targets_f4.npy", np.array([[1.5, -2.0], [0.25, 8.0]], dtype="<f4"))
save("targets_f8_1d.npy", np.array([0.5, -0.5], dtype="<f8"))

# Refused: big-endian, Fortran order, object array, a NaN (refused by validate_all).
save("bad_big_endian.npy", np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=">f4"))
save("bad_fortran.npy", np.asfortranarray(np.arange(6, dtype="<f4").reshape(2, 3)))
save("bad_object.npy", np.array([[1, "a", None], [2, "b", None]], dtype=object))
save("bad_nan.npy", np.array([[0.0, 1.0, 2.0], [3.0, np.nan, 5.0]], dtype="<f4"))

#!/usr/bin/env python3
"""Writes the seed corpora of the runtime's fuzz targets: a few small valid inputs per format and
a few malformed ones, each in the layout its target reads (see fuzz_support.hpp and the comment
at the top of each fuzz_<format>.cpp).

    python3 codegen/runtime/fuzz/make_corpus.py      # needs numpy (pip install numpy)

Rewrites corpus/<target>/ deterministically, keeping the files named regression-* (inputs that
once crashed a parser, committed once fixed; never commit one before its fix, it would fail the
smoke tests). The files are committed.
"""
import io
import json
import pathlib
import struct

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
CORPUS = HERE / "corpus"


# ---- the option block every data-set target reads first (fuzz_support.hpp) -----------------
def options(allow_non_finite=False, num_classes=None, expect=None, target_bits=0):
    """expect: None, (a,), (a, b) or (1, a, b)."""
    flags = (1 if allow_non_finite else 0) | (2 if num_classes is not None else 0)
    a = b = 0
    if expect is not None:
        if len(expect) == 1:
            mode, a = 1, expect[0]
        elif len(expect) == 2:
            mode, (a, b) = 2, expect
        else:
            assert len(expect) == 3 and expect[0] == 1
            mode, a, b = 3, expect[1], expect[2]
        flags |= mode << 2
    flags |= target_bits << 4
    return struct.pack("<BbHH", flags, num_classes or 0, a, b)


def two_files(first, second, **opts):
    return options(**opts) + struct.pack("<I", len(first)) + first + second


# ---- IDX --------------------------------------------------------------------------------------
IDX_TYPES = {"u1": 0x08, "i1": 0x09, ">i2": 0x0B, ">i4": 0x0C, ">f4": 0x0D, ">f8": 0x0E}


def idx(array, code=None):
    array = np.asarray(array)
    key = array.dtype.str.replace("|", "")
    code = IDX_TYPES[key] if code is None else code
    header = bytes([0, 0, code, array.ndim]) + b"".join(struct.pack(">I", d) for d in array.shape)
    return header + array.tobytes()


def idx_corpus():
    rng = np.random.default_rng(1)
    images = rng.integers(0, 256, size=(3, 4, 4), dtype=np.uint8)
    labels = np.array([0, 1, 2], dtype=np.uint8)
    floats = rng.standard_normal((2, 3)).astype(">f4")
    with_nan = floats.copy()
    with_nan[1, 2] = np.nan
    return {
        "u8_3x4x4": two_files(idx(images), idx(labels)),
        "u8_num_classes_10_expect_1x4x4": two_files(idx(images), idx(labels), num_classes=10,
                                                    expect=(1, 4, 4)),
        "u8_expect_flat_16": two_files(idx(images), idx(labels), expect=(16,)),
        "i8_2x5": two_files(idx(np.arange(-5, 5, dtype=np.int8).reshape(2, 5)),
                            idx(np.array([1, 0], dtype=np.uint8))),
        "i16_2x2": two_files(idx(np.array([[-300, 2], [3, 32767]], dtype=">i2")),
                             idx(np.array([0, 1], dtype=np.uint8))),
        "i32_1d": two_files(idx(np.array([-(2**31), 7], dtype=">i4")),
                            idx(np.array([4, 4], dtype=np.uint8))),
        "f32_2x3": two_files(idx(floats), idx(np.array([1, 0], dtype=np.uint8))),
        "f64_rank4": two_files(idx(rng.standard_normal((2, 1, 2, 2)).astype(">f8")),
                               idx(np.array([0, 3], dtype=np.uint8))),
        "f32_nan": two_files(idx(with_nan), idx(np.array([1, 0], dtype=np.uint8))),
        "f32_nan_allowed": two_files(idx(with_nan), idx(np.array([1, 0], dtype=np.uint8)),
                                     allow_non_finite=True),
        "bad_truncated_images": two_files(idx(images)[:-5], idx(labels)),
        "bad_trailing_labels": two_files(idx(images), idx(labels) + b"\0"),
        "bad_labels_i8": two_files(idx(images), idx(labels.astype(np.int8))),
        "bad_label_count": two_files(idx(images), idx(labels[:2])),
        "bad_label_range": two_files(idx(images), idx(labels), num_classes=2),
        "bad_rank_9": two_files(bytes([0, 0, 8, 9]) + b"\0\0\0\1" * 9 + b"\7", idx(labels)),
        "bad_zero_dim": two_files(bytes([0, 0, 8, 2, 0, 0, 0, 3, 0, 0, 0, 0]), idx(labels)),
        "bad_huge_dims": two_files(bytes([0, 0, 0x0E, 3]) + b"\xff\xff\xff\xff" * 3, idx(labels)),
        "bad_expect_shape": two_files(idx(images), idx(labels), expect=(5, 5)),
    }


# ---- CIFAR ------------------------------------------------------------------------------------
def cifar_records(labels, variant, seed):
    rng = np.random.default_rng(seed)
    out = b""
    for label in labels:
        label_bytes = bytes([label]) if variant == 10 else bytes(label)  # (coarse, fine)
        out += label_bytes + rng.integers(0, 256, size=3072, dtype=np.uint8).tobytes()
    return out


def cifar_input(files, cifar100=False, coarse=False, **opts):
    bits = (1 if cifar100 else 0) | (2 if coarse else 0)
    out = options(target_bits=bits, **opts) + bytes([len(files)])
    for i, f in enumerate(files):
        if i + 1 < len(files):
            out += struct.pack("<I", len(f))
        out += f
    return out


def cifar_corpus():
    two = cifar_records([3, 9], 10, 1)
    return {
        "c10_one_batch": cifar_input([two]),
        "c10_two_batches": cifar_input([cifar_records([0], 10, 2), cifar_records([7], 10, 3)],
                                       num_classes=10),
        "c10_expect_flat": cifar_input([cifar_records([5], 10, 4)], expect=(3072,)),
        "c100_fine": cifar_input([cifar_records([(19, 99), (0, 0)], 100, 5)], cifar100=True),
        "c100_coarse": cifar_input([cifar_records([(19, 99)], 100, 6)], cifar100=True,
                                   coarse=True, num_classes=20),
        "bad_partial_record": cifar_input([two[:-1]]),
        "bad_empty_file": cifar_input([cifar_records([1], 10, 7), b""]),
        "bad_label_10": cifar_input([cifar_records([10], 10, 8)]),
        "bad_num_classes": cifar_input([two], num_classes=11),
        "bad_no_files": cifar_input([]),
    }


# ---- npy --------------------------------------------------------------------------------------
def npy(array, version=None):
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.asarray(array), version=version, allow_pickle=False)
    return buffer.getvalue()


def npy_raw(header, data=b""):
    """A version 1.0 file around a hand-written header dict."""
    text = header.encode("latin1")
    pad = (64 - (10 + len(text) + 1) % 64) % 64
    text += b" " * pad + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text + data


def npy_corpus():
    rng = np.random.default_rng(3)
    f4 = rng.standard_normal((3, 2, 2)).astype("<f4")
    labels = np.array([2, 0, 1], dtype="<i8")
    nan = f4.copy()
    nan[2, 1, 1] = np.inf
    return {
        "f4_labels_i8": two_files(npy(f4), npy(labels)),
        "f8_labels_u1_v2": two_files(npy(f4.astype("<f8"), (2, 0)),
                                     npy(labels.astype("|u1"), (2, 0)), num_classes=3),
        "u1_labels_i4_v3": two_files(npy(np.arange(6, dtype="|u1").reshape(3, 2), (3, 0)),
                                     npy(labels.astype("<i4"))),
        "i1_1d_labels_i1": two_files(npy(np.array([-1, 0, 1], dtype="|i1")),
                                     npy(labels.astype("|i1")), expect=(1,)),
        "i2_labels_i2": two_files(npy(np.array([[1, -2], [3, 4], [5, 6]], dtype="<i2")),
                                  npy(labels.astype("<i2")), expect=(1, 1, 2)),
        "i4_expect_flat": two_files(npy(np.arange(12, dtype="<i4").reshape(3, 2, 2)),
                                    npy(labels), expect=(4,)),
        "regression_f4": two_files(npy(f4), npy(rng.standard_normal((3, 2)).astype("<f4"))),
        "regression_f8_1d": two_files(npy(np.arange(3, dtype="<i8")),
                                      npy(np.array([0.5, 1.5, -2.0], dtype="<f8"))),
        "inf_rejected": two_files(npy(nan), npy(labels)),
        "inf_allowed": two_files(npy(nan), npy(labels), allow_non_finite=True),
        "python2_long_shape": two_files(
            npy_raw("{'descr': '|u1', 'fortran_order': False, 'shape': (2L, 1L), }", b"\1\2"),
            npy_raw("{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", b"\0\1")),
        "bad_big_endian": two_files(npy(f4.astype(">f4")), npy(labels)),
        "bad_fortran": two_files(npy(np.asfortranarray(f4)), npy(labels)),
        "bad_structured": two_files(
            npy_raw("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }"),
            npy(labels)),
        "bad_scalar": two_files(npy(np.float32(1.0)), npy(labels)),
        "bad_zero_dim": two_files(npy(np.zeros((3, 0), dtype="<f4")), npy(labels)),
        "bad_duplicate_key": two_files(
            npy_raw("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,), }"),
            npy(labels)),
        "bad_truncated": two_files(npy(f4)[:-3], npy(labels)),
        "bad_overflow_shape": two_files(
            npy_raw("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 3), }"),
            npy(labels)),
        "bad_one_hot_labels": two_files(npy(f4), npy(np.eye(3, dtype="<i4"))),
        "bad_label_count": two_files(npy(f4), npy(labels[:2])),
    }


# ---- CSV --------------------------------------------------------------------------------------
def csv_input(text, delimiter=",", header=0, regression=False, column=None, **opts):
    """header: 0 detect, 1 present, 2 absent. column: None (last), an int index or a name."""
    bits = header | (4 if regression else 0)
    out = options(target_bits=bits, **opts) + delimiter.encode()
    if column is None:
        out += b"\0"
    elif isinstance(column, str):
        out += b"\1" + bytes([len(column)]) + column.encode()
    else:
        out += bytes([column + 3])
    return out + text.encode()


def csv_corpus():
    return {
        "header_detected": csv_input("x,y,label\n0.5,1e-3,1\n-2,3.25,0\n"),
        "no_header_crlf": csv_input("1,2,3,0\r\n4,5,6,2\r\n\r\n7,8,9,1\r\n", header=2,
                                    num_classes=3),
        "label_by_name": csv_input("label; a; b\n1; 2.5; \"3\"\n0; -1; +4\n", delimiter=";",
                                   column="label"),
        "label_by_index": csv_input("\"a\",\"b\",\"c\"\n1,0,2\n3,1,4\n", column=1, header=1),
        "regression": csv_input("a,b,target\n1,2,0.5\n3,4,-1.25e2\n", regression=True,
                                expect=(1, 2)),
        "tab_like_pipe": csv_input("1|2|0\n3|4|1\n", delimiter="|", expect=(2,)),
        "blank_lines": csv_input("\n  \n1,2,0\n\n3,4,1\n  \t\n"),
        "nan_allowed": csv_input("nan,inf,0\n1,-inf,1\n", allow_non_finite=True, header=2),
        "bad_nan": csv_input("a,b,c\nnan,1,0\n"),
        "bad_ragged": csv_input("1,2,0\n1,2,3,0\n"),
        "bad_negative_label": csv_input("1,2,-1\n"),
        "bad_float_label": csv_input("1,2,0.5\n"),
        "bad_not_a_number": csv_input("1,2,0\nx,2,0\n"),
        "bad_one_column": csv_input("1\n2\n"),
        "bad_header_only": csv_input("a,b,label\n"),
        "bad_missing_name": csv_input("a,b\n1,2\n", column="label"),
        "bad_space_delimiter": csv_input("1 2 0\n", delimiter=" "),
        "bad_label_range": csv_input("1,2,7\n", num_classes=5),
        "bad_overflow_f32": csv_input("1e39,2,0\n"),
        "utf8_error_column": csv_input("a,b,label\n\u00e9\u00e9,2,0\n"),
    }


# ---- safetensors ------------------------------------------------------------------------------
def safetensors(tensors, metadata=None, raw_header=None, extra=b""):
    """tensors: name -> (dtype, shape, bytes), laid out in the order given."""
    header, data, offset = {}, b"", 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, (dtype, shape, payload) in tensors.items():
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [offset, offset + len(payload)]}
        data += payload
        offset += len(payload)
    text = raw_header if raw_header is not None else json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + data + extra


def safetensors_corpus():
    f32 = np.arange(6, dtype="<f4").tobytes()
    checkpoint = {
        "staticnet.format_version": "1", "staticnet.step": "1234", "staticnet.epoch": "7",
        "staticnet.rng_state": "00ff10ab",
        "staticnet.data_order.epoch_seed": "18446744073709551615",
        "staticnet.data_order.index_in_epoch": "96", "user.comment": "kept",
    }
    dtypes = {
        "f64": ("F64", (2,), np.array([1.5, -0.0], dtype="<f8").tobytes()),
        "f32": ("F32", (2, 3), f32),
        "f16": ("F16", (2,), np.array([1.0, 65504.0], dtype="<f2").tobytes()),
        "bf16": ("BF16", (1,), b"\x80\x3f"),
        "i64": ("I64", (1,), struct.pack("<q", -(2**63))),
        "i32": ("I32", (1, 1), struct.pack("<i", 7)),
        "i16": ("I16", (2,), struct.pack("<hh", -1, 1)),
        "i8": ("I8", (1,), b"\x80"),
        "u8": ("U8", (3,), b"\0\1\xff"),
        "bool": ("BOOL", (2,), b"\1\0"),
        "scalar": ("F32", (), struct.pack("<f", 42.5)),
        "empty": ("F32", (0, 3), b""),
    }
    out = {
        "all_dtypes": safetensors(dtypes, metadata={"format": "pt", "unicode": "h\u00e9llo"}),
        "checkpoint": safetensors({"fc.weight": ("F32", (2, 3), f32),
                                   "optimizer.adam.m.fc.weight": ("F32", (2, 3), f32)},
                                  metadata=checkpoint),
        "empty_header": safetensors({}, raw_header=b"{}"),
        "bad_checkpoint_hex": safetensors({"w": ("U8", (1,), b"\0")},
                                          metadata=dict(checkpoint, **{
                                              "staticnet.rng_state": "0g"})),
        "bad_checkpoint_version": safetensors({}, metadata=dict(checkpoint, **{
            "staticnet.format_version": "2"})),
        "bad_overlap": safetensors({}, raw_header=(
            b'{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},'
            b'"b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}}'), extra=b"xyz"),
        "bad_hole": safetensors({}, raw_header=(
            b'{"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}'), extra=b"xy"),
        "bad_duplicate": safetensors({}, raw_header=(
            b'{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},'
            b'"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}'), extra=b"x"),
        "bad_size_mismatch": safetensors({}, raw_header=(
            b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}'), extra=b"abcd"),
        "bad_shape_overflow": safetensors({}, raw_header=(
            b'{"a":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,0]}}')),
        "bad_dtype": safetensors({"a": ("F8_E4M3", (1,), b"\0")}),
        "bad_metadata_value": safetensors({}, metadata={"k": 1}),
        "bad_deep": safetensors({}, raw_header=b'{"a":' + b"[" * 40 + b"]" * 40 + b"}"),
        "bad_trailing": safetensors({"a": ("U8", (1,), b"\0")}, extra=b"\0"),
        "bad_header_length": struct.pack("<Q", 2**63) + b"{}",
        "bad_not_json": safetensors({}, raw_header=b'{"a":tru}'),
    }
    return out


def main():
    corpora = {"idx": idx_corpus(), "cifar": cifar_corpus(), "npy": npy_corpus(),
               "csv": csv_corpus(), "safetensors": safetensors_corpus()}
    for target, seeds in corpora.items():
        directory = CORPUS / target
        directory.mkdir(parents=True, exist_ok=True)
        for old in directory.iterdir():
            if not old.name.startswith("regression-"):
                old.unlink()
        for name, data in seeds.items():
            (directory / name).write_bytes(data)
        print(f"{directory.relative_to(HERE.parent.parent.parent)}: {len(seeds)} seeds, "
              f"{sum(len(d) for d in seeds.values())} bytes")


if __name__ == "__main__":
    main()

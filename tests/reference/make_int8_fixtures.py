#!/usr/bin/env python3
"""TensorFlow Lite int8 reference-kernel fixtures (tests/reference/int8/*.json).

What it makes
-------------
For each case below this builds a one-op tf.function model (float32, NHWC, batch 1), converts
it with full-integer post-training quantization (Optimize.DEFAULT, TFLITE_BUILTINS_INT8, int8
input and output, a seeded random representative dataset whose ranges are not symmetric around
zero, so zero points are nonzero), checks that the converted model holds exactly one operator,
runs it under LiteRT's *reference* kernels (OpResolverType.BUILTIN_REF) on seeded int8 inputs,
and writes tests/reference/int8/<case>_s<seed>.json with the int8 input(s), the int8 output
TFLite produced, the quantization parameters read from the model and, for conv / depthwise /
fully connected, the int8 weights and int32 bias read from the model.

The converter calibrates a fused or standalone ReLU/ReLU6 output to [0, max] / [0, 6], so its
zero point is -128 and the clamp does nothing. The *_clamp cases therefore overwrite the output
tensor's scale / zero point in the converted model before running it (said in their "notes"),
so that activation_min / activation_max actually clamp.

Layouts: activations are NCHW (batch dropped: C, H, W); fully connected activations are flat
(F). Conv2D weights are (O, I, KH, KW) (TFLite: O, KH, KW, I); depthwise weights are
(C, 1, KH, KW) (TFLite: 1, KH, KW, C; depth multiplier 1 only); fully connected weights are
(O, I) (TFLite's own layout). Scales are the model's float32 values written as the exact double
(float(np.float32)), so reading them back into a float gives the same bits.

"padding" is [top, left, bottom, right] as TFLite computes it (tflite/kernels/padding.h):
out = ceil(in / stride) for SAME, (in - k) / stride + 1 for VALID; total = max(0, (out - 1) *
stride + k - in); top/left = total / 2 (the smaller half), bottom/right = total - top. TFLite's
kernels only use top/left and skip taps outside the input.

"activation_min"/"activation_max" follow CalculateActivationRangeQuantized
(tflite/kernels/kernel_util.cc): Quantize(f) = output_zero_point + (int)round(float(f) /
float(output_scale)), the division in float32 and round() half away from zero (TfLiteRound);
NONE: [-128, 127]; RELU: [max(-128, Quantize(0)), 127]; RELU6: [max(-128, Quantize(0)),
min(127, Quantize(6))]. Standalone RELU/RELU6 ops use the same numbers (QuantizedReluX in
activations.cc, with roundf). Pools and MEAN have no fused activation: [-128, 127].

Every fixture is also recomputed here with a numpy port of the reference kernels (double
rounding MultiplyByQuantizedMultiplier, as built by default: TFLITE_SINGLE_ROUNDING unset) and
the script stops if one element differs, so the formulas in check_* below are the ones TFLite
used.

BUILTIN_REF matters: the default resolver (optimized kernels / XNNPACK) gives 1-LSB different
outputs in a few conv / depthwise elements of these same models.

Run (from the repository root; the C++ tests only read the JSON files):
  python3 -m venv /tmp/tfenv && /tmp/tfenv/bin/pip install tensorflow-cpu ai-edge-litert numpy
  /tmp/tfenv/bin/python tests/reference/make_int8_fixtures.py

Made with tensorflow-cpu 2.21.0, ai-edge-litert 2.3.0, numpy 2.4.6, Python 3.11 (the versions
are also written into every fixture). Deterministic: a second run rewrites identical files.
"""
import importlib.metadata
import json
import math
import os
import pathlib
import sys
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
warnings.filterwarnings("ignore")

import flatbuffers  # noqa: E402  (installed with tensorflow)
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from ai_edge_litert import schema_py_generated as schema  # noqa: E402
from ai_edge_litert.interpreter import Interpreter, OpResolverType  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "int8"
SEEDS = (0, 1)
CALIBRATION_SAMPLES = 32
VERSIONS = {
    "tensorflow": tf.__version__,
    "ai_edge_litert": importlib.metadata.version("ai-edge-litert"),
}

OPS = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
ACT = {v: k for k, v in vars(schema.ActivationFunctionType).items() if not k.startswith("_")}
PAD = {v: k for k, v in vars(schema.Padding).items() if not k.startswith("_")}


# ----------------------------------------------------------------------------------------------
# Cases. Shapes are (C, H, W) / (F,); "ranges" are the representative dataset's uniform ranges.

def conv_case(name, cin, cout, hw, k, stride, padding, act, ranges=(-1.0, 3.0)):
    return dict(name=name, op="conv2d", cin=cin, cout=cout, shape=(cin, hw, hw), k=k,
                stride=stride, padding=padding, act=act, ranges=[ranges])


def dw_case(name, c, hw, k, stride, padding, act, ranges=(-2.0, 1.5)):
    return dict(name=name, op="depthwise_conv2d", cin=c, cout=c, shape=(c, hw, hw), k=k,
                stride=stride, padding=padding, act=act, ranges=[ranges])


def fc_case(name, fin, fout, act, ranges=(-0.5, 2.5)):
    return dict(name=name, op="fully_connected", cin=fin, cout=fout, shape=(fin,), act=act,
                ranges=[ranges])


def pool_case(name, op, shape, k, stride, padding, ranges=(-1.0, 3.0)):
    return dict(name=name, op=op, shape=shape, k=k, stride=stride, padding=padding,
                act="NONE", ranges=[ranges])


CASES = [
    conv_case("conv2d_3x3_same_s1_c3_c8", 3, 8, 8, 3, 1, "SAME", "NONE"),
    conv_case("conv2d_3x3_same_s1_c3_c8_relu", 3, 8, 8, 3, 1, "SAME", "RELU"),
    conv_case("conv2d_3x3_same_s1_c8_c16_relu6", 8, 16, 8, 3, 1, "SAME", "RELU6",
              ranges=(-0.5, 4.0)),
    conv_case("conv2d_3x3_same_s2_c8_c16", 8, 16, 10, 3, 2, "SAME", "NONE"),
    conv_case("conv2d_3x3_same_s2_c3_c8_relu", 3, 8, 8, 3, 2, "SAME", "RELU"),
    conv_case("conv2d_1x1_valid_c8_c16", 8, 16, 8, 1, 1, "VALID", "NONE"),
    conv_case("conv2d_5x5_valid_c3_c8", 3, 8, 10, 5, 1, "VALID", "NONE"),
    conv_case("conv2d_5x5_valid_c8_c16_relu", 8, 16, 10, 5, 1, "VALID", "RELU"),
    dw_case("depthwise_conv2d_3x3_same_s1_c8_relu", 8, 8, 3, 1, "SAME", "RELU"),
    dw_case("depthwise_conv2d_3x3_same_s2_c8_relu", 8, 10, 3, 2, "SAME", "RELU"),
    dw_case("depthwise_conv2d_3x3_same_s1_c8", 8, 8, 3, 1, "SAME", "NONE"),
    fc_case("fully_connected_64_10", 64, 10, "NONE"),
    fc_case("fully_connected_32_16_relu", 32, 16, "RELU"),
    pool_case("max_pool_2x2_s2_valid", "max_pool", (8, 8, 8), 2, 2, "VALID"),
    pool_case("max_pool_3x3_s2_same", "max_pool", (8, 8, 8), 3, 2, "SAME"),
    pool_case("avg_pool_2x2_s2_valid", "avg_pool", (8, 8, 8), 2, 2, "VALID"),
    pool_case("avg_pool_3x3_s1_same", "avg_pool", (4, 6, 6), 3, 1, "SAME"),
    # Same input (seed, shape, ranges) as mean_hw: the global average two ways.
    pool_case("avg_pool_global_8x8", "avg_pool", (8, 8, 8), 8, 1, "VALID"),
    dict(name="mean_hw", op="mean", shape=(8, 8, 8), act="NONE", ranges=[(-1.0, 3.0)]),
    dict(name="add", op="add", shape=(4, 6, 6), act="NONE", ranges=[(-1.0, 3.0), (-4.0, 2.0)]),
    dict(name="add_relu", op="add", shape=(4, 6, 6), act="RELU",
         ranges=[(-1.0, 3.0), (-4.0, 2.0)]),
    dict(name="relu", op="relu", shape=(4, 6, 6), act="NONE", ranges=[(-2.0, 3.0)]),
    dict(name="relu6", op="relu6", shape=(4, 6, 6), act="NONE", ranges=[(-2.0, 8.0)]),
]

# The converter calibrates a ReLU/ReLU6 output to [0, max] / [0, 6], so it gives zero point -128
# and the fused clamp is a no-op. These variants overwrite the output tensor's quantization in
# the converted model (scale None: keep the converter's) so that the clamp bites.
OVERRIDES = [
    ("conv2d_3x3_same_s1_c3_c8_relu", dict(scale=None, zero_point=-40)),
    ("conv2d_3x3_same_s1_c8_c16_relu6", dict(scale=0.04, zero_point=-60)),
    ("depthwise_conv2d_3x3_same_s1_c8_relu", dict(scale=None, zero_point=-30)),
    ("fully_connected_32_16_relu", dict(scale=None, zero_point=-50)),
    ("add_relu", dict(scale=None, zero_point=-40)),
    ("relu", dict(scale=None, zero_point=-40)),
    ("relu6", dict(scale=0.04, zero_point=-60)),
]
_BY_NAME = {c["name"]: c for c in CASES}
CASES += [dict(_BY_NAME[n], name=n + "_clamp", override=o) for n, o in OVERRIDES]


# ----------------------------------------------------------------------------------------------
# Models (float32, NHWC, batch 1)

def channel_spread(rng, n):
    """Per-output-channel standard deviations spread over a decade, so per-channel scales differ."""
    return np.exp(rng.uniform(np.log(0.03), np.log(0.5), size=n)).astype(np.float32)


def build(case, seed):
    rng = np.random.default_rng([seed, 0])
    op, act = case["op"], case["act"]
    activation = {"NONE": tf.identity, "RELU": tf.nn.relu, "RELU6": tf.nn.relu6}[act]
    if op == "fully_connected":
        in_specs = [tf.TensorSpec([1, case["cin"]], tf.float32, name="x")]
    else:
        c, h, w = case["shape"]
        names = ["x", "y"][:len(case["ranges"])]
        in_specs = [tf.TensorSpec([1, h, w, c], tf.float32, name=n) for n in names]

    if op == "conv2d":
        k, cin, cout = case["k"], case["cin"], case["cout"]
        wts = (rng.standard_normal((k, k, cin, cout)) * channel_spread(rng, cout)).astype(np.float32)
        bias = (rng.standard_normal(cout) * 0.3).astype(np.float32)
        wts, bias = tf.constant(wts), tf.constant(bias)

        def fn(x):
            y = tf.nn.conv2d(x, wts, strides=case["stride"], padding=case["padding"])
            return activation(tf.nn.bias_add(y, bias))
    elif op == "depthwise_conv2d":
        k, c = case["k"], case["cin"]
        wts = (rng.standard_normal((k, k, c, 1)) * channel_spread(rng, c)[:, None]).astype(np.float32)
        bias = (rng.standard_normal(c) * 0.3).astype(np.float32)
        wts, bias = tf.constant(wts), tf.constant(bias)
        s = case["stride"]

        def fn(x):
            y = tf.nn.depthwise_conv2d(x, wts, strides=[1, s, s, 1], padding=case["padding"])
            return activation(tf.nn.bias_add(y, bias))
    elif op == "fully_connected":
        fin, fout = case["cin"], case["cout"]
        wts = (rng.standard_normal((fin, fout)) * channel_spread(rng, fout)).astype(np.float32)
        bias = (rng.standard_normal(fout) * 0.3).astype(np.float32)
        wts, bias = tf.constant(wts), tf.constant(bias)

        def fn(x):
            return activation(tf.matmul(x, wts) + bias)
    elif op == "max_pool":
        def fn(x):
            return tf.nn.max_pool2d(x, case["k"], case["stride"], case["padding"])
    elif op == "avg_pool":
        def fn(x):
            return tf.nn.avg_pool2d(x, case["k"], case["stride"], case["padding"])
    elif op == "mean":
        def fn(x):
            return tf.reduce_mean(x, axis=[1, 2], keepdims=True)
    elif op == "add":
        def fn(x, y):
            return activation(x + y)
    elif op == "relu":
        def fn(x):
            return tf.nn.relu(x)
    elif op == "relu6":
        def fn(x):
            return tf.nn.relu6(x)
    else:
        raise ValueError(op)
    return tf.function(fn, input_signature=in_specs), in_specs


def convert(fn, in_specs, ranges, seed):
    concrete = fn.get_concrete_function()
    converter = tf.lite.TFLiteConverter.from_concrete_functions([concrete], fn)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    converter.inference_input_type = tf.int8
    converter.inference_output_type = tf.int8

    def representative_dataset():
        rng = np.random.default_rng([seed, 1])
        for _ in range(CALIBRATION_SAMPLES):
            yield [rng.uniform(lo, hi, size=spec.shape).astype(np.float32)
                   for spec, (lo, hi) in zip(in_specs, ranges)]

    converter.representative_dataset = representative_dataset
    return converter.convert()


def override_output_quantization(model, scale, zero_point):
    """Rewrites the (single) output tensor's scale / zero point in a converted model."""
    mt = schema.ModelT.InitFromPackedBuf(model, 0)
    sub = mt.subgraphs[0]
    q = sub.tensors[sub.outputs[0]].quantization
    assert len(q.scale) == 1 and len(q.zeroPoint) == 1
    if scale is not None:
        q.scale = [float(np.float32(scale))]
    q.zeroPoint = [int(zero_point)]
    builder = flatbuffers.Builder(0)
    builder.Finish(mt.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


# ----------------------------------------------------------------------------------------------
# Helpers

def f32(x):
    """The exact double of a float32 (json writes it with repr, which round-trips)."""
    return float(np.float32(x))


def tflite_round(x):
    """std::round: half away from zero (x is a float32 value held as a double: exact)."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def quantize_f(f, scale, zero_point):
    """kernel_util.cc Quantize(): zero_point + (int)TfLiteRound(float(f) / float(scale))."""
    return zero_point + tflite_round(float(np.float32(f) / np.float32(scale)))


def activation_range(act, scale, zero_point):
    if act == "NONE":
        return -128, 127
    lo = max(-128, quantize_f(0.0, scale, zero_point))
    if act == "RELU":
        return lo, 127
    if act == "RELU6":
        return lo, min(127, quantize_f(6.0, scale, zero_point))
    raise ValueError(act)


def padding_explicit(padding, in_hw, k, stride):
    pads = []
    for n in in_hw:
        out = (n + stride - 1) // stride if padding == "SAME" else (n - k) // stride + 1
        total = max(0, (out - 1) * stride + k - n)
        pads.append((total // 2, total - total // 2))
    (top, bottom), (left, right) = pads
    return [top, left, bottom, right]


def qparams(detail):
    q = detail["quantization_parameters"]
    return [f32(s) for s in q["scales"]], [int(z) for z in q["zero_points"]], int(q["quantized_dimension"])


def single_scale(detail):
    scales, zps, _ = qparams(detail)
    assert len(scales) == 1 and len(zps) == 1, detail["name"]
    return scales[0], zps[0]


def nhwc_to_chw(a):
    a = np.asarray(a)
    assert a.shape[0] == 1
    return a[0].transpose(2, 0, 1)


def ints(a):
    return [int(v) for v in np.asarray(a).reshape(-1)]


# ----------------------------------------------------------------------------------------------
# numpy port of the reference kernels (used only to check the fixture)

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def quantize_multiplier(d):
    """quantization_util.cc QuantizeMultiplier (double rounding build)."""
    if d == 0.0:
        return 0, 0
    q, shift = math.frexp(d)
    q_fixed = tflite_round(q * (1 << 31))
    if q_fixed == (1 << 31):
        q_fixed //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    return q_fixed, shift


def srdhm(a, b):
    """gemmlowp SaturatingRoundingDoublingHighMul (int32 x int32)."""
    a = np.asarray(a, dtype=np.int64)
    ab = a * np.int64(b)
    nudge = np.where(ab >= 0, np.int64(1 << 30), np.int64(1 - (1 << 30)))
    v = ab + nudge
    hi = np.where(v >= 0, v >> 31, -((-v) >> 31))  # C++ division truncates toward zero
    return np.where((a == INT32_MIN) & (b == INT32_MIN), INT32_MAX, hi)


def rdbpot(x, exponent):
    """gemmlowp RoundingDivideByPOT."""
    x = np.asarray(x, dtype=np.int64)
    mask = (1 << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (x < 0)
    return (x >> exponent) + (remainder > threshold)


def mbqm(x, multiplier, shift):
    """common.cc MultiplyByQuantizedMultiplier(int32 x, ...), double rounding."""
    left, right = max(shift, 0), max(-shift, 0)
    x = np.asarray(x, dtype=np.int64) * (1 << left)
    assert np.all((x >= INT32_MIN) & (x <= INT32_MAX))
    return rdbpot(srdhm(x, multiplier), right)


def c_div(a, n):
    """C++ integer division (truncates toward zero)."""
    return np.where(a >= 0, a // n, -((-a) // n))


def check_conv(fx, depthwise):
    x = np.array(fx["input"], np.int64).reshape(fx["input_shape"]) - fx["input_zero_point"]
    cout = fx["output_shape"][0]
    kh, kw = fx["kernel"]
    sh, sw = fx["stride"]
    top, left, bottom, right = fx["padding"]
    w = np.array(fx["weights"], np.int64).reshape(cout, -1, kh, kw)
    xp = np.pad(x, ((0, 0), (top, bottom), (left, right)))  # padded taps add 0 (skipped)
    _, oh, ow = fx["output_shape"]
    acc = np.zeros((cout, oh, ow), np.int64)
    for ky in range(kh):
        for kx in range(kw):
            patch = xp[:, ky:ky + sh * (oh - 1) + 1:sh, kx:kx + sw * (ow - 1) + 1:sw]
            if depthwise:
                acc += w[:, 0, ky, kx][:, None, None] * patch
            else:
                acc += np.einsum("oc,chw->ohw", w[:, :, ky, kx], patch)
    acc += np.array(fx["bias"], np.int64)[:, None, None]
    return requantize_per_channel(fx, acc)


def requantize_per_channel(fx, acc):
    out = np.empty_like(acc)
    for o in range(acc.shape[0]):
        real = fx["input_scale"] * fx["weight_scales"][o] / fx["output_scale"]
        m, s = quantize_multiplier(real)
        out[o] = mbqm(acc[o], m, s)
    out += fx["output_zero_point"]
    return np.clip(out, fx["activation_min"], fx["activation_max"])


def check_fc(fx):
    x = np.array(fx["input"], np.int64) - fx["input_zero_point"]
    w = np.array(fx["weights"], np.int64).reshape(fx["output_shape"][0], -1)
    acc = w @ x + np.array(fx["bias"], np.int64)
    return requantize_per_channel(fx, acc)


def check_pool(fx, kind):
    x = np.array(fx["input"], np.int64).reshape(fx["input_shape"])
    c, h, w = fx["input_shape"]
    _, oh, ow = fx["output_shape"]
    kh, kw = fx["kernel"]
    sh, sw = fx["stride"]
    top, left = fx["padding"][:2]
    out = np.empty((c, oh, ow), np.int64)
    for oy in range(oh):
        for ox in range(ow):
            y0, x0 = oy * sh - top, ox * sw - left
            win = x[:, max(0, y0):min(h, y0 + kh), max(0, x0):min(w, x0 + kw)].reshape(c, -1)
            if kind == "max":
                out[:, oy, ox] = win.max(axis=1)
            else:  # raw int8 sum over in-bounds taps, rounded half away from zero
                n = win.shape[1]
                acc = win.sum(axis=1)
                out[:, oy, ox] = np.where(acc > 0, c_div(acc + n // 2, n), c_div(acc - n // 2, n))
    return np.clip(out, fx["activation_min"], fx["activation_max"])


def check_mean(fx):
    x = np.array(fx["input"], np.int64).reshape(fx["input_shape"])
    c, h, w = fx["input_shape"]
    n = h * w
    m, s = quantize_multiplier(fx["input_scale"] / fx["output_scale"])
    shift = min(n.bit_length() - 1, 32, 31 + s)
    m = (m << shift) // n
    s -= shift
    shifted_sum = x.reshape(c, -1).sum(axis=1) - fx["input_zero_point"] * n
    out = mbqm(shifted_sum, m, s) + fx["output_zero_point"]
    return np.clip(out, -128, 127).reshape(c, 1, 1)


def check_add(fx):
    s1, s2, so = fx["input_scale"], fx["input2_scale"], fx["output_scale"]
    left_shift = 20
    twice_max = 2 * max(s1, s2)  # float32 * 2 is exact
    m1, sh1 = quantize_multiplier(s1 / twice_max)
    m2, sh2 = quantize_multiplier(s2 / twice_max)
    mo, sho = quantize_multiplier(twice_max / ((1 << left_shift) * so))
    a = (np.array(fx["input"], np.int64) - fx["input_zero_point"]) * (1 << left_shift)
    b = (np.array(fx["input2"], np.int64) - fx["input2_zero_point"]) * (1 << left_shift)
    raw = mbqm_smaller_than_one(a, m1, sh1) + mbqm_smaller_than_one(b, m2, sh2)
    out = mbqm_smaller_than_one(raw, mo, sho) + fx["output_zero_point"]
    return np.clip(out, fx["activation_min"], fx["activation_max"])


def mbqm_smaller_than_one(x, multiplier, left_shift):
    """common.h MultiplyByQuantizedMultiplierSmallerThanOneExp (left_shift <= 0)."""
    assert left_shift <= 0
    return rdbpot(srdhm(x, multiplier), -left_shift)


def check_relu(fx):
    # ReluPrepare: real_multiplier = input_scale / output_scale, divided in float32.
    real = float(np.float32(fx["input_scale"]) / np.float32(fx["output_scale"]))
    m, s = quantize_multiplier(real)
    x = np.array(fx["input"], np.int64) - fx["input_zero_point"]
    out = mbqm(x, m, s) + fx["output_zero_point"]
    return np.clip(out, fx["activation_min"], fx["activation_max"])


def check(fx):
    op = fx["op"]
    if op in ("conv2d", "depthwise_conv2d"):
        want = check_conv(fx, op == "depthwise_conv2d")
    elif op == "fully_connected":
        want = check_fc(fx)
    elif op in ("max_pool", "avg_pool"):
        want = check_pool(fx, op[:3])
    elif op == "mean":
        want = check_mean(fx)
    elif op == "add":
        want = check_add(fx)
    else:
        want = check_relu(fx)
    got = np.array(fx["output"], np.int64)
    want = np.asarray(want, np.int64).reshape(-1)
    bad = np.flatnonzero(got != want)
    return bad.size, got.size


# ----------------------------------------------------------------------------------------------
# One fixture

def make(case, seed):
    fn, in_specs = build(case, seed)
    model = convert(fn, in_specs, case["ranges"], seed)
    override = case.get("override")
    if override:
        model = override_output_quantization(model, **override)
    interp = Interpreter(model_content=model,
                         experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    interp.allocate_tensors()

    ops = interp._get_ops_details()
    assert len(ops) == 1, [o["op_name"] for o in ops]
    op_detail = ops[0]
    tensors = {d["index"]: d for d in interp.get_tensor_details()}
    sub = schema.ModelT.InitFromPackedBuf(model, 0).subgraphs[0]
    assert len(sub.operators) == 1
    options = sub.operators[0].builtinOptions

    # Inputs, in the order of the function's arguments (x, y).
    in_details = sorted(interp.get_input_details(), key=lambda d: d["name"])
    assert [d["name"] for d in in_details] == [s.name for s in in_specs], in_details
    rng = np.random.default_rng([seed, 2])
    op = case["op"]
    fx = {"op": op, "tflite_op": op_detail["op_name"], "versions": VERSIONS}
    chw = case["shape"]
    inputs = []
    for d in in_details:
        assert d["dtype"] == np.int8
        x = rng.integers(-128, 128, size=chw, dtype=np.int64).astype(np.int8)
        inputs.append(x)
        interp.set_tensor(d["index"], x[None] if len(chw) == 1 else x.transpose(1, 2, 0)[None])
    interp.invoke()
    out_detail = interp.get_output_details()[0]
    assert out_detail["dtype"] == np.int8
    y = interp.get_tensor(out_detail["index"])
    y = y.reshape(-1) if len(chw) == 1 else nhwc_to_chw(y)

    in_scale, in_zp = single_scale(in_details[0])
    out_scale, out_zp = single_scale(out_detail)
    fx["input_shape"] = list(chw)
    fx["output_shape"] = list(y.shape)
    fx["input"] = ints(inputs[0])
    fx["input_scale"], fx["input_zero_point"] = in_scale, in_zp
    if op == "add":
        fx["input2"] = ints(inputs[1])
        fx["input2_scale"], fx["input2_zero_point"] = single_scale(in_details[1])
    fx["output"] = ints(y)
    fx["output_scale"], fx["output_zero_point"] = out_scale, out_zp

    act = case["act"]
    if op in ("conv2d", "depthwise_conv2d", "fully_connected", "add"):
        act = ACT[options.fusedActivationFunction]
        assert act == case["act"], (act, case["act"])
        fx["fused_activation"] = act
    range_act = {"relu": "RELU", "relu6": "RELU6"}.get(op, act)
    fx["activation_min"], fx["activation_max"] = activation_range(range_act, out_scale, out_zp)

    notes = []
    if override:
        notes.append("output quantization overwritten after conversion (%s zero point %d) so "
                     "the activation clamp is not a no-op; the converter itself gives zero "
                     "point -128 here." % (
                         "scale and" if override["scale"] is not None else "converter's scale,",
                         override["zero_point"]))
    if op in ("conv2d", "depthwise_conv2d", "fully_connected"):
        w_detail = tensors[op_detail["inputs"][1]]
        b_detail = tensors[op_detail["inputs"][2]]
        assert w_detail["dtype"] == np.int8 and b_detail["dtype"] == np.int32
        w = interp.get_tensor(w_detail["index"])
        scales, zps, qdim = qparams(w_detail)
        assert all(z == 0 for z in zps), zps
        cout = case["cout"]
        if op == "conv2d":
            assert qdim == 0
            w = w.transpose(0, 3, 1, 2)  # OHWI -> OIHW
        elif op == "depthwise_conv2d":
            assert qdim == 3 and options.depthMultiplier == 1
            w = w.transpose(3, 0, 1, 2)  # 1HWC -> C1HW
        else:
            assert qdim == 0
        assert w.shape[0] == cout
        if len(scales) == 1:
            scales = scales * cout
            fx["per_tensor_weights"] = True
        assert len(scales) == cout
        fx["weights"] = ints(w)
        fx["weight_scales"] = scales
        fx["bias"] = ints(interp.get_tensor(b_detail["index"]))
        if op == "fully_connected":
            fx["kernel"], fx["stride"], fx["padding"] = [1, 1], [1, 1], [0, 0, 0, 0]
            notes.append("kernel/stride/padding/dilation are placeholders for fully_connected.")
        else:
            k, s = case["k"], case["stride"]
            assert (options.strideH, options.strideW) == (s, s)
            assert (options.dilationHFactor, options.dilationWFactor) == (1, 1)
            assert PAD[options.padding] == case["padding"]
            fx["kernel"], fx["stride"] = [k, k], [s, s]
            fx["padding"] = padding_explicit(case["padding"], chw[1:], k, s)
        fx["dilation"] = [1, 1]
    elif op in ("max_pool", "avg_pool"):
        k, s = case["k"], case["stride"]
        assert (options.filterHeight, options.filterWidth) == (k, k)
        assert (options.strideH, options.strideW) == (s, s)
        assert PAD[options.padding] == case["padding"]
        assert ACT[options.fusedActivationFunction] == "NONE"
        fx["kernel"], fx["stride"] = [k, k], [s, s]
        fx["padding"] = padding_explicit(case["padding"], chw[1:], k, s)
        notes.append("int8 pooling keeps output scale/zero point equal to the input's; "
                     "avg_pool averages the raw int8 values (no zero-point subtraction).")
        if op == "avg_pool":
            notes.append("avg_pool divides by the number of in-bounds taps (padded taps are not "
                         "counted): acc > 0 ? (acc + n/2)/n : (acc - n/2)/n, C++ truncating "
                         "division (round half away from zero).")
    elif op == "mean":
        axis = interp.get_tensor(op_detail["inputs"][1])
        assert sorted(ints(axis)) == [1, 2] and options.keepDims
        notes.append("MEAN over H, W with keep_dims; its output has its own calibrated scale "
                     "(avg_pool_global_8x8 with the same seed has the same input and keeps the "
                     "input's quantization).")
    elif op in ("relu", "relu6"):
        same = in_scale == out_scale and in_zp == out_zp
        notes.append("standalone %s: input and output quantization are %s; the kernel "
                     "requantizes with MultiplyByQuantizedMultiplier(x - input_zp, M, shift) + "
                     "output_zp, M from float32(input_scale / output_scale), then clamps to "
                     "[activation_min, activation_max]."
                     % (op.upper(), "equal" if same else "different"))
    if op == "add":
        notes.append("inputs have different scales; ADD rescales each input (left_shift 20).")
    if notes:
        fx["notes"] = " ".join(notes)

    bad, total = check(fx)
    if bad:
        sys.exit(f"{case['name']} seed {seed}: numpy port differs in {bad}/{total} elements")
    return fx


def dump(fx):
    lines = [f"  {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in fx.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for case in CASES:
        for seed in SEEDS:
            fx = make(case, seed)
            path = OUT / f"{case['name']}_s{seed}.json"
            path.write_text(dump(fx))
            path.chmod(0o644)
            print(f"{path.relative_to(HERE.parent.parent)}: {fx['tflite_op']}, "
                  f"out {fx['output_shape']}, scale {fx['input_scale']:.6g} -> "
                  f"{fx['output_scale']:.6g}, zp {fx['input_zero_point']} -> "
                  f"{fx['output_zero_point']}, matches numpy port")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""TensorFlow Lite post-training quantizer fixtures (tests/reference/int8_quantizer/<model>/).

What it makes
-------------
For each of the three small Keras models of make_int8_model_fixtures.py (digits_cnn, residual,
ds_block; same layers, same seeded randomize(), but every BatchNormalization built with
epsilon=1e-5, staticnet's BatchNorm2d<> epsilon, so the float Keras model and the float
staticnet model are the same function) this writes the float model, the calibration set the
TFLite converter was given, and what the converter made of them, so that a C++ test can check
that staticnet's int8 quantizer computes the same scales, zero points, int8 weights and int32
biases from the same float weights and calibration samples:

  tests/reference/int8_quantizer/<model>/weights.safetensors
      The Keras model's FLOAT weights as a staticnet / PyTorch state dict, all float32 (F32),
      header metadata {} (empty). Names are "<layer index>.<param>", the layer index being the
      `#` column of staticnet's layer table (build/.../int8_<model>_model.h, "Layers, and the
      schedule"; the twins are tests/int8/int8_models.hpp):
        Conv2d           "<i>.weight" (O, I, KH, KW), "<i>.bias" (O) unless the layer has NoBias
        DepthwiseConv2d  "<i>.weight" (C, 1, KH, KW), no bias here (ds_block's use_bias=False)
        BatchNorm2d      "<i>.weight" (gamma), "<i>.bias" (beta), "<i>.running_mean",
                         "<i>.running_var" (all (C); staticnet's epsilon 1e-5)
        Linear           "<i>.weight" (O, I), "<i>.bias" (O). When the Linear follows a Flatten
                         of a 4D tensor its columns are PERMUTED to NCHW-flatten order:
                         W[o, c*H*W + h*W + w] = W_keras[h*W*C + w*C + c, o]
                         (Keras flattens NHWC as (H, W, C); staticnet flattens (C, H, W)).
      Layer indices: digits_cnn conv 0, bn 1, linear 5; residual conv 0, bn 1, conv 3, bn 4,
      linear 9; ds_block depthwise 0, bn 1, conv 3, bn 4, linear 8.
      Tensors are stored in that order, contiguous, the JSON header padded with spaces to a
      multiple of 8 bytes (written by hand: no safetensors package needed).

  tests/reference/int8_quantizer/<model>/calibration.npy
      float32 (64, C, H, W), NCHW: the representative dataset, in the order the converter's
      representative_dataset generator yielded it (each sample transposed to NHWC (1, H, W, C)
      when yielded, nothing else). Seeded uniform over a range not symmetric around zero:
      digits_cnn [-0.5, 2.0), residual [-1.0, 3.0), ds_block [-2.0, 1.5).

  tests/reference/int8_quantizer/<model>/evaluation.npy
      float32 (16, C, H, W), NCHW: 16 further samples from the same distribution (other seed).

  tests/reference/int8_quantizer/<model>/tflite.json
      What the converter made, in the per-op format of tests/reference/int8_models/*.json (see
      make_int8_model_fixtures.py's docstring: "ops" in execution order with "op", "tflite_op",
      shapes, "input_scale" / "input_zero_point" / "output_scale" / "output_zero_point",
      "activation_min" / "activation_max"; conv / depthwise / fully connected with int8
      "weights" (PyTorch layout, the FC after a flatten permuted to NCHW order as above),
      per-channel "weight_scales", int32 "bias", "kernel", "stride", "padding", "dilation",
      "fused_activation"; add with "input2_scale" / "input2_zero_point" / "input*_source"; mean
      with "axes" / "keep_dims"), and the model's "input_scale" / "input_zero_point" /
      "output_scale" / "output_zero_point". Added here:
        "calibrated_range" per op: [min, max] the converter's calibration recorded for that op's
            output tensor (read from the same conversion run with _experimental_calibrate_only;
            float32 values written as exact doubles); "input_calibrated_range" likewise for the
            model input. They show which range each scale came from (see "notes").
        "input_quantization_rule": how "evaluation_inputs_int8" were computed.
        "evaluation_inputs_int8": per evaluation sample, the int8 input, NCHW flattened:
            q = clamp(round_half_away_from_zero(float32(x) / float32(input_scale))
                      + input_zero_point, -128, 127), the division in float32
            (reference_ops::AffineQuantize, TFLite's QUANTIZE kernel; cross-checked here against
            the QUANTIZE op of the same model converted with a float32 input).
        "evaluation_outputs": per evaluation sample, the int8 output vector TFLite's interpreter
            produced with the REFERENCE kernels (OpResolverType.BUILTIN_REF) on that input.
        "tflm_evaluation_outputs": per evaluation sample, the int8 output vector TensorFlow Lite
            MICRO's interpreter (the tflite-micro wheel's tflite_micro.runtime.Interpreter:
            TFLM's reference kernels, no CMSIS-NN) produced on the same int8 input from the same
            flatbuffer. It differs from "evaluation_outputs" only where the two interpreters'
            FULLY_CONNECTED requantizations round differently (see "FC requantization" below and
            the note in "notes" that counts the differing bytes).
        "versions", "notes" (a list: where each scale came from, the FC rounding, how the int8
            weights / biases compare with a plain numpy quantization of the folded float
            weights), "calibration_samples", "evaluation_samples", "bn_epsilon".

FC requantization in the two interpreters (measured outside this script: single-op int8 models,
per-channel weights as TF 2.21's converter makes them, batched input, scales overridden to
dyadic values (and dyadic values one float32 ulp up) so that exact ties and first-rounding
carries occur, outputs compared with int64 accumulators recomputed in numpy from the int8
input; every mismatch count below is over all outputs of that op kind):
  (A) MultiplyByQuantizedMultiplier, double rounding: RoundingDivideByPOT(
      SaturatingRoundingDoublingHighMul(acc << left_shift, M), right_shift), M / shift from
      QuantizeMultiplier(double(in_scale) * double(w_scale[o]) / double(out_scale));
  (B) single rounding: (int64(acc) * M + 2^(30 - shift)) >> (31 - shift);
  (D) round_half_away_from_zero(double(acc) * (double(in_scale) * double(w_scale[o]) /
      double(out_scale))).
  TFLM (tflite-micro 0.dev20261023182759, git 8f6596d) FULLY_CONNECTED is (A): over 5,505,024
  outputs (3 models: 48->64, 48->64 ReLU, 256->32; 6 scale settings each) it mismatches (A) 0,
  (B) 25,758, (D) 24,863 times. Its CONV_2D (1,966,080 outputs) and DEPTHWISE_CONV_2D
  (1,572,864) are (A) too, 0 mismatches (as LiteRT's). LiteRT 2.3 BUILTIN_REF FULLY_CONNECTED on
  the same models and inputs is (D): mismatches (D) 0, (A) 24,863, (B) 895 ((B) and (D) part at
  exact negative ties and where double(real) differs from M * 2^(shift - 31)). On this script's
  three models (B) and (D) give the same outputs on all 80 samples, which is why the check below
  can use (B). The "notes" entry on TFLM counts the evaluation output bytes where
  tflm_evaluation_outputs differs from evaluation_outputs (by 1 LSB each): digits_cnn 0 of
  160, residual 0 of 48, ds_block 4 of 64 (calibration samples: 1 of 640, 0 of 192, 3 of 256).

Converter settings: make_int8_fixtures.py's convert() exactly (Optimize.DEFAULT,
TFLITE_BUILTINS_INT8, inference_input_type / inference_output_type int8), only with this
script's 64-sample representative dataset.

Checks (the script stops with an error when one fails):
  * the converted ops are the ones make_int8_model_fixtures.py expects (its describe());
  * float: the Keras model (NHWC) and a pure-numpy NCHW float forward pass built from the
    tensors read back from weights.safetensors (conv, BN with eps 1e-5, ReLU, pools, add, mean,
    flatten in (C, H, W) order, linear; nothing folded) agree on the 16 evaluation samples to
    max |diff| < 1e-4: this proves names, layouts and the FC permutation;
  * int8: the numpy port of TFLite's reference kernels (make_int8_model_fixtures.run_chain),
    fed only the fixture's own numbers and the int8 input, reproduces TFLite's output bytes on
    all 64 calibration and 16 evaluation samples. Its FULLY_CONNECTED is requantized here with
    SINGLE rounding (round half up of acc * M * 2^(shift - 31)): on these models that gives
    what LiteRT 2.3's BUILTIN_REF FULLY_CONNECTED gives (its formula is (D), see "FC
    requantization" above), while CONV_2D / DEPTHWISE_CONV_2D use the double-rounding
    MultiplyByQuantizedMultiplier of make_int8_fixtures.check_fc; the two differ by 1 LSB at
    ties (a note in each tflite.json counts them);
  * every output scale / zero point follows bit for bit from its own calibrated range (scale =
    float32(hi - lo) / 255 in float32 after widening to hold 0, zero point =
    round_half_away(-128 - lo / scale)) or is its input's (pools, RESHAPE);
  * input quantization: the QUANTIZE op of the float-input conversion gives evaluation_inputs_int8
    bit for bit (and that model's int8 output equals evaluation_outputs);
  * TFLM: its output equals, on all 64 calibration and 16 evaluation samples, the numpy chain
    with the double-rounding (A) FULLY_CONNECTED (make_int8_fixtures.check_fc), every other op
    as above.

Run (from the repository root; the venv of make_int8_fixtures.py):
  /tmp/tfenv/bin/python tests/reference/make_int8_quantizer_fixtures.py

Made with tensorflow-cpu 2.21.0 (Keras 3.15.1), ai-edge-litert 2.3.0, numpy 2.4.6, tflite-micro
0.dev20261023182759 (`pip install tflite-micro` into the venv), Python 3.11 (written into every
tflite.json). Deterministic: a second run rewrites identical files.
"""
import io
import json
import pathlib
import platform
import struct
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

# Both only import TensorFlow / Keras / LiteRT and define functions (their main() is guarded).
import make_int8_fixtures as ref  # noqa: E402
import make_int8_model_fixtures as mf  # noqa: E402
from make_int8_fixtures import (  # noqa: E402
    Interpreter, OpResolverType, f32, ints, np, schema, single_scale, tf)

import keras  # noqa: E402
import tflite_micro  # noqa: E402
from keras import layers  # noqa: E402
from tflite_micro import runtime as tflm  # noqa: E402

OUT = HERE / "int8_quantizer"
BN_EPS = 1e-5
CALIBRATION_SAMPLES = 64
EVALUATION_SAMPLES = 16
FLOAT_TOLERANCE = 1e-4
VERSIONS = dict(mf.VERSIONS, tflite_micro=tflite_micro.__version__,
                python=platform.python_version())


# ----------------------------------------------------------------------------------------------
# Models: make_int8_model_fixtures.py's, with BatchNormalization(epsilon=1e-5)

def bn():
    return layers.BatchNormalization(epsilon=BN_EPS)


def digits_cnn():
    return mf.digits_cnn(bn)


def residual():
    return mf.residual(bn)


def ds_block():
    return mf.ds_block(bn)


# make_int8_model_fixtures.MODELS entry name -> (builder, seed, staticnet layer index of each
# Keras layer with weights, in model.layers order)
MODELS = {
    "digits_cnn": (digits_cnn, 40, [0, 1, 5]),
    "residual": (residual, 41, [0, 1, 3, 4, 9]),
    "ds_block": (ds_block, 42, [0, 1, 3, 4, 8]),
}


# ----------------------------------------------------------------------------------------------
# safetensors by hand

def write_safetensors(path, tensors, metadata):
    header, blobs, offset = {"__metadata__": metadata}, [], 0
    for name, a in tensors.items():
        a = np.ascontiguousarray(a, dtype="<f4")
        data = a.tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def read_safetensors(path):
    raw = path.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    header.pop("__metadata__", None)
    data, out, end = raw[8 + n:], {}, 0
    for name, h in header.items():
        assert h["dtype"] == "F32" and h["data_offsets"][0] == end, (name, h)
        b, end = h["data_offsets"]
        out[name] = np.frombuffer(data[b:end], "<f4").reshape(h["shape"])
    assert end == len(data)
    return out


def write_npy(path, a):
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(a, np.float32), allow_pickle=False)
    path.write_bytes(buf.getvalue())


# ----------------------------------------------------------------------------------------------
# Keras weights -> staticnet state dict

def state_dict(model, indices):
    """{"<i>.<param>": float32 array in PyTorch layout}; the Linear after a 4D Flatten permuted."""
    out = {}
    weighted = [lay for lay in model.layers if lay.get_weights()]
    assert len(weighted) == len(indices), [lay.name for lay in weighted]
    for lay, i in zip(weighted, indices):
        w = lay.get_weights()
        if isinstance(lay, layers.BatchNormalization):
            assert lay.epsilon == BN_EPS and len(w) == 4
            for key, a in zip(("weight", "bias", "running_mean", "running_var"), w):
                out[f"{i}.{key}"] = a
            assert np.all(w[3] > 0)
        elif isinstance(lay, layers.DepthwiseConv2D):
            kh, kw, c, m = w[0].shape
            assert m == 1
            out[f"{i}.weight"] = w[0].transpose(2, 3, 0, 1)  # (KH, KW, C, 1) -> (C, 1, KH, KW)
            if len(w) > 1:
                out[f"{i}.bias"] = w[1]
        elif isinstance(lay, layers.Conv2D):
            out[f"{i}.weight"] = w[0].transpose(3, 2, 0, 1)  # (KH, KW, I, O) -> (O, I, KH, KW)
            if len(w) > 1:
                out[f"{i}.bias"] = w[1]
        elif isinstance(lay, layers.Dense):
            k = w[0].T  # (I, O) -> (O, I)
            src = model.layers[model.layers.index(lay) - 1]
            assert src.output is lay.input
            if isinstance(src, layers.Flatten):
                _, h, wd, c = [int(v) for v in src.input.shape]
                o = k.shape[0]
                # W[o, c*H*W + h*W + w] = W_keras[h*W*C + w*C + c, o]
                k = k.reshape(o, h, wd, c).transpose(0, 3, 1, 2).reshape(o, -1)
            out[f"{i}.weight"] = k
            out[f"{i}.bias"] = w[1]
        else:
            raise TypeError(lay)
    return {k: np.ascontiguousarray(v, np.float32) for k, v in out.items()}


# ----------------------------------------------------------------------------------------------
# Pure-numpy NCHW float forward pass (float64, nothing folded)

def np_conv(x, w, b, stride, pad, groups=1):
    """x (C, H, W), w (O, C/groups, KH, KW), pad [top, left, bottom, right]."""
    top, left, bottom, right = pad
    xp = np.pad(x, ((0, 0), (top, bottom), (left, right)))
    o, cg, kh, kw = w.shape
    oh = (xp.shape[1] - kh) // stride + 1
    ow = (xp.shape[2] - kw) // stride + 1
    y = np.zeros((o, oh, ow))
    for ky in range(kh):
        for kx in range(kw):
            patch = xp[:, ky:ky + stride * (oh - 1) + 1:stride,
                       kx:kx + stride * (ow - 1) + 1:stride]
            if groups == 1:
                y += np.einsum("oc,chw->ohw", w[:, :, ky, kx], patch)
            else:
                assert groups == x.shape[0] == o and cg == 1
                y += w[:, 0, ky, kx][:, None, None] * patch
    if b is not None:
        y += b[:, None, None]
    return y


def np_bn(x, sd, i):
    g, b, m, v = (sd[f"{i}.{k}"].astype(np.float64)
                  for k in ("weight", "bias", "running_mean", "running_var"))
    return (x - m[:, None, None]) / np.sqrt(v + BN_EPS)[:, None, None] * g[:, None, None] \
        + b[:, None, None]


def np_pool(x, k, kind):
    c, h, w = x.shape
    win = x[:, :h // k * k, :w // k * k].reshape(c, h // k, k, w // k, k)
    return win.max(axis=(2, 4)) if kind == "max" else win.mean(axis=(2, 4))


def np_linear(x, sd, i):
    return sd[f"{i}.weight"].astype(np.float64) @ x + sd[f"{i}.bias"]


def relu(x):
    return np.maximum(x, 0.0)


def forward(name, sd, x):
    p = {k: v.astype(np.float64) for k, v in sd.items()}
    g = p.get
    x = np.asarray(x, np.float64)
    if name == "digits_cnn":
        y = relu(np_bn(np_conv(x, p["0.weight"], g("0.bias"), 1, [1, 1, 1, 1]), p, 1))
        y = np_pool(y, 2, "max").reshape(-1)  # Flatten in (C, H, W) order
        return np_linear(y, p, 5)
    if name == "residual":
        y = relu(np_bn(np_conv(x, p["0.weight"], g("0.bias"), 1, [1, 1, 1, 1]), p, 1))
        y = np_bn(np_conv(y, p["3.weight"], g("3.bias"), 1, [1, 1, 1, 1]), p, 4)
        y = relu(y + x)
        return np_linear(y.mean(axis=(1, 2)), p, 9)
    if name == "ds_block":
        assert "0.bias" not in p and "3.bias" not in p
        y = relu(np_bn(np_conv(x, p["0.weight"], None, 2, [0, 0, 1, 1], groups=x.shape[0]), p,
                       1))
        y = relu(np_bn(np_conv(y, p["3.weight"], None, 1, [0, 0, 0, 0]), p, 4))
        y = np_pool(y, 5, "avg").reshape(-1)
        return np_linear(y, p, 8)
    raise ValueError(name)


# ----------------------------------------------------------------------------------------------
# Conversion

def converter_for(model, shape_hwc, calibration, int8_io=True):
    """make_int8_fixtures.convert()'s settings, fed `calibration` (N, C, H, W) in order."""
    spec = tf.TensorSpec([1, *shape_hwc], tf.float32, name="x")
    fn = tf.function(lambda x: model(x, training=False), input_signature=[spec])
    converter = tf.lite.TFLiteConverter.from_concrete_functions([fn.get_concrete_function()], fn)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    if int8_io:
        converter.inference_input_type = tf.int8
        converter.inference_output_type = tf.int8

    def representative_dataset():
        for sample in calibration:
            yield [np.ascontiguousarray(sample.transpose(1, 2, 0)[None], np.float32)]

    converter.representative_dataset = representative_dataset
    return converter


def calibrated_ranges(converter):
    """Per operator of the calibrated float model: (op name, [min, max] of its output), and the
    model input's [min, max]."""
    converter._experimental_calibrate_only = True
    mt = schema.ModelT.InitFromPackedBuf(converter.convert(), 0)
    sub = mt.subgraphs[0]

    def rng(t):
        q = sub.tensors[t].quantization
        assert len(q.min) == 1 and len(q.max) == 1, t
        return [f32(q.min[0]), f32(q.max[0])]

    ops = [(ref.OPS[mt.operatorCodes[o.opcodeIndex].builtinCode], rng(o.outputs[0]))
           for o in sub.operators]
    return ops, rng(sub.inputs[0])



def quantize_input(x, scale, zero_point):
    """reference_ops::AffineQuantize: TfLiteRound(val / float(scale)) + zp, clamped; float32
    division, then round half away from zero (exact on the float32 quotient held as double)."""
    v = (np.asarray(x, np.float32) / np.float32(scale)).astype(np.float64)
    r = np.copysign(np.floor(np.abs(v) + 0.5), v)
    return np.clip(r.astype(np.int64) + zero_point, -128, 127).astype(np.int8)


def own_scale(lo, hi):
    """scale / zero point from a calibrated [lo, hi] (float32 values) as the converter computes
    them: the range widened to hold 0; scale = float32(hi - lo) / 255 in FLOAT32 (the difference
    rounded to float32 first: the same division in double from the unrounded difference is
    1 ulp off for some ranges, e.g. residual's second conv); zero point =
    round_half_away(-128 - lo / scale) in double, clamped to [-128, 127]."""
    lo, hi = np.float32(min(lo, 0.0)), np.float32(max(hi, 0.0))
    scale = float((hi - lo) / np.float32(255.0))
    zp = min(127, max(-128, ref.tflite_round(-128.0 - float(lo) / scale)))
    return scale, zp


# ----------------------------------------------------------------------------------------------
# One model

def make(name):
    builder, seed, indices = MODELS[name]
    (_, rng_range, expected), = [m[2:] for m in mf.MODELS if m[0] == name]
    keras.utils.set_random_seed(seed)
    model = builder()
    mf.randomize(model, np.random.default_rng([seed, 0]))
    shape_hwc = tuple(int(v) for v in model.inputs[0].shape[1:])
    chw = (shape_hwc[2], shape_hwc[0], shape_hwc[1])
    lo, hi = rng_range
    calibration = np.random.default_rng([seed, 1]).uniform(
        lo, hi, size=(CALIBRATION_SAMPLES, *chw)).astype(np.float32)
    evaluation = np.random.default_rng([seed, 2]).uniform(
        lo, hi, size=(EVALUATION_SAMPLES, *chw)).astype(np.float32)

    folder = OUT / name
    folder.mkdir(parents=True, exist_ok=True)
    sd = state_dict(model, indices)
    write_safetensors(folder / "weights.safetensors", sd, {})
    write_npy(folder / "calibration.npy", calibration)
    write_npy(folder / "evaluation.npy", evaluation)

    # Float check: Keras (NHWC) against numpy NCHW from the file's own tensors.
    sd_back = read_safetensors(folder / "weights.safetensors")
    assert list(sd_back) == list(sd)
    assert np.load(folder / "calibration.npy").tobytes() == calibration.tobytes()
    worst = 0.0
    for x in evaluation:
        keras_y = model(x.transpose(1, 2, 0)[None], training=False).numpy().reshape(-1)
        mine = forward(name, sd_back, x)
        worst = max(worst, float(np.max(np.abs(keras_y - mine))))
    if not worst < FLOAT_TOLERANCE:
        sys.exit(f"{name}: numpy float forward from weights.safetensors differs from Keras by "
                 f"{worst:.3g} (>= {FLOAT_TOLERANCE})")

    # Convert (int8 in / out) and read back what the converter made.
    tfl = converter_for(model, shape_hwc, calibration).convert()
    sub = mf.operators(tfl)
    interp = Interpreter(model_content=tfl, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    interp.allocate_tensors()
    entries, _, _ = mf.describe(interp, sub, expected)
    in_d, out_d = interp.get_input_details()[0], interp.get_output_details()[0]
    assert in_d["dtype"] == np.int8 and out_d["dtype"] == np.int8
    in_scale, in_zp = single_scale(in_d)
    out_scale, out_zp = single_scale(out_d)
    assert (in_scale, in_zp) == (entries[0]["input_scale"], entries[0]["input_zero_point"])
    assert (out_scale, out_zp) == (entries[-1]["output_scale"], entries[-1]["output_zero_point"])

    # The calibration statistics of the same conversion.
    cal_ops, in_range = calibrated_ranges(converter_for(model, shape_hwc, calibration))
    assert [n for n, _ in cal_ops] == [e["tflite_op"] for e in entries], (cal_ops, entries)
    for e, (_, r) in zip(entries, cal_ops):
        e["calibrated_range"] = r

    # Evaluation: quantize as TFLite does, run the reference kernels.
    eval_in, eval_out = [], []
    for x in evaluation:
        q = quantize_input(x, in_scale, in_zp)
        interp.set_tensor(in_d["index"], q.transpose(1, 2, 0)[None])
        interp.invoke()
        eval_in.append(ints(q))
        eval_out.append(ints(mf.to_mine(interp.get_tensor(out_d["index"]))))

    # The numpy port of the reference kernels, on every calibration and evaluation sample.
    fc_ties = check_chain(name, interp, entries, np.concatenate([calibration, evaluation]),
                          in_scale, in_zp)

    # Cross-check the input rule against TFLite's own QUANTIZE (float-input conversion).
    ftfl = converter_for(model, shape_hwc, calibration, int8_io=False).convert()
    finterp = Interpreter(model_content=ftfl,
                          experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
                          experimental_preserve_all_tensors=True)
    finterp.allocate_tensors()
    fops = finterp._get_ops_details()
    assert fops[0]["op_name"] == "QUANTIZE" and fops[-1]["op_name"] == "DEQUANTIZE", fops
    q_t, y_t = fops[0]["outputs"][0], fops[-1]["inputs"][0]
    ftensors = {d["index"]: d for d in finterp.get_tensor_details()}
    assert single_scale(ftensors[q_t]) == (in_scale, in_zp)
    assert single_scale(ftensors[y_t]) == (out_scale, out_zp)
    fin = finterp.get_input_details()[0]
    for x, q, y in zip(evaluation, eval_in, eval_out):
        finterp.set_tensor(fin["index"], x.transpose(1, 2, 0)[None])
        finterp.invoke()
        tq = mf.to_mine(finterp.get_tensor(q_t)).reshape(-1)
        ty = mf.to_mine(finterp.get_tensor(y_t)).reshape(-1)
        if ints(tq) != q or ints(ty) != y:
            sys.exit(f"{name}: TFLite's QUANTIZE / float-input model disagrees with "
                     f"evaluation_inputs_int8 / evaluation_outputs")

    # TensorFlow Lite Micro on the same flatbuffer and int8 inputs.
    tflm_out, tflm_diff = run_tflm(name, tfl, entries, calibration, evaluation, eval_out,
                                   in_scale, in_zp)

    notes = analyse(entries, in_range, in_scale, in_zp)
    notes.append(weight_note(sd, entries, indices))
    n_fc = (CALIBRATION_SAMPLES + EVALUATION_SAMPLES) * entries[-1]["output_shape"][0]
    notes.append(
        "FULLY_CONNECTED under BUILTIN_REF (LiteRT %s) requantizes with SINGLE rounding: "
        "out = (acc * M + 2^(30 - shift)) >> (31 - shift) (round half up on the exact product), "
        "not with the double-rounding MultiplyByQuantizedMultiplier (SaturatingRoundingDoubling"
        "HighMul then RoundingDivideByPOT) that CONV_2D / DEPTHWISE_CONV_2D use here; on this "
        "model's 80 calibration + evaluation samples the two differ (1 LSB, at ties of the "
        "second rounding) in %d of %d FC outputs, and TFLite matched single rounding in all."
        % (VERSIONS["ai_edge_litert"], fc_ties, n_fc))
    n_out = entries[-1]["output_shape"][0]
    notes.append(
        "tflm_evaluation_outputs: TensorFlow Lite Micro (tflite-micro %s, tflite_micro.runtime."
        "Interpreter, reference kernels) on the same flatbuffer and evaluation_inputs_int8. Its "
        "FULLY_CONNECTED requantizes with the double-rounding MultiplyByQuantizedMultiplier, as "
        "its (and LiteRT's) CONV_2D / DEPTHWISE_CONV_2D do; LiteRT %s's BUILTIN_REF "
        "FULLY_CONNECTED computes round_half_away(double(acc) * (double(input_scale) * "
        "double(weight_scale) / double(output_scale))), which equals the single rounding above "
        "on this model's samples but not in general. Evidence (single-op models, per-channel "
        "weights from TF %s's converter, scales made dyadic so exact ties occur, accumulators "
        "recomputed in numpy): over 5,505,024 FC outputs TFLM mismatched double rounding 0 "
        "times, single rounding 25,758, LiteRT's double-precision formula 24,863; LiteRT "
        "mismatched its double-precision formula 0 times, double rounding 24,863, single "
        "rounding 895; TFLM's CONV_2D (1,966,080 outputs) and DEPTHWISE_CONV_2D (1,572,864) "
        "matched double rounding in all. Here TFLM's output equals the numpy chain with "
        "double-rounding FC on all 80 samples; tflm_evaluation_outputs differs from "
        "evaluation_outputs in %d of %d bytes (1 LSB each; calibration samples: %d of %d)."
        % (VERSIONS["tflite_micro"], VERSIONS["ai_edge_litert"], VERSIONS["tensorflow"],
           tflm_diff[1], EVALUATION_SAMPLES * n_out, tflm_diff[0], CALIBRATION_SAMPLES * n_out))
    fx = {"model": name, "versions": VERSIONS,
          "input_shape": list(chw), "output_shape": entries[-1]["output_shape"],
          "input_scale": in_scale, "input_zero_point": in_zp,
          "output_scale": out_scale, "output_zero_point": out_zp,
          "input_calibrated_range": in_range,
          "calibration_samples": CALIBRATION_SAMPLES, "evaluation_samples": EVALUATION_SAMPLES,
          "bn_epsilon": BN_EPS,
          "input_quantization_rule": (
              "q = clamp(round_half_away_from_zero(float32(x) / float32(input_scale)) + "
              "input_zero_point, -128, 127): the division in float32, rounding the float32 "
              "quotient half away from zero (std::round), as reference_ops::AffineQuantize "
              "(TFLite's QUANTIZE kernel); x is evaluation.npy's sample, NCHW flattened. "
              "Checked against the QUANTIZE op of the same model converted with float input."),
          "notes": notes,
          "ops": entries,
          "evaluation_inputs_int8": eval_in,
          "evaluation_outputs": eval_out,
          "tflm_evaluation_outputs": tflm_out}
    path = folder / "tflite.json"
    path.write_text(dump(fx))
    for p in folder.iterdir():
        p.chmod(0o644)
    return fx, worst


def fc_single_rounding(fx):
    """make_int8_fixtures.check_fc, requantized with single rounding (round half up)."""
    x = np.array(fx["input"], np.int64) - fx["input_zero_point"]
    w = np.array(fx["weights"], np.int64).reshape(fx["output_shape"][0], -1)
    acc = w @ x + np.array(fx["bias"], np.int64)
    out = np.empty_like(acc)
    for o in range(acc.shape[0]):
        m, s = ref.quantize_multiplier(fx["input_scale"] * fx["weight_scales"][o]
                                       / fx["output_scale"])
        total = 31 - s
        out[o] = (int(acc[o]) * m + (1 << (total - 1))) >> total
    return np.clip(out + fx["output_zero_point"], fx["activation_min"], fx["activation_max"])


def run_chain(entries, q, fc):
    """make_int8_model_fixtures.run_chain with `fc` as the FULLY_CONNECTED kernel."""
    saved = ref.check_fc
    ref.check_fc = fc
    try:
        return mf.run_chain(entries, q)
    finally:
        ref.check_fc = saved


def check_chain(name, interp, entries, samples, in_scale, in_zp):
    """Every op's output (NCHW) from the numpy port equals TFLite's, on every sample; returns in
    how many FC outputs double rounding (make_int8_fixtures.check_fc) would have differed."""
    in_d, out_d = interp.get_input_details()[0], interp.get_output_details()[0]
    ties = 0
    for x in samples:
        q = quantize_input(x, in_scale, in_zp)
        interp.set_tensor(in_d["index"], q.transpose(1, 2, 0)[None])
        interp.invoke()
        y = mf.to_mine(interp.get_tensor(out_d["index"])).reshape(-1).astype(np.int64)
        outs = run_chain(entries, q, fc_single_rounding)
        if np.any(outs[-1].reshape(-1) != y):
            sys.exit(f"{name}: numpy chain of reference kernels differs from TFLite")
        double = run_chain(entries, q, ref.check_fc)
        ties += int(np.count_nonzero(double[-1].reshape(-1) != y))
        assert all(np.array_equal(a, b) for a, b in zip(outs[:-1], double[:-1]))
    return ties


def run_tflm(name, tfl, entries, calibration, evaluation, eval_out, in_scale, in_zp):
    """Runs the flatbuffer in TFLM's interpreter on every calibration and evaluation sample;
    checks each output against the numpy chain with the double-rounding FULLY_CONNECTED
    (make_int8_fixtures.check_fc). Returns the evaluation outputs and how many output bytes
    differ from LiteRT's, (calibration, evaluation)."""
    it = tflm.Interpreter.from_bytes(tfl, arena_size=max(1 << 20, 10 * len(tfl)))
    lite = iter([None] * len(calibration) + eval_out)
    tflm_eval, diff = [], [0, 0]
    interp = Interpreter(model_content=tfl, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    interp.allocate_tensors()
    in_d, out_d = interp.get_input_details()[0], interp.get_output_details()[0]
    for k, x in enumerate(np.concatenate([calibration, evaluation])):
        q = quantize_input(x, in_scale, in_zp)
        it.set_input(q.transpose(1, 2, 0)[None], 0)
        it.invoke()
        y = mf.to_mine(it.get_output(0)).reshape(-1).astype(np.int64)
        if np.any(run_chain(entries, q, ref.check_fc)[-1].reshape(-1) != y):
            sys.exit(f"{name}: TFLM's output differs from the numpy chain with the "
                     f"double-rounding FULLY_CONNECTED")
        lite_y = next(lite)
        if lite_y is None:
            interp.set_tensor(in_d["index"], q.transpose(1, 2, 0)[None])
            interp.invoke()
            lite_y = ints(mf.to_mine(interp.get_tensor(out_d["index"])))
        else:
            tflm_eval.append(ints(y))
        delta = np.abs(np.array(lite_y) - y)
        if np.any(delta > 1):
            sys.exit(f"{name}: TFLM's and LiteRT's outputs differ by more than 1 LSB")
        diff[k >= len(calibration)] += int(np.count_nonzero(delta))
    return tflm_eval, diff


def weight_note(sd, entries, indices):
    """How the int8 weights / biases compare with a plain numpy quantization of the float state
    dict: BN folded in float32 (W * (gamma * (1 / sqrt(var + eps))), b * inv + (beta - mean *
    inv)), per-channel scale = max|W| / 127 (float32), q = round_half_away(W / scale), bias =
    round_half_away(b / (input_scale * weight_scale)) (float32). Informational (a note)."""
    f = np.float32
    rnd = np.vectorize(ref.tflite_round)
    weighted = [e for e in entries if "weights" in e]
    layer_ids = [i for i in indices if f"{i}.running_var" not in sd]
    assert len(weighted) == len(layer_ids)
    parts = []
    for e, i in zip(weighted, layer_ids):
        w = sd[f"{i}.weight"].astype(f)
        b = sd.get(f"{i}.bias", np.zeros(w.shape[0], f)).astype(f)
        if f"{i + 1}.running_var" in sd:
            g, beta, mean, var = (sd[f"{i + 1}.{k}"] for k in
                                  ("weight", "bias", "running_mean", "running_var"))
            inv = g * (f(1) / np.sqrt(var + f(BN_EPS)))
            w = w * inv.reshape(-1, *[1] * (w.ndim - 1))
            b = b * inv + (beta - mean * inv)
        scales = (np.abs(w).reshape(w.shape[0], -1).max(axis=1) / f(127)).astype(f)
        got = np.array(e["weight_scales"], f)
        q = rnd((w / scales.reshape(-1, *[1] * (w.ndim - 1))).astype(np.float64)).reshape(-1)
        bias = rnd((b / (f(e["input_scale"]) * got)).astype(np.float64))
        rel = float(np.max(np.abs(scales.astype(np.float64) - got) / got))
        parts.append("layer %d (%s): %d/%d weight scales bit-equal (max rel. diff %.2g), int8 "
                     "weights equal %d/%d, int32 bias equal %d/%d" % (
                         i, e["tflite_op"], int(np.sum(scales == got)), got.size, rel,
                         int(np.sum(q == np.array(e["weights"]))), q.size,
                         int(np.sum(bias == np.array(e["bias"]))), bias.size))
    return ("Weights vs a numpy quantization of weights.safetensors (BN folded in float32: inv = "
            "gamma * (1 / sqrt(var + 1e-5)), W * inv, b * inv + (beta - mean * inv); per-channel "
            "scale = float32(max|W| / 127); q = round_half_away(W / scale); bias = "
            "round_half_away(b / float32(input_scale * weight_scale))): " + "; ".join(parts)
            + ". Folded scales may differ from the converter's by an ulp or two (its own float32 "
            "folding order); compare them with a relative tolerance.")


def analyse(entries, in_range, in_scale, in_zp):
    """Notes on where each scale came from: its own calibrated range or its input's."""
    notes = [
        "weights.safetensors holds the float Keras weights (nothing folded); the converter "
        "folded each BatchNormalization (epsilon 1e-5) into the conv before it and fused the "
        "ReLU after it, so the int8 conv weights / biases here are those of the folded conv.",
        "calibrated_range is the [min, max] the converter's calibration recorded for an op's "
        "output over the 64 calibration samples (a fused ReLU included).",
    ]
    s, z = own_scale(*in_range)
    if (s, z) != (in_scale, in_zp):
        sys.exit(f"model input scale / zero point {in_scale, in_zp} do not follow from its "
                 f"calibrated range {in_range}: {s, z}")
    notes.append(
        "Every scale / zero point marked 'from its own calibrated range' equals bit for bit: "
        "lo = min(min, 0), hi = max(max, 0) (float32); scale = float32(hi - lo) / 255 computed "
        "in float32 (float32((double(hi) - double(lo)) / 255) is 1 ulp off for some ranges); "
        "zero_point = clamp(round_half_away_from_zero(-128 - lo / scale), -128, 127) in double. "
        "The model input's does too (calibrated [%r, %r])." % tuple(in_range))
    for i, e in enumerate(entries):
        s, z = own_scale(*e["calibrated_range"])
        same_as_input = (e["output_scale"], e["output_zero_point"]) == (
            e["input_scale"], e["input_zero_point"])
        if (s, z) == (e["output_scale"], e["output_zero_point"]):
            how = "from its own calibrated range"
        elif same_as_input:
            how = "NOT from its own calibrated range (that would give scale %r, zero point %d): " \
                  "it keeps its input's scale and zero point" % (s, z)
        else:
            sys.exit(f"op {i} {e['tflite_op']}: output scale / zero point from neither its own "
                     f"calibrated range ({s, z}) nor its input's")
        notes.append("op %d %s: output scale %r zero point %d %s%s." % (
            i, e["tflite_op"], e["output_scale"], e["output_zero_point"], how,
            " (equal to its input's too)" if how.startswith("from") and same_as_input else ""))
    return notes


def dump(fx):
    lines = []
    for k, v in fx.items():
        if k == "ops":
            ops = ",\n".join("    " + json.dumps(e, separators=(",", ":")) for e in v)
            lines.append(f'  "ops": [\n{ops}\n  ]')
        elif k in ("evaluation_inputs_int8", "evaluation_outputs", "tflm_evaluation_outputs",
                   "notes"):
            rows = ",\n".join("    " + json.dumps(r, separators=(",", ":")) for r in v)
            lines.append(f"  {json.dumps(k)}: [\n{rows}\n  ]")
        else:
            lines.append(f"  {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main():
    for name in MODELS:
        fx, worst = make(name)
        ops = ", ".join(e["tflite_op"] + ("(" + e["fused_activation"] + ")"
                                          if e.get("fused_activation", "NONE") != "NONE" else "")
                        for e in fx["ops"])
        folder = OUT / name
        sizes = ", ".join(f"{p.name} {p.stat().st_size}" for p in sorted(folder.iterdir()))
        print(f"{folder.relative_to(HERE.parent.parent)}: {ops}; in scale {fx['input_scale']!r} "
              f"zp {fx['input_zero_point']}, out scale {fx['output_scale']!r} zp "
              f"{fx['output_zero_point']}; float check max |diff| {worst:.3g}; int8 chain and "
              f"QUANTIZE match; {sizes}")


if __name__ == "__main__":
    main()

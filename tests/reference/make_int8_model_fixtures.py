#!/usr/bin/env python3
"""TensorFlow Lite int8 whole-model fixtures (tests/reference/int8_models/*.json).

What it makes
-------------
Three small Keras models (float32, NHWC, batch 1) with seeded random weights, and seeded random
BatchNormalization gamma / beta / moving_mean / moving_variance (variance positive), so that
folding BatchNormalization into the convolution before it changes the weights and bias:

  digits_cnn  (8, 8, 1)  Conv2D(16, 3, same, bias) -> BN -> ReLU -> MaxPooling2D(2) -> Flatten
                         -> Dense(10)
  residual    (8, 8, 4)  x = Conv2D(4, 3, same) -> BN -> ReLU -> Conv2D(4, 3, same) -> BN;
                         Add([x, input]) -> ReLU -> GlobalAveragePooling2D -> Dense(3)
  ds_block    (10,10,8)  DepthwiseConv2D(3, s2, same, no bias) -> BN -> ReLU
                         -> Conv2D(16, 1, no bias) -> BN -> ReLU -> AveragePooling2D(5)
                         -> Flatten -> Dense(4)

Each is converted exactly as tests/reference/make_int8_fixtures.py converts its one-op models
(its convert(): Optimize.DEFAULT, TFLITE_BUILTINS_INT8, int8 input and output, a seeded random
representative dataset whose range is not symmetric around zero). The script checks that the
converted model holds exactly the expected operators with the expected fused activations (the
converter folds BN into the conv before it and fuses the ReLU into CONV_2D / DEPTHWISE_CONV_2D /
ADD), runs it under LiteRT's *reference* kernels (OpResolverType.BUILTIN_REF) on two seeded
random int8 inputs, and writes tests/reference/int8_models/<model>_s<seed>.json per input.

Fixture format: "model", "versions", "input_shape" [C, H, W], "input" (int8, NCHW),
"input_scale" / "input_zero_point" (the model input tensor's), "output_shape" [F], "output"
(the int8 TFLite produced), "output_scale" / "output_zero_point", and "ops": one entry per TFLite
operator in execution order (RESHAPE included). Every entry has "op" (conv2d, depthwise_conv2d,
fully_connected, max_pool, avg_pool, mean, add, reshape), "tflite_op", "input_shape" /
"output_shape" (C, H, W for 4D tensors, F for 2D ones), "input_scale", "input_zero_point",
"output_scale", "output_zero_point" (of its first input and its output tensor),
"activation_min" / "activation_max" (as make_int8_fixtures.py computes them; [-128, 127] for ops
without a fused activation). conv / depthwise / fully connected add "weights", "weight_scales"
(per output channel), "bias" (int32, per output channel), "kernel", "stride", "padding"
[top, left, bottom, right], "dilation", "fused_activation"; pools add "kernel", "stride",
"padding"; mean adds "axes" ("HW") and "keep_dims"; add adds "input2_scale",
"input2_zero_point", "input1_source" and "input2_source" ("model_input" or the index in "ops" of
the op whose output feeds that ADD input, as the converted model wires it). Layouts, scales
(exact double of the float32), padding and activation ranges are those described in
make_int8_fixtures.py's docstring: Conv2D weights (O, I, KH, KW), depthwise (C, 1, KH, KW),
fully connected (O, I).

Flatten / Dense: the C++ side keeps activations NCHW and flattens them in (C, H, W) order, while
Keras' Flatten on NHWC orders features (H, W, C). The FULLY_CONNECTED weight columns written here
are therefore PERMUTED so that applied to the NCHW-flattened input they compute what TFLite
computes: W_fixture[o, c*H*W + h*W + w] = W_tflite[o, h*W*C + w*C + c] (H, W, C of the tensor the
RESHAPE flattens). Such an entry says so in "weights_permuted_from_nhwc" [H, W, C] and "notes".
An FC fed straight by a 2D tensor (e.g. MEAN without keep_dims) is not permuted.

What the converter made (TF 2.21): digits_cnn CONV_2D(RELU), MAX_POOL_2D, RESHAPE,
FULLY_CONNECTED; residual CONV_2D(RELU), CONV_2D, ADD(RELU) with input 1 = the second conv's
output and input 2 = the model input, MEAN (keep_dims false, own output scale; no RESHAPE),
FULLY_CONNECTED; ds_block DEPTHWISE_CONV_2D(RELU), CONV_2D(RELU), AVERAGE_POOL_2D,
FULLY_CONNECTED with NO RESHAPE: the Flatten of the (1, 1, 1, 16) tensor is dropped and the FC
takes the 4D tensor (its "input_shape" is [16, 1, 1]; its permutation is the identity). Every
conv has an int32 bias tensor (BN folding makes one even with use_bias=False) and per-channel
weight scales (FC included); RESHAPE keeps its input's scale and zero point.

Check: the script recomputes each model's int8 output from the fixture's own numbers with the
numpy port of the reference kernels in make_int8_fixtures.py (check_conv, check_fc, check_pool,
check_mean, check_add), in NCHW, chaining op outputs (only the model input comes from outside);
it stops if any byte of the final output differs from TFLite's (it also compares every
intermediate tensor, read with experimental_preserve_all_tensors, to report where).

Run (from the repository root; the venv is the one make_int8_fixtures.py describes):
  python3 -m venv /tmp/tfenv && /tmp/tfenv/bin/pip install tensorflow-cpu ai-edge-litert numpy
  /tmp/tfenv/bin/python tests/reference/make_int8_model_fixtures.py

Made with tensorflow-cpu 2.21.0 (Keras 3.15.1), ai-edge-litert 2.3.0, numpy 2.4.6, Python 3.11
(written into every fixture). Deterministic: a second run rewrites identical files.
"""
import importlib.metadata
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

# Importing it only imports TensorFlow / LiteRT and defines functions (main() is guarded).
import make_int8_fixtures as ref  # noqa: E402
from make_int8_fixtures import (  # noqa: E402
    ACT, PAD, Interpreter, OpResolverType, activation_range, ints, np, padding_explicit, qparams,
    schema, single_scale, tf)

import keras  # noqa: E402
from keras import layers  # noqa: E402

OUT = HERE / "int8_models"
SEEDS = (0, 1)
VERSIONS = dict(ref.VERSIONS, keras=keras.__version__,
                numpy=importlib.metadata.version("numpy"))


# ----------------------------------------------------------------------------------------------
# Models

def spread(rng, n):
    """Per-output-channel factors spread over a factor 4, so per-channel weight scales differ."""
    return np.exp(rng.uniform(np.log(0.5), np.log(2.0), size=n))


def randomize(model, rng):
    """Seeded random weights for every layer (Keras' own initializers are not used)."""
    for layer in model.layers:
        if isinstance(layer, layers.BatchNormalization):
            c = layer.get_weights()[0].shape[0]
            gamma = rng.uniform(0.5, 1.5, c) * rng.choice([-1.0, 1.0], c, p=[0.2, 0.8])
            beta = rng.normal(0.0, 0.3, c)
            mean = rng.normal(0.0, 0.3, c)
            var = rng.uniform(0.3, 2.0, c)
            layer.set_weights([a.astype(np.float32) for a in (gamma, beta, mean, var)])
        elif isinstance(layer, layers.DepthwiseConv2D):
            w = layer.get_weights()
            kh, kw, c, m = w[0].shape
            k = rng.normal(0.0, 1.0, w[0].shape) * np.sqrt(2.0 / (kh * kw)) \
                * spread(rng, c)[None, None, :, None]
            layer.set_weights([k.astype(np.float32)]
                              + [rng.normal(0.0, 0.3, b.shape).astype(np.float32) for b in w[1:]])
        elif isinstance(layer, (layers.Conv2D, layers.Dense)):
            w = layer.get_weights()
            shape = w[0].shape
            fan_in = int(np.prod(shape[:-1]))
            k = rng.normal(0.0, 1.0, shape) * np.sqrt(2.0 / fan_in) * spread(rng, shape[-1])
            layer.set_weights([k.astype(np.float32)]
                              + [rng.normal(0.0, 0.3, b.shape).astype(np.float32) for b in w[1:]])
        else:
            assert not layer.get_weights(), layer.name


def digits_cnn(bn=layers.BatchNormalization):
    x = keras.Input((8, 8, 1), batch_size=1)
    y = layers.Conv2D(16, 3, padding="same", use_bias=True)(x)
    y = bn()(y)
    y = layers.ReLU()(y)
    y = layers.MaxPooling2D(2)(y)
    y = layers.Flatten()(y)
    y = layers.Dense(10)(y)
    return keras.Model(x, y)


def residual(bn=layers.BatchNormalization):
    inp = keras.Input((8, 8, 4), batch_size=1)
    x = layers.Conv2D(4, 3, padding="same")(inp)
    x = bn()(x)
    x = layers.ReLU()(x)
    x = layers.Conv2D(4, 3, padding="same")(x)
    x = bn()(x)
    y = layers.Add()([x, inp])
    y = layers.ReLU()(y)
    y = layers.GlobalAveragePooling2D()(y)
    y = layers.Dense(3)(y)
    return keras.Model(inp, y)


def ds_block(bn=layers.BatchNormalization):
    x = keras.Input((10, 10, 8), batch_size=1)
    y = layers.DepthwiseConv2D(3, strides=2, padding="same", use_bias=False)(x)
    y = bn()(y)
    y = layers.ReLU()(y)
    y = layers.Conv2D(16, 1, use_bias=False)(y)
    y = bn()(y)
    y = layers.ReLU()(y)
    y = layers.AveragePooling2D(pool_size=5)(y)
    y = layers.Flatten()(y)
    y = layers.Dense(4)(y)
    return keras.Model(x, y)


# name, builder, weight seed, representative range, accepted (tflite op, fused act) sequences
MODELS = [
    ("digits_cnn", digits_cnn, 10, (-0.5, 2.0), [
        [("CONV_2D", "RELU"), ("MAX_POOL_2D", None), ("RESHAPE", None),
         ("FULLY_CONNECTED", "NONE")]]),
    ("residual", residual, 11, (-1.0, 3.0), [
        [("CONV_2D", "RELU"), ("CONV_2D", "NONE"), ("ADD", "RELU"), ("MEAN", None),
         ("FULLY_CONNECTED", "NONE")],
        [("CONV_2D", "RELU"), ("CONV_2D", "NONE"), ("ADD", "RELU"), ("MEAN", None),
         ("RESHAPE", None), ("FULLY_CONNECTED", "NONE")]]),
    ("ds_block", ds_block, 12, (-2.0, 1.5), [
        [("DEPTHWISE_CONV_2D", "RELU"), ("CONV_2D", "RELU"), ("AVERAGE_POOL_2D", None),
         ("RESHAPE", None), ("FULLY_CONNECTED", "NONE")],
        # The converter drops Flatten of a (1, 1, 1, C) tensor: FULLY_CONNECTED takes it as is.
        [("DEPTHWISE_CONV_2D", "RELU"), ("CONV_2D", "RELU"), ("AVERAGE_POOL_2D", None),
         ("FULLY_CONNECTED", "NONE")]]),
]

OP_NAMES = {"CONV_2D": "conv2d", "DEPTHWISE_CONV_2D": "depthwise_conv2d",
            "FULLY_CONNECTED": "fully_connected", "MAX_POOL_2D": "max_pool",
            "AVERAGE_POOL_2D": "avg_pool", "MEAN": "mean", "ADD": "add", "RESHAPE": "reshape"}


def convert_model(model, shape_hwc, rng_range, seed):
    spec = tf.TensorSpec([1, *shape_hwc], tf.float32, name="x")
    fn = tf.function(lambda x: model(x, training=False), input_signature=[spec])
    return ref.convert(fn, [spec], [rng_range], seed)


# ----------------------------------------------------------------------------------------------
# Layout helpers

def to_mine(a):
    """A TFLite activation (NHWC or (1, F)) as the C++ side holds it: (C, H, W) or (F,)."""
    a = np.asarray(a)
    assert a.shape[0] == 1, a.shape
    return a[0].transpose(2, 0, 1) if a.ndim == 4 else a.reshape(-1)


def mine_shape(shape):
    shape = [int(s) for s in shape]
    assert shape[0] == 1, shape
    return [shape[3], shape[1], shape[2]] if len(shape) == 4 else shape[1:]


# ----------------------------------------------------------------------------------------------
# One model

def operators(model_bytes):
    sub = schema.ModelT.InitFromPackedBuf(model_bytes, 0).subgraphs[0]
    assert len(sub.inputs) == 1 and len(sub.outputs) == 1
    return sub


def describe(interp, sub, expected):
    """Op entries (without the model-input-dependent parts), checked against `expected`."""
    tensors = {d["index"]: d for d in interp.get_tensor_details()}
    ops = interp._get_ops_details()
    names = [o["op_name"] for o in ops]
    acts = []
    for o, so in zip(ops, sub.operators):
        opts = so.builtinOptions
        has_act = hasattr(opts, "fusedActivationFunction") and o["op_name"] != "MAX_POOL_2D" \
            and o["op_name"] != "AVERAGE_POOL_2D"
        acts.append(ACT[opts.fusedActivationFunction] if has_act else None)
        if o["op_name"] in ("MAX_POOL_2D", "AVERAGE_POOL_2D"):
            assert ACT[opts.fusedActivationFunction] == "NONE"
    got = list(zip(names, acts))
    assert got in expected, f"converted ops {got} not in {expected}"

    model_in = sub.inputs[0]
    producer = {model_in: "model_input"}
    flattened = {}  # tensor index -> (H, W, C) it was flattened from (NHWC order in TFLite)
    entries = []
    for i, (o, so, act) in enumerate(zip(ops, sub.operators, acts)):
        opts = so.builtinOptions
        op = OP_NAMES[o["op_name"]]
        inp = [int(t) for t in o["inputs"]]
        x_d, y_d = tensors[inp[0]], tensors[o["outputs"][0]]
        assert x_d["dtype"] == np.int8 and y_d["dtype"] == np.int8, (x_d, y_d)
        in_scale, in_zp = single_scale(x_d)
        out_scale, out_zp = single_scale(y_d)
        e = {"op": op, "tflite_op": o["op_name"],
             "input_shape": mine_shape(x_d["shape"]), "output_shape": mine_shape(y_d["shape"]),
             "input_scale": in_scale, "input_zero_point": in_zp,
             "output_scale": out_scale, "output_zero_point": out_zp}
        e["activation_min"], e["activation_max"] = activation_range(act or "NONE", out_scale,
                                                                     out_zp)
        notes = []
        if op != "add" and producer[inp[0]] != (i - 1 if i else "model_input"):
            sys.exit(f"op {i} ({op}) is not fed by the op before it: {producer[inp[0]]}")
        if op in ("conv2d", "depthwise_conv2d", "fully_connected"):
            e["fused_activation"] = act
            w_d = tensors[inp[1]]
            w = interp.get_tensor(w_d["index"])
            scales, zps, qdim = qparams(w_d)
            assert w_d["dtype"] == np.int8 and all(z == 0 for z in zps), w_d
            if op == "conv2d":
                assert qdim == 0
                w = w.transpose(0, 3, 1, 2)  # OHWI -> OIHW
            elif op == "depthwise_conv2d":
                assert qdim == 3 and opts.depthMultiplier == 1
                w = w.transpose(3, 0, 1, 2)  # 1HWC -> C1HW
            else:
                assert qdim == 0 and w.ndim == 2
                assert not opts.keepNumDims
                if len(x_d["shape"]) == 4:  # FULLY_CONNECTED flattens its 4D input (H, W, C)
                    _, h, wd, c = [int(v) for v in x_d["shape"]]
                    flattened[inp[0]] = (h, wd, c)
                    notes.append("input is the 4D (C, H, W) = (%d, %d, %d) tensor itself (no "
                                 "RESHAPE); FULLY_CONNECTED flattens it." % (c, h, wd))
                if inp[0] in flattened:
                    h, wd, c = flattened[inp[0]]
                    o_n = w.shape[0]
                    # W_mine[o, c*H*W + h*W + w] = W_tflite[o, h*W*C + w*C + c]
                    w = w.reshape(o_n, h, wd, c).transpose(0, 3, 1, 2).reshape(o_n, -1)
                    e["weights_permuted_from_nhwc"] = [h, wd, c]
                    notes.append("weight columns permuted from Keras' NHWC flatten order (H, W, "
                                 "C) = (%d, %d, %d) to NCHW order: W[o, c*H*W + h*W + w] = "
                                 "W_tflite[o, h*W*C + w*C + c]." % (h, wd, c))
            cout = w.shape[0]
            if len(scales) == 1:
                scales = scales * cout
                e["per_tensor_weights"] = True
            assert len(scales) == cout
            e["weights"] = ints(w)
            e["weight_scales"] = scales
            if len(inp) > 2 and inp[2] >= 0:
                b_d = tensors[inp[2]]
                assert b_d["dtype"] == np.int32
                e["bias"] = ints(interp.get_tensor(b_d["index"]))
            else:
                e["bias"] = [0] * cout
                notes.append("the TFLite operator has no bias tensor; bias written as zeros.")
            if op == "fully_connected":
                e["kernel"], e["stride"], e["padding"] = [1, 1], [1, 1], [0, 0, 0, 0]
                notes.append("kernel/stride/padding/dilation are placeholders for "
                             "fully_connected.")
            else:
                kh, kw = w.shape[2:]
                assert (opts.dilationHFactor, opts.dilationWFactor) == (1, 1)
                assert opts.strideH == opts.strideW
                s = opts.strideH
                e["kernel"], e["stride"] = [int(kh), int(kw)], [s, s]
                assert kh == kw
                e["padding"] = padding_explicit(PAD[opts.padding], e["input_shape"][1:], kh, s)
            e["dilation"] = [1, 1]
        elif op in ("max_pool", "avg_pool"):
            assert opts.strideH == opts.strideW and opts.filterHeight == opts.filterWidth
            k, s = opts.filterHeight, opts.strideH
            e["kernel"], e["stride"] = [k, k], [s, s]
            e["padding"] = padding_explicit(PAD[opts.padding], e["input_shape"][1:], k, s)
            assert (in_scale, in_zp) == (out_scale, out_zp)
        elif op == "mean":
            axis = ints(interp.get_tensor(inp[1]))
            assert sorted(axis) == [1, 2] and len(x_d["shape"]) == 4, axis
            e["axes"] = "HW"
            e["keep_dims"] = bool(opts.keepDims)
            notes.append("MEAN over H and W (TFLite axis %s), keep_dims %s; output has its own "
                         "calibrated scale." % (axis, bool(opts.keepDims)))
        elif op == "add":
            e["fused_activation"] = act
            assert len(inp) == 2 and list(tensors[inp[0]]["shape"]) == list(
                tensors[inp[1]]["shape"])
            e["input2_scale"], e["input2_zero_point"] = single_scale(tensors[inp[1]])
            e["input1_source"] = producer[inp[0]]
            e["input2_source"] = producer[inp[1]]
        elif op == "reshape":
            if (in_scale, in_zp) != (out_scale, out_zp):
                sys.exit(f"RESHAPE {i} changes quantization: {in_scale, in_zp} -> "
                         f"{out_scale, out_zp}")
            if len(x_d["shape"]) == 4 and len(y_d["shape"]) == 2:
                _, h, wd, c = [int(v) for v in x_d["shape"]]
                flattened[o["outputs"][0]] = (h, wd, c)
                notes.append("flattens (C, H, W) = (%d, %d, %d) in NCHW order here; TFLite "
                             "flattens NHWC (H, W, C); the next FULLY_CONNECTED's weights are "
                             "permuted to match." % (c, h, wd))
            notes.append("RESHAPE keeps the input's scale and zero point (a pure copy).")
        if notes:
            e["notes"] = " ".join(notes)
        producer[o["outputs"][0]] = i
        entries.append(e)
    assert producer[sub.outputs[0]] == len(ops) - 1
    return entries, [o["outputs"][0] for o in ops], flattened


def run_chain(entries, x):
    """The model in NCHW with the numpy port, from the fixture's own numbers only."""
    outs = []
    cur = np.asarray(x, np.int64)

    def src(s):
        return np.asarray(x if s == "model_input" else outs[s], np.int64)

    for i, e in enumerate(entries):
        fx = dict(e)
        op = e["op"]
        if op == "add":
            fx["input"] = ints(src(e["input1_source"]))
            fx["input2"] = ints(src(e["input2_source"]))
        else:
            fx["input"] = ints(cur)
        if op in ("conv2d", "depthwise_conv2d"):
            y = ref.check_conv(fx, op == "depthwise_conv2d")
        elif op == "fully_connected":
            y = ref.check_fc(fx)
        elif op in ("max_pool", "avg_pool"):
            y = ref.check_pool(fx, op[:3])
        elif op == "mean":
            y = ref.check_mean(fx)
        elif op == "add":
            y = ref.check_add(fx)
        elif op == "reshape":
            y = np.array(fx["input"], np.int64)  # flattening NCHW is the identity on memory
        else:
            raise ValueError(op)
        cur = np.asarray(y, np.int64).reshape(e["output_shape"])
        outs.append(cur)
    return outs


def make(name, builder, wseed, rng_range, expected):
    keras.utils.set_random_seed(wseed)
    model = builder()
    randomize(model, np.random.default_rng([wseed, 0]))
    shape_hwc = tuple(int(v) for v in model.inputs[0].shape[1:])
    tfl = convert_model(model, shape_hwc, rng_range, wseed)
    sub = operators(tfl)
    interp = Interpreter(model_content=tfl, experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
                         experimental_preserve_all_tensors=True)
    interp.allocate_tensors()
    entries, out_tensors, flattened = describe(interp, sub, expected)

    in_d, out_d = interp.get_input_details()[0], interp.get_output_details()[0]
    assert in_d["dtype"] == np.int8 and out_d["dtype"] == np.int8
    in_scale, in_zp = single_scale(in_d)
    out_scale, out_zp = single_scale(out_d)
    assert (in_scale, in_zp) == (entries[0]["input_scale"], entries[0]["input_zero_point"])
    assert (out_scale, out_zp) == (entries[-1]["output_scale"], entries[-1]["output_zero_point"])
    chw = (shape_hwc[2], shape_hwc[0], shape_hwc[1])

    fixtures = []
    for seed in SEEDS:
        rng = np.random.default_rng([wseed, 2, seed])
        x = rng.integers(-128, 128, size=chw, dtype=np.int64).astype(np.int8)
        interp.set_tensor(in_d["index"], x.transpose(1, 2, 0)[None])
        interp.invoke()
        y = to_mine(interp.get_tensor(out_d["index"]))

        outs = run_chain(entries, x)
        for i, (e, t, mine) in enumerate(zip(entries, out_tensors, outs)):
            theirs = interp.get_tensor(t)
            if t in flattened and theirs.ndim == 2:  # TFLite flattens (H, W, C), we (C, H, W)
                theirs = theirs.reshape(flattened[t]).transpose(2, 0, 1)
            else:
                theirs = to_mine(theirs)
            bad = int(np.count_nonzero(theirs.reshape(-1) != mine.reshape(-1)))
            if bad:
                print(f"  {name} s{seed}: op {i} ({e['op']}) differs in {bad}/{mine.size}")
        final = outs[-1].reshape(-1)
        bad = np.flatnonzero(final != y.reshape(-1).astype(np.int64))
        if bad.size:
            sys.exit(f"{name} seed {seed}: numpy chain differs from TFLite in {bad.size}/"
                     f"{final.size} output bytes")
        fx = {"model": name, "versions": VERSIONS,
              "input_shape": list(chw), "input": ints(x),
              "input_scale": in_scale, "input_zero_point": in_zp,
              "output_shape": list(y.shape), "output": ints(y),
              "output_scale": out_scale, "output_zero_point": out_zp,
              "ops": entries}
        fixtures.append((seed, fx))
    return fixtures


def dump_model(fx):
    head = {k: v for k, v in fx.items() if k != "ops"}
    lines = [f"  {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in head.items()]
    ops = ",\n".join("    " + json.dumps(e, separators=(",", ":")) for e in fx["ops"])
    lines.append(f'  "ops": [\n{ops}\n  ]')
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for name, builder, wseed, rng_range, expected in MODELS:
        for seed, fx in make(name, builder, wseed, rng_range, expected):
            path = OUT / f"{name}_s{seed}.json"
            path.write_text(dump_model(fx))
            path.chmod(0o644)
            ops = ", ".join(e["tflite_op"] + ("(" + e["fused_activation"] + ")"
                                              if e.get("fused_activation", "NONE") != "NONE"
                                              else "") for e in fx["ops"])
            print(f"{path.relative_to(HERE.parent.parent)}: {ops}; out {fx['output_shape']}, "
                  f"{path.stat().st_size} bytes, matches numpy chain")


if __name__ == "__main__":
    main()

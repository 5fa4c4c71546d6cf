#!/usr/bin/env python3
"""TensorFlow Lite int8 fixtures for the four MLPerf Tiny models (tests/reference/int8_mlperf/).

What it makes
-------------
resnet8, ds_cnn, mobilenet_v1 and fc_autoencoder (samples/mlperf_tiny/*.hpp) built as Keras
models (float32, NHWC, batch 1) from staticnet's own flattened layer list, which is copied
verbatim into LAYERS at the end of this file: per layer its index, kind, the layers it reads
(-1 = the model input, -2 = none), kernel, stride, padding before..after (H,W), SAME or not and
the output shape (batch first, NCHW). Each staticnet layer becomes one Keras layer named after
its index: Conv2d -> Conv2D "L<i>_conv", DepthwiseConv2d -> DepthwiseConv2D "L<i>_dwconv"
(depth multiplier 1), Linear -> Dense "L<i>_dense", BatchNorm2d/1d -> BatchNormalization
"L<i>_bn" (Keras' epsilon 1e-3, momentum 0.99, as samples/mlperf_tiny/keras_layers.hpp), ReLU
-> "L<i>_relu", Dropout -> "L<i>_dropout" (identity at inference), Add -> "L<i>_add" with inputs
[a, b] in the list's order (body, shortcut), GlobalAvgPool2d -> GlobalAveragePooling2D
"L<i>_gap". Every conv / dense has a bias (the list says bias1); the ResNet-8 1x1 stride-2
shortcut convs have no BatchNorm (the list has none). Every Keras output shape is checked
against the list, and so is the padding TFLite's SAME gives (against "pad").

Weights: make_int8_model_fixtures.randomize (seeded; BatchNormalization gamma sometimes
negative, beta / moving_mean random, moving_variance in [0.3, 2]). Conversion:
make_int8_fixtures.convert (Optimize.DEFAULT, TFLITE_BUILTINS_INT8, int8 input and output, 32
seeded random representative samples uniform in a range not symmetric around zero). The model
runs under LiteRT's reference kernels (OpResolverType.BUILTIN_REF) on ONE seeded random int8
input; the fixture is tests/reference/int8_mlperf/<model>.json.

Fixture format: that of make_int8_model_fixtures.py ("model", "versions", "input_shape",
"input", "input_scale" / "input_zero_point", "output_shape", "output", "output_scale" /
"output_zero_point", "ops" in TFLite's execution order, same per-op fields, layouts, padding
and activation ranges), with these changes:
  * every op entry has "layer": the staticnet layer index of its main layer (the Conv2d /
    DepthwiseConv2d / Linear for CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED, whose BatchNorm
    is folded in and whose ReLU is fused; the Add for ADD, whose following ReLU is fused; the
    GlobalAvgPool2d for MEAN). It is read from the Keras layer names that TFLite keeps in the
    op's tensor names, and the script checks it against the graph: every main layer is exactly
    one op, every op input comes from the op of the layer staticnet reads (through folded
    BatchNorm / ReLU / Dropout), fused_activation is RELU exactly where a ReLU follows, shapes,
    kernel, stride and padding are the list's. An op's input is thus the output of the op whose
    "layer" is the main layer that staticnet's reads lead back to (or the model input);
  * ADD: "input_scale" / "input_zero_point" are those of the body branch (the first layer the
    staticnet Add reads), "input2_*" those of the shortcut (the second), whatever order TFLite
    wires them; "tflite_inputs_swapped" says whether TFLite's input 1 is the shortcut (ADD is
    symmetric in its inputs, so the swap does not change the result). "input1_source" /
    "input2_source" (index in "ops", or "model_input") follow the same body / shortcut order;
  * "weights_b64": standard base64 of the int8 weight bytes (PyTorch layout: conv (O, I, KH,
    KW), depthwise (C, 1, KH, KW), fully connected (O, I), given in "weight_shape") instead
    of "weights"; "bias", "weight_scales", "input", "output" stay JSON lists. Kernels may be
    non-square (ds_cnn's first conv is 10x4): "kernel" [KH, KW], "stride" [SH, SW],
    "padding" [top, left, bottom, right].
Converter ops outside {CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, ADD, MEAN} stop the script
(RESHAPE and pools are not emitted for these models and are not handled).

What the converter made (TF 2.21): every conv / depthwise / dense has BatchNorm folded (per-
channel weight scales, FULLY_CONNECTED included, int32 bias) and the ReLU fused; ADD(RELU);
GlobalAveragePooling2D is MEAN (keep_dims false, own output scale) feeding FULLY_CONNECTED with
no RESHAPE. See main()'s printout for the op lists and ADD wiring.

Check: the script recomputes each model's int8 output in numpy, NCHW, from the fixture's own
numbers (the numpy port of the reference kernels in make_int8_fixtures.py), chaining ops by
"layer" and the staticnet graph (only the model input comes from outside), and stops if any
byte of the final output differs from TFLite's; every intermediate tensor (read with
experimental_preserve_all_tensors) is compared too, and a difference there stops it as well.

Run (from the repository root; the venv is the one make_int8_fixtures.py describes):
  /tmp/tfenv/bin/python tests/reference/make_int8_mlperf_fixtures.py

Made with tensorflow-cpu 2.21.0 (Keras 3.15.1), ai-edge-litert 2.3.0, numpy 2.4.6, Python 3.11
(written into every fixture). Deterministic: a second run rewrites identical files.
"""
import base64
import json
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

# Both only import TensorFlow / LiteRT / Keras and define functions (their main() is guarded).
import make_int8_fixtures as ref  # noqa: E402
import make_int8_model_fixtures as mf  # noqa: E402
from make_int8_fixtures import (  # noqa: E402
    ACT, PAD, Interpreter, OpResolverType, activation_range, ints, np, qparams, schema,
    single_scale)
from make_int8_model_fixtures import keras, layers, mine_shape, to_mine  # noqa: E402

OUT = HERE / "int8_mlperf"
VERSIONS = mf.VERSIONS

# name, weight seed, representative-dataset range (not symmetric around zero)
MODELS = [
    ("resnet8", 20, (-1.0, 3.0)),
    ("ds_cnn", 21, (-2.0, 1.5)),
    ("mobilenet_v1", 22, (-0.5, 2.0)),
    ("fc_autoencoder", 23, (-1.5, 2.5)),
]

MAIN = {"Conv2d": ("CONV_2D", "conv2d", "conv"),
        "DepthwiseConv2d": ("DEPTHWISE_CONV_2D", "depthwise_conv2d", "dwconv"),
        "Linear": ("FULLY_CONNECTED", "fully_connected", "dense"),
        "Add": ("ADD", "add", "add"),
        "GlobalAvgPool2d": ("MEAN", "mean", "gap")}
FOLDED = {"BatchNorm2d": "bn", "BatchNorm1d": "bn", "ReLU": "relu", "Dropout": "dropout"}
ALLOWED = {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "ADD", "MEAN", "RESHAPE",
           "MAX_POOL_2D", "AVERAGE_POOL_2D"}
HANDLED = {v[0] for v in MAIN.values()}
NAME_RE = re.compile(r"(?<![A-Za-z0-9_])L(\d+)_(conv|dwconv|dense|add|gap)(?=[_/;]|$)")


# ----------------------------------------------------------------------------------------------
# staticnet's layer list

LINE_RE = re.compile(
    r"^\s+(\d+) (\w+) reads \[(-?\d+) (-?\d+)\] k(\d+)x(\d+) s(\d+)x(\d+) "
    r"pad (\d+),(\d+)\.\.(\d+),(\d+) same(\d) groups(\d+) bias(\d) out\(([\d ]+)\)")


def parse_layers(text):
    models, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"^(\w+): input \(([\d, ]+)\)", line)
        if m:
            cur = m.group(1)
            shape = [int(v) for v in m.group(2).split(",")]
            assert shape[0] == 1
            shape = shape[1:] if shape[2] else shape[1:2]  # (1, 640, 0, 0) is flat
            models[cur] = dict(input_shape=shape, layers=[])
            continue
        m = LINE_RE.match(line)
        if m:
            g = [int(v) if re.fullmatch(r"-?\d+", v) else v for v in m.groups()[:15]]
            out = [int(v) for v in m.group(16).split()]
            lay = dict(i=g[0], kind=g[1], reads=[r for r in g[2:4] if r != -2],
                       k=[g[4], g[5]], s=[g[6], g[7]], pad=[g[8], g[9], g[10], g[11]],
                       same=bool(g[12]), bias=bool(g[14]), out=out[1:])
            assert out[0] == 1 and lay["i"] == len(models[cur]["layers"]), line
            assert lay["kind"] in MAIN or lay["kind"] in FOLDED, lay["kind"]
            models[cur]["layers"].append(lay)
        elif line.strip() and not line.strip().startswith("flash"):
            raise ValueError(f"unparsed layer line: {line!r}")
    return models


class Graph:
    """The staticnet graph with BatchNorm / ReLU / Dropout folded into the layer before them."""

    def __init__(self, spec):
        self.spec = spec
        self.layers = spec["layers"]
        self.owner = {}
        for lay in self.layers:
            i = lay["i"]
            if lay["kind"] in MAIN:
                self.owner[i] = i
            else:
                assert len(lay["reads"]) == 1
                self.owner[i] = self.source(lay["reads"][0])
                assert self.owner[i] != "model_input", f"layer {i} folds into the model input"
        readers = {}
        for lay in self.layers:
            for r in lay["reads"]:
                readers.setdefault(r, []).append(lay["i"])
        # The chain of each main layer: itself, then the folded layers after it, one at a time.
        self.chain, self.end = {}, {}
        for lay in self.layers:
            i = lay["i"]
            if lay["kind"] not in MAIN:
                continue
            chain = [i]
            while True:
                nxt = [r for r in readers.get(chain[-1], []) if self.layers[r]["kind"] in FOLDED]
                if not nxt:
                    break
                # A folded layer must be the only reader of what it folds into.
                assert readers[chain[-1]] == nxt and len(nxt) == 1, (chain, readers[chain[-1]])
                chain.append(nxt[0])
            self.chain[i], self.end[i] = chain, chain[-1]
        for j, o in self.owner.items():
            assert j in self.chain[o], (j, o)
        self.mains = sorted(self.chain)
        self.last = self.owner[self.layers[-1]["i"]]

    def source(self, r):
        """The main layer whose (fused) op produces what layer index r holds."""
        return "model_input" if r == -1 else self.owner[r]

    def inputs(self, i):
        return [self.source(r) for r in self.layers[i]["reads"]]

    def relu(self, i):
        return any(self.layers[j]["kind"] == "ReLU" for j in self.chain[i])

    def out_shape(self, i):
        return self.layers[self.end[i]]["out"]


# ----------------------------------------------------------------------------------------------
# Keras model

def build(spec):
    shape = spec["input_shape"]
    nhwc = (shape[1], shape[2], shape[0]) if len(shape) == 3 else tuple(shape)
    inp = keras.Input(nhwc, batch_size=1, name="x")
    outs = {-1: inp}
    for lay in spec["layers"]:
        i, kind = lay["i"], lay["kind"]
        x = [outs[r] for r in lay["reads"]]
        padding = "same" if lay["same"] else "valid"
        if kind == "Conv2d":
            y = layers.Conv2D(lay["out"][0], tuple(lay["k"]), strides=tuple(lay["s"]),
                              padding=padding, use_bias=lay["bias"], name=f"L{i}_conv")(x[0])
        elif kind == "DepthwiseConv2d":
            assert lay["out"][0] == int(x[0].shape[-1])
            y = layers.DepthwiseConv2D(tuple(lay["k"]), strides=tuple(lay["s"]), padding=padding,
                                       use_bias=lay["bias"], name=f"L{i}_dwconv")(x[0])
        elif kind == "Linear":
            y = layers.Dense(lay["out"][0], use_bias=lay["bias"], name=f"L{i}_dense")(x[0])
        elif kind in ("BatchNorm2d", "BatchNorm1d"):
            y = layers.BatchNormalization(epsilon=1e-3, momentum=0.99, name=f"L{i}_bn")(x[0])
        elif kind == "ReLU":
            y = layers.ReLU(name=f"L{i}_relu")(x[0])
        elif kind == "Dropout":
            y = layers.Dropout(0.2, name=f"L{i}_dropout")(x[0])
        elif kind == "Add":
            assert len(x) == 2
            y = layers.Add(name=f"L{i}_add")(x)  # [body, shortcut] as staticnet reads them
        elif kind == "GlobalAvgPool2d":
            y = layers.GlobalAveragePooling2D(name=f"L{i}_gap")(x[0])
        else:
            raise ValueError(kind)
        got = [int(v) for v in y.shape]
        assert got[0] == 1 and mine_shape(got) == lay["out"], (i, kind, got, lay["out"])
        if kind in ("Conv2d", "DepthwiseConv2d"):
            pad = padding_2d(padding.upper(), [int(v) for v in x[0].shape[1:3]], lay["k"],
                             lay["s"])
            assert pad == [lay["pad"][0], lay["pad"][1], lay["pad"][2], lay["pad"][3]], \
                (i, pad, lay["pad"])
        outs[i] = y
    return keras.Model(inp, outs[spec["layers"][-1]["i"]])


def padding_2d(padding, in_hw, k, stride):
    """[top, left, bottom, right] as TFLite computes it (see make_int8_fixtures.py)."""
    pads = []
    for n, kk, s in zip(in_hw, k, stride):
        out = (n + s - 1) // s if padding == "SAME" else (n - kk) // s + 1
        total = max(0, (out - 1) * s + kk - n)
        pads.append((total // 2, total - total // 2))
    (top, bottom), (left, right) = pads
    return [top, left, bottom, right]


# ----------------------------------------------------------------------------------------------
# TFLite model -> op entries

def layer_of(names, graph):
    """The one staticnet main layer named in an op's tensor names (Keras layer names)."""
    found = set()
    for n in names:
        for idx, tag in NAME_RE.findall(n):
            found.add((int(idx), tag))
    if len(found) != 1:
        sys.exit(f"cannot tell the op's layer from its tensor names: {sorted(found)} in {names}")
    (idx, tag), = found
    kind = graph.layers[idx]["kind"]
    assert kind in MAIN and MAIN[kind][2] == tag, (idx, tag, kind)
    return idx


def describe(interp, tfl, graph):
    sub = schema.ModelT.InitFromPackedBuf(tfl, 0).subgraphs[0]
    assert len(sub.inputs) == 1 and len(sub.outputs) == 1
    tensors = {d["index"]: d for d in interp.get_tensor_details()}
    ops = interp._get_ops_details()
    assert len(ops) == len(sub.operators)
    names = [o["op_name"] for o in ops]
    outside = sorted(set(names) - ALLOWED)
    if outside:
        sys.exit(f"the converter emitted ops outside the allowed set: {outside} (all: {names})")
    unhandled = sorted(set(names) - HANDLED)
    if unhandled:
        sys.exit(f"the converter emitted {unhandled}, which this script does not handle yet "
                 f"(all: {names})")

    # Tag every op with its staticnet layer.
    tags = []
    for o in ops:
        n_act = 2 if o["op_name"] == "ADD" else 1  # activation inputs name other layers
        tnames = [tensors[t]["name"] for t in list(o["inputs"][n_act:]) + list(o["outputs"])
                  if t >= 0]
        i = layer_of(tnames, graph)
        if MAIN[graph.layers[i]["kind"]][0] != o["op_name"]:
            sys.exit(f"op {o['op_name']} tagged with layer {i} ({graph.layers[i]['kind']})")
        tags.append(i)
    if sorted(tags) != graph.mains:
        sys.exit(f"ops {sorted(tags)} do not cover staticnet's main layers {graph.mains} "
                 f"exactly once")

    producer = {sub.inputs[0]: ("model_input", "model_input")}  # tensor -> (layer, op index)
    for k, o in enumerate(ops):
        producer[int(o["outputs"][0])] = (tags[k], k)
    if producer[sub.outputs[0]][0] != graph.last:
        sys.exit(f"model output is not produced by layer {graph.last}'s op")

    entries = []
    for k, (o, so, li) in enumerate(zip(ops, sub.operators, tags)):
        lay = graph.layers[li]
        opts = so.builtinOptions
        op = MAIN[lay["kind"]][1]
        inp = [int(t) for t in o["inputs"]]
        x_d, y_d = tensors[inp[0]], tensors[o["outputs"][0]]
        assert x_d["dtype"] == np.int8 and y_d["dtype"] == np.int8, (x_d, y_d)
        want_src = graph.inputs(li)
        n_act = 2 if op == "add" else 1
        got_src = [producer[t][0] for t in inp[:n_act]]
        swapped = False
        if op == "add":
            if got_src == want_src[::-1] and want_src[0] != want_src[1]:
                swapped = True
                inp = [inp[1], inp[0]] + inp[2:]
                got_src = got_src[::-1]
        if got_src != want_src:
            sys.exit(f"op {k} (layer {li}) reads {got_src}; staticnet's graph says {want_src}")
        x_d = tensors[inp[0]]
        in_scale, in_zp = single_scale(x_d)
        out_scale, out_zp = single_scale(y_d)
        act = ACT[opts.fusedActivationFunction] if op != "mean" else None
        want_act = "RELU" if graph.relu(li) else "NONE"
        if op != "mean" and act != want_act:
            sys.exit(f"op {k} (layer {li}): fused activation {act}, expected {want_act}")
        if op == "mean":
            assert not graph.relu(li)
        e = {"op": op, "tflite_op": o["op_name"], "layer": li,
             "input_shape": mine_shape(x_d["shape"]), "output_shape": mine_shape(y_d["shape"]),
             "input_scale": in_scale, "input_zero_point": in_zp,
             "output_scale": out_scale, "output_zero_point": out_zp}
        want_in = (graph.spec["input_shape"] if want_src[0] == "model_input"
                   else graph.out_shape(want_src[0]))
        assert e["input_shape"] == want_in, (k, e["input_shape"], want_in)
        assert e["output_shape"] == graph.out_shape(li), (k, e["output_shape"])
        e["activation_min"], e["activation_max"] = activation_range(act or "NONE", out_scale,
                                                                     out_zp)
        notes = []
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
                assert qdim == 0 and w.ndim == 2 and len(x_d["shape"]) == 2
                assert not opts.keepNumDims
            cout = w.shape[0]
            assert cout == e["output_shape"][0]
            if len(scales) == 1:
                scales = scales * cout
                e["per_tensor_weights"] = True
                notes.append("per-tensor weight scale (written once per output channel).")
            assert len(scales) == cout
            e["weights_b64"] = base64.b64encode(
                np.ascontiguousarray(w, dtype=np.int8).tobytes()).decode("ascii")
            e["weight_shape"] = [int(v) for v in w.shape]
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
                kh, kw = (int(v) for v in w.shape[2:])
                assert (opts.dilationHFactor, opts.dilationWFactor) == (1, 1)
                e["kernel"], e["stride"] = [kh, kw], [opts.strideH, opts.strideW]
                e["padding"] = padding_2d(PAD[opts.padding], e["input_shape"][1:], [kh, kw],
                                          e["stride"])
                assert e["kernel"] == lay["k"] and e["stride"] == lay["s"], (k, e, lay)
                assert (PAD[opts.padding] == "SAME") == lay["same"]
                assert e["padding"] == lay["pad"], (k, e["padding"], lay["pad"])
            e["dilation"] = [1, 1]
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
            e["input1_source"] = producer[inp[0]][1]
            e["input2_source"] = producer[inp[1]][1]
            e["tflite_inputs_swapped"] = swapped
            notes.append("input (1) is the body branch (staticnet layer %d), input2 the shortcut "
                         "(layer %d)%s." % (
                             lay["reads"][0], lay["reads"][1],
                             "; TFLite wires them the other way round (input 1 = shortcut)"
                             if swapped else ", as TFLite wires them"))
        if notes:
            e["notes"] = " ".join(notes)
        entries.append(e)
    return entries, [int(o["outputs"][0]) for o in ops], sub


def run_chain(entries, x, graph):
    """The model in NCHW with the numpy port, from the fixture's own numbers only, each op fed
    by the op whose "layer" staticnet's graph says it reads."""
    by_layer = {}
    outs = [None] * len(entries)
    pending = list(range(len(entries)))

    def value(src):
        return np.asarray(x, np.int64) if src == "model_input" else by_layer.get(src)

    while pending:  # execution order is TFLite's; any topological order gives the same values
        progressed = False
        for k in list(pending):
            e = entries[k]
            srcs = [value(s) for s in graph.inputs(e["layer"])]
            if any(s is None for s in srcs):
                continue
            fx = dict(e)
            fx["input"] = ints(srcs[0])
            if e["op"] == "add":
                fx["input2"] = ints(srcs[1])
            if "weights_b64" in e:
                fx["weights"] = ints(np.frombuffer(base64.b64decode(e["weights_b64"]), np.int8))
            op = e["op"]
            if op in ("conv2d", "depthwise_conv2d"):
                y = ref.check_conv(fx, op == "depthwise_conv2d")
            elif op == "fully_connected":
                y = ref.check_fc(fx)
            elif op == "mean":
                y = ref.check_mean(fx)
            elif op == "add":
                y = ref.check_add(fx)
            else:
                raise ValueError(op)
            y = np.asarray(y, np.int64).reshape(e["output_shape"])
            by_layer[e["layer"]] = outs[k] = y
            pending.remove(k)
            progressed = True
        assert progressed, "op graph has a cycle or a missing input"
    return outs, by_layer[graph.last]


def make(name, wseed, rng_range, spec):
    graph = Graph(spec)
    keras.utils.set_random_seed(wseed)
    model = build(spec)
    mf.randomize(model, np.random.default_rng([wseed, 0]))
    shape_hwc = tuple(int(v) for v in model.inputs[0].shape[1:])
    tfl = mf.convert_model(model, shape_hwc, rng_range, wseed)
    interp = Interpreter(model_content=tfl, experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
                         experimental_preserve_all_tensors=True)
    interp.allocate_tensors()
    entries, out_tensors, sub = describe(interp, tfl, graph)

    in_d, out_d = interp.get_input_details()[0], interp.get_output_details()[0]
    assert in_d["dtype"] == np.int8 and out_d["dtype"] == np.int8
    in_scale, in_zp = single_scale(in_d)
    out_scale, out_zp = single_scale(out_d)
    first = [e for e in entries if graph.inputs(e["layer"])[0] == "model_input"]
    assert all((e["input_scale"], e["input_zero_point"]) == (in_scale, in_zp) for e in first)
    last = next(e for e in entries if e["layer"] == graph.last)
    assert (out_scale, out_zp) == (last["output_scale"], last["output_zero_point"])

    shape = spec["input_shape"]
    rng = np.random.default_rng([wseed, 2, 0])
    x = rng.integers(-128, 128, size=shape, dtype=np.int64).astype(np.int8)
    interp.set_tensor(in_d["index"], x.transpose(1, 2, 0)[None] if x.ndim == 3 else x[None])
    interp.invoke()
    y = to_mine(interp.get_tensor(out_d["index"]))

    outs, final = run_chain(entries, x, graph)
    bad_ops = []
    for k, (e, t, mine) in enumerate(zip(entries, out_tensors, outs)):
        theirs = to_mine(interp.get_tensor(t))
        bad = int(np.count_nonzero(theirs.reshape(-1) != mine.reshape(-1)))
        if bad:
            bad_ops.append(f"op {k} (layer {e['layer']}, {e['op']}) differs in {bad}/{mine.size}")
    final = final.reshape(-1)
    bad = np.flatnonzero(final != y.reshape(-1).astype(np.int64))
    if bad.size or bad_ops:
        sys.exit(f"{name}: numpy chain differs from TFLite in {bad.size}/{final.size} output "
                 f"bytes; {'; '.join(bad_ops)}")
    if len(set(ints(y))) < 2:
        sys.exit(f"{name}: the output is constant ({ints(y)[:4]}...); pick other seeds")
    fx = {"model": name, "versions": VERSIONS,
          "input_shape": list(shape), "input": ints(x),
          "input_scale": in_scale, "input_zero_point": in_zp,
          "output_shape": list(y.shape), "output": ints(y),
          "output_scale": out_scale, "output_zero_point": out_zp,
          "ops": entries}
    return fx


def main():
    specs = parse_layers(LAYERS)
    assert sorted(specs) == sorted(m[0] for m in MODELS)
    OUT.mkdir(parents=True, exist_ok=True)
    for name, wseed, rng_range in MODELS:
        fx = make(name, wseed, rng_range, specs[name])
        path = OUT / f"{name}.json"
        path.write_text(mf.dump_model(fx))
        path.chmod(0o644)
        ops = ", ".join("L%d:%s%s" % (e["layer"], e["tflite_op"],
                                      "(" + e["fused_activation"] + ")"
                                      if e.get("fused_activation", "NONE") != "NONE" else "")
                        for e in fx["ops"])
        adds = "; ".join("ADD L%d %s" % (e["layer"], "swapped" if e["tflite_inputs_swapped"]
                                          else "not swapped")
                         for e in fx["ops"] if e["op"] == "add")
        per_tensor = [e["layer"] for e in fx["ops"] if e.get("per_tensor_weights")]
        print(f"{path.relative_to(HERE.parent.parent)}: {len(fx['ops'])} ops: {ops}"
              f"{'; ' + adds if adds else ''}; per-tensor weights: {per_tensor or 'none'}; "
              f"out {fx['output_shape']}, {path.stat().st_size} bytes, matches numpy chain")


# staticnet's flattened layers, verbatim (index, kind, reads, kernel, stride, padding
# before..after (H,W), SAME, groups, bias, output shape batch first; BatchNorm "folded").
LAYERS = r"""
resnet8: input (1, 3, 32, 32)
  0 Conv2d reads [-1 -2] k3x3 s1x1 pad 1,1..1,1 same1 groups1 bias1 out(1 16 32 32 )
  1 BatchNorm2d reads [0 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 16 32 32 ) folded
  2 ReLU reads [1 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 16 32 32 )
  3 Conv2d reads [2 -2] k3x3 s1x1 pad 1,1..1,1 same1 groups1 bias1 out(1 16 32 32 )
  4 BatchNorm2d reads [3 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 16 32 32 ) folded
  5 ReLU reads [4 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 16 32 32 )
  6 Conv2d reads [5 -2] k3x3 s1x1 pad 1,1..1,1 same1 groups1 bias1 out(1 16 32 32 )
  7 BatchNorm2d reads [6 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 16 32 32 ) folded
  8 Add reads [7 2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 16 32 32 )
  9 ReLU reads [8 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 16 32 32 )
  10 Conv2d reads [9 -2] k3x3 s2x2 pad 0,0..1,1 same1 groups1 bias1 out(1 32 16 16 )
  11 BatchNorm2d reads [10 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 32 16 16 ) folded
  12 ReLU reads [11 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 32 16 16 )
  13 Conv2d reads [12 -2] k3x3 s1x1 pad 1,1..1,1 same1 groups1 bias1 out(1 32 16 16 )
  14 BatchNorm2d reads [13 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 32 16 16 ) folded
  15 Conv2d reads [9 -2] k1x1 s2x2 pad 0,0..0,0 same1 groups1 bias1 out(1 32 16 16 )
  16 Add reads [14 15] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 32 16 16 )
  17 ReLU reads [16 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 32 16 16 )
  18 Conv2d reads [17 -2] k3x3 s2x2 pad 0,0..1,1 same1 groups1 bias1 out(1 64 8 8 )
  19 BatchNorm2d reads [18 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 8 8 ) folded
  20 ReLU reads [19 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 8 8 )
  21 Conv2d reads [20 -2] k3x3 s1x1 pad 1,1..1,1 same1 groups1 bias1 out(1 64 8 8 )
  22 BatchNorm2d reads [21 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 8 8 ) folded
  23 Conv2d reads [17 -2] k1x1 s2x2 pad 0,0..0,0 same1 groups1 bias1 out(1 64 8 8 )
  24 Add reads [22 23] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 8 8 )
  25 ReLU reads [24 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 8 8 )
  26 GlobalAvgPool2d reads [25 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 )
  27 Linear reads [26 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 10 )
  flash 81520 sram 52224
ds_cnn: input (1, 1, 49, 10)
  0 Conv2d reads [-1 -2] k10x4 s2x2 pad 4,1..5,1 same1 groups1 bias1 out(1 64 25 5 )
  1 BatchNorm2d reads [0 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 25 5 ) folded
  2 ReLU reads [1 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 25 5 )
  3 Dropout reads [2 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 25 5 )
  4 DepthwiseConv2d reads [3 -2] k3x3 s1x1 pad 1,1..1,1 same1 groups1 bias1 out(1 64 25 5 )
  5 BatchNorm2d reads [4 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 25 5 ) folded
  6 ReLU reads [5 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 25 5 )
  7 Conv2d reads [6 -2] k1x1 s1x1 pad 0,0..0,0 same1 groups1 bias1 out(1 64 25 5 )
  8 BatchNorm2d reads [7 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 25 5 ) folded
  9 ReLU reads [8 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 25 5 )
  10 DepthwiseConv2d reads [9 -2] k3x3 s1x1 pad 1,1..1,1 same1 groups1 bias1 out(1 64 25 5 )
  11 BatchNorm2d reads [10 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 25 5 ) folded
  12 ReLU reads [11 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 25 5 )
  13 Conv2d reads [12 -2] k1x1 s1x1 pad 0,0..0,0 same1 groups1 bias1 out(1 64 25 5 )
  14 BatchNorm2d reads [13 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 25 5 ) folded
  15 ReLU reads [14 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 25 5 )
  16 DepthwiseConv2d reads [15 -2] k3x3 s1x1 pad 1,1..1,1 same1 groups1 bias1 out(1 64 25 5 )
  17 BatchNorm2d reads [16 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 25 5 ) folded
  18 ReLU reads [17 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 25 5 )
  19 Conv2d reads [18 -2] k1x1 s1x1 pad 0,0..0,0 same1 groups1 bias1 out(1 64 25 5 )
  20 BatchNorm2d reads [19 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 25 5 ) folded
  21 ReLU reads [20 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 25 5 )
  22 DepthwiseConv2d reads [21 -2] k3x3 s1x1 pad 1,1..1,1 same1 groups1 bias1 out(1 64 25 5 )
  23 BatchNorm2d reads [22 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 25 5 ) folded
  24 ReLU reads [23 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 25 5 )
  25 Conv2d reads [24 -2] k1x1 s1x1 pad 0,0..0,0 same1 groups1 bias1 out(1 64 25 5 )
  26 BatchNorm2d reads [25 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 25 5 ) folded
  27 ReLU reads [26 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 25 5 )
  28 Dropout reads [27 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 25 5 )
  29 GlobalAvgPool2d reads [28 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 )
  30 Linear reads [29 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 12 )
  flash 29072 sram 16496
mobilenet_v1: input (1, 3, 96, 96)
  0 Conv2d reads [-1 -2] k3x3 s2x2 pad 0,0..1,1 same1 groups1 bias1 out(1 8 48 48 )
  1 BatchNorm2d reads [0 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 8 48 48 ) folded
  2 ReLU reads [1 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 8 48 48 )
  3 DepthwiseConv2d reads [2 -2] k3x3 s1x1 pad 1,1..1,1 same1 groups1 bias1 out(1 8 48 48 )
  4 BatchNorm2d reads [3 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 8 48 48 ) folded
  5 ReLU reads [4 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 8 48 48 )
  6 Conv2d reads [5 -2] k1x1 s1x1 pad 0,0..0,0 same1 groups1 bias1 out(1 16 48 48 )
  7 BatchNorm2d reads [6 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 16 48 48 ) folded
  8 ReLU reads [7 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 16 48 48 )
  9 DepthwiseConv2d reads [8 -2] k3x3 s2x2 pad 0,0..1,1 same1 groups1 bias1 out(1 16 24 24 )
  10 BatchNorm2d reads [9 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 16 24 24 ) folded
  11 ReLU reads [10 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 16 24 24 )
  12 Conv2d reads [11 -2] k1x1 s1x1 pad 0,0..0,0 same1 groups1 bias1 out(1 32 24 24 )
  13 BatchNorm2d reads [12 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 32 24 24 ) folded
  14 ReLU reads [13 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 32 24 24 )
  15 DepthwiseConv2d reads [14 -2] k3x3 s1x1 pad 1,1..1,1 same1 groups1 bias1 out(1 32 24 24 )
  16 BatchNorm2d reads [15 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 32 24 24 ) folded
  17 ReLU reads [16 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 32 24 24 )
  18 Conv2d reads [17 -2] k1x1 s1x1 pad 0,0..0,0 same1 groups1 bias1 out(1 32 24 24 )
  19 BatchNorm2d reads [18 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 32 24 24 ) folded
  20 ReLU reads [19 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 32 24 24 )
  21 DepthwiseConv2d reads [20 -2] k3x3 s2x2 pad 0,0..1,1 same1 groups1 bias1 out(1 32 12 12 )
  22 BatchNorm2d reads [21 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 32 12 12 ) folded
  23 ReLU reads [22 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 32 12 12 )
  24 Conv2d reads [23 -2] k1x1 s1x1 pad 0,0..0,0 same1 groups1 bias1 out(1 64 12 12 )
  25 BatchNorm2d reads [24 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 12 12 ) folded
  26 ReLU reads [25 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 12 12 )
  27 DepthwiseConv2d reads [26 -2] k3x3 s1x1 pad 1,1..1,1 same1 groups1 bias1 out(1 64 12 12 )
  28 BatchNorm2d reads [27 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 12 12 ) folded
  29 ReLU reads [28 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 12 12 )
  30 Conv2d reads [29 -2] k1x1 s1x1 pad 0,0..0,0 same1 groups1 bias1 out(1 64 12 12 )
  31 BatchNorm2d reads [30 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 12 12 ) folded
  32 ReLU reads [31 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 12 12 )
  33 DepthwiseConv2d reads [32 -2] k3x3 s2x2 pad 0,0..1,1 same1 groups1 bias1 out(1 64 6 6 )
  34 BatchNorm2d reads [33 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 6 6 ) folded
  35 ReLU reads [34 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 64 6 6 )
  36 Conv2d reads [35 -2] k1x1 s1x1 pad 0,0..0,0 same1 groups1 bias1 out(1 128 6 6 )
  37 BatchNorm2d reads [36 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 6 6 ) folded
  38 ReLU reads [37 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 6 6 )
  39 DepthwiseConv2d reads [38 -2] k3x3 s1x1 pad 1,1..1,1 same1 groups1 bias1 out(1 128 6 6 )
  40 BatchNorm2d reads [39 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 6 6 ) folded
  41 ReLU reads [40 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 6 6 )
  42 Conv2d reads [41 -2] k1x1 s1x1 pad 0,0..0,0 same1 groups1 bias1 out(1 128 6 6 )
  43 BatchNorm2d reads [42 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 6 6 ) folded
  44 ReLU reads [43 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 6 6 )
  45 DepthwiseConv2d reads [44 -2] k3x3 s1x1 pad 1,1..1,1 same1 groups1 bias1 out(1 128 6 6 )
  46 BatchNorm2d reads [45 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 6 6 ) folded
  47 ReLU reads [46 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 6 6 )
  48 Conv2d reads [47 -2] k1x1 s1x1 pad 0,0..0,0 same1 groups1 bias1 out(1 128 6 6 )
  49 BatchNorm2d reads [48 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 6 6 ) folded
  50 ReLU reads [49 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 6 6 )
  51 DepthwiseConv2d reads [50 -2] k3x3 s1x1 pad 1,1..1,1 same1 groups1 bias1 out(1 128 6 6 )
  52 BatchNorm2d reads [51 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 6 6 ) folded
  53 ReLU reads [52 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 6 6 )
  54 Conv2d reads [53 -2] k1x1 s1x1 pad 0,0..0,0 same1 groups1 bias1 out(1 128 6 6 )
  55 BatchNorm2d reads [54 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 6 6 ) folded
  56 ReLU reads [55 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 6 6 )
  57 DepthwiseConv2d reads [56 -2] k3x3 s1x1 pad 1,1..1,1 same1 groups1 bias1 out(1 128 6 6 )
  58 BatchNorm2d reads [57 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 6 6 ) folded
  59 ReLU reads [58 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 6 6 )
  60 Conv2d reads [59 -2] k1x1 s1x1 pad 0,0..0,0 same1 groups1 bias1 out(1 128 6 6 )
  61 BatchNorm2d reads [60 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 6 6 ) folded
  62 ReLU reads [61 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 6 6 )
  63 DepthwiseConv2d reads [62 -2] k3x3 s1x1 pad 1,1..1,1 same1 groups1 bias1 out(1 128 6 6 )
  64 BatchNorm2d reads [63 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 6 6 ) folded
  65 ReLU reads [64 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 6 6 )
  66 Conv2d reads [65 -2] k1x1 s1x1 pad 0,0..0,0 same1 groups1 bias1 out(1 128 6 6 )
  67 BatchNorm2d reads [66 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 6 6 ) folded
  68 ReLU reads [67 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 6 6 )
  69 DepthwiseConv2d reads [68 -2] k3x3 s2x2 pad 0,0..1,1 same1 groups1 bias1 out(1 128 3 3 )
  70 BatchNorm2d reads [69 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 3 3 ) folded
  71 ReLU reads [70 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 3 3 )
  72 Conv2d reads [71 -2] k1x1 s1x1 pad 0,0..0,0 same1 groups1 bias1 out(1 256 3 3 )
  73 BatchNorm2d reads [72 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 256 3 3 ) folded
  74 ReLU reads [73 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 256 3 3 )
  75 DepthwiseConv2d reads [74 -2] k3x3 s1x1 pad 1,1..1,1 same1 groups1 bias1 out(1 256 3 3 )
  76 BatchNorm2d reads [75 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 256 3 3 ) folded
  77 ReLU reads [76 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 256 3 3 )
  78 Conv2d reads [77 -2] k1x1 s1x1 pad 0,0..0,0 same1 groups1 bias1 out(1 256 3 3 )
  79 BatchNorm2d reads [78 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 256 3 3 ) folded
  80 ReLU reads [79 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 256 3 3 )
  81 GlobalAvgPool2d reads [80 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 256 )
  82 Linear reads [81 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 2 )
  flash 240976 sram 82944
fc_autoencoder: input (1, 640, 0, 0)
  0 Linear reads [-1 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 )
  1 BatchNorm1d reads [0 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 ) folded
  2 ReLU reads [1 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 )
  3 Linear reads [2 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 )
  4 BatchNorm1d reads [3 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 ) folded
  5 ReLU reads [4 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 )
  6 Linear reads [5 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 )
  7 BatchNorm1d reads [6 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 ) folded
  8 ReLU reads [7 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 )
  9 Linear reads [8 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 )
  10 BatchNorm1d reads [9 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 ) folded
  11 ReLU reads [10 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 )
  12 Linear reads [11 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 8 )
  13 BatchNorm1d reads [12 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 8 ) folded
  14 ReLU reads [13 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 8 )
  15 Linear reads [14 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 )
  16 BatchNorm1d reads [15 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 ) folded
  17 ReLU reads [16 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 )
  18 Linear reads [17 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 )
  19 BatchNorm1d reads [18 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 ) folded
  20 ReLU reads [19 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 )
  21 Linear reads [20 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 )
  22 BatchNorm1d reads [21 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 ) folded
  23 ReLU reads [22 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 )
  24 Linear reads [23 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 )
  25 BatchNorm1d reads [24 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 ) folded
  26 ReLU reads [25 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 128 )
  27 Linear reads [26 -2] k0x0 s1x1 pad 0,0..0,0 same0 groups1 bias1 out(1 640 )
  flash 284256 sram 1408
"""


if __name__ == "__main__":
    main()

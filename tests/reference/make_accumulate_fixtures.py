#!/usr/bin/env python3
"""PyTorch fixtures for gradient accumulation (sn::Accumulate<K>) on the MLPerf Tiny models
(tests/codegen/mlperf_fixture_check.hpp reads them as it reads make_mlperf_fixtures.py's), and on
the MLP in mixed precision (tests/codegen/pytorch_fixture_check.hpp reads it as it reads
make_mixed_fixtures.py's):

  fixtures/mlperf_resnet8_accumulate2.safetensors         ResNet-8, batch 4 as 2 micro-batches
                                                          of 2, three steps
  fixtures/mlperf_ds_cnn_accumulate2.safetensors          DS-CNN, the same
  fixtures/mlperf_fc_autoencoder_accumulate2.safetensors  FC autoencoder, batch 16 as 2 of 8,
                                                          three steps (ACCUMULATE says why not 4)
  fixtures/mlp_mixed_bf16_accumulate4.safetensors         the MLP under autocast(bfloat16), batch
                                                          64 as 4 of 16, Adam, three steps
                                                          (mixed_accumulated() below)
  fixtures/mlp_mixed_f16_accumulate4.safetensors          the same under autocast(float16) with
                                                          GradScaler's defaults

make_mlperf_fixtures.py's models, initial weights, fixture batches, SGD with momentum and Dropout
hash, imported from it; each of its optimizer steps is PyTorch's accumulation loop instead:

  optimizer.zero_grad()
  for m in range(K):
      loss = loss_fn(model(x[m*b:(m+1)*b]), y[m*b:(m+1)*b]) / K
      loss.backward()
  optimizer.step()

so the loss and its gradient are the whole batch's mean, and BatchNorm normalises each micro-batch
by its own statistics and updates its running statistics once per micro-batch (K times a step),
as in train mode. (Accumulated gradients then differ from the whole batch's: main() prints by how
much, so that the fixture tells the two apart.) Dropout keeps the whole batch's masks, sliced:
micro-batch m's element e keeps its value when whole-batch element m·(b·features) + e of that
layer and step does, as staticnet's dropout_slice_key() draws it.

Each MLPerf file holds make_mlperf_fixtures.py's tensors (grad1.<param>, loss (the sum of the K
scaled micro-batch losses: the whole batch's mean), final.<param>, final.<layer>.running_mean and
running_var, eval_loss over the whole batch) and metadata, plus micro_batches = K; `batch` is the
optimizer's batch B, `steps` this file's. The input offset is chosen, as there, as the first
whose ReLU inputs (every micro-batch's, every step's) keep clear of ReLU's kink; kink_clearance
and float32_gradient_noise are this run's.

The mixed-precision fixture is make_mixed_fixtures.py's MLP Adam run under autocast(bfloat16)
(make_fixtures.py's model, batch of 64 at input offset 0, initial weights from
torch.manual_seed(0) and Adam settings), each of its three steps as the accumulation loop above
with K = 4 micro-batches of 16, the model under autocast and the loss in float32 from the float32
logits. Under float16 the loop is GradScaler's (its defaults: initial scale 2^16):

  optimizer.zero_grad()
  for m in range(K):
      scaler.scale(loss_fn(model(x_m), y_m) / K).backward()
  scaler.unscale_(optimizer); scaler.step(optimizer); scaler.update()

so an Inf in any micro-batch's gradient skips the whole step. The files are in make_fixtures.py's
format, Adam's run only: init.<param>, grad1.<param> (the
first step's accumulated float32 master gradients), adam.loss (each step's sum of the 4 scaled
micro-batch losses: the whole batch's mean), adam.final.<param>, and metadata fixture_version,
torch_version, precision = Mixed<bf16>, adam.lr, adam.beta1, adam.beta2, adam.eps,
adam.weight_decay, plus batch = 64 and micro_batches = 4; under float16 also adam.scale, the
scaler's scale after each step (three clean steps: 2^16 throughout), and a run forced to
overflow as make_mixed_fixtures.py forces one (ACCUMULATE_OVERFLOW_SCALE): overflow.loss,
overflow.scale, overflow.final.<param> and metadata overflow.initial_scale.

Run with a Python that has torch, numpy and safetensors (CI uses the committed files); one thread,
so that a run reproduces the committed tensors:
  python3 tests/reference/make_accumulate_fixtures.py
"""
import copy
import math

import numpy as np
import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file

import make_fixtures as fp32
import make_mixed_fixtures as mixed
import make_mlperf_fixtures as mlperf

# model: (K, steps); the micro-batch is make_mlperf_fixtures.py's batch / K.
# The FC autoencoder runs 2 micro-batches of 8, not 4 of 4: its BatchNorm1d over 4 samples meets
# channels whose 4 values nearly coincide (batch variance down to half of eps), which amplify
# rounding. At K=4, in float64, its initial weights scaled by 1 + 1e-7·N(0, 1) moved the first
# step's gradients by 1e-4 to 3e-4 (its own float32 run's were 2e-4 off, which the test's
# tolerance scales with) and the third step's loss by 2e-4 to 3e-4, 20 times the test's loss
# tolerance, and from the second step on no input offset of the first 150 kept ReLU's kink
# clear: only one step could be checked. At K=2 the same perturbation moves the first step's
# gradients by 5e-6 to 8e-6, the final weights by 2e-6 to 6e-6 and the losses by at most 7e-7
# relative, and input offset 10 keeps every ReLU input of the three steps 5.2 times float32's
# noise from the kink (float32 gradient noise 8.5e-6).
ACCUMULATE = {"resnet8": (2, 3), "ds_cnn": (2, 3), "fc_autoencoder": (2, 3)}


class SlicedDropout(mlperf.HashDropout):
    """HashDropout on micro-batch `micro_batch` of `micro_batches`: the slice of the mask that
    HashDropout draws for the whole batch (its elements in NCHW order, the batch outermost, so a
    micro-batch's elements are one contiguous run of them)."""
    micro_batch, micro_batches = 0, 1  # set before each micro-batch

    def forward(self, x):
        if not self.training:
            return x
        b = x.shape[0]
        # The whole batch's mask as HashDropout applies it (1 · mask is the mask, to the bit).
        whole = super().forward(x.new_ones((b * SlicedDropout.micro_batches,) + x.shape[1:]))
        m = SlicedDropout.micro_batch
        return x * whole[m * b:(m + 1) * b]


def sliced(model):
    """`model` with its Dropout layers drawing the whole batch's masks, sliced."""
    for module in model.modules():
        if isinstance(module, mlperf.HashDropout):
            module.__class__ = SlicedDropout
    return model


def check_dropout_slices():
    """A micro-batch's keep bits, drawn as staticnet draws them (dropout_slice_key(): the layer's
    key advanced by the slice's first element times the hash's step), are exactly the whole
    batch's bits there, for each of DS-CNN's Dropout layers and steps; and SlicedDropout applies
    them."""
    build, batch_size, _, _, _ = mlperf.MODELS["ds_cnn"]
    k, steps = ACCUMULATE["ds_cnn"]
    model = sliced(build())
    phi = np.uint64(0x9E3779B97F4A7C15)
    checked = 0
    for index, module in enumerate(model.children()):
        if not isinstance(module, SlicedDropout):
            continue
        micro = (batch_size // k) * math.prod(model.shapes[index])
        for step in range(1, steps + 1):
            whole = mlperf.dropout_keep(k * micro, mlperf.DROPOUT_SEED, step, module.layer,
                                        module.p, module.q)
            mix = np.uint64((module.layer * 0xD1B54A32D192ED03) & mlperf.M64)
            with np.errstate(over="ignore"):
                inner = mlperf.splitmix64(np.array([np.uint64(mlperf.DROPOUT_SEED) ^ mix]))
                key = mlperf.splitmix64(inner + np.uint64(step))
            threshold = np.uint64((module.p << 24) // module.q)
            mlperf.HashDropout.step = step
            SlicedDropout.micro_batches = k
            for m in range(k):
                with np.errstate(over="ignore"):
                    slice_key = key + np.uint64(m * micro) * phi
                    h = mlperf.splitmix64(slice_key + np.arange(micro, dtype=np.uint64) * phi)
                keep = (h >> np.uint64(40)) >= threshold
                assert np.array_equal(keep, whole[m * micro:(m + 1) * micro])
                SlicedDropout.micro_batch = m
                applied = module(torch.ones((batch_size // k,) + model.shapes[index]))
                assert torch.equal(applied.flatten() != 0, torch.from_numpy(keep))
                checked += 1
    print(f"dropout: {checked} micro-batch masks equal the whole batch's, sliced")


def accumulated_step(model, optimizer, x, y, loss_fn, k):
    """One optimizer step as K micro-batches (PyTorch's accumulation loop); returns the whole
    batch's mean loss, the sum of the micro-batches' losses / K."""
    model.train()
    optimizer.zero_grad()
    b = x.shape[0] // k
    SlicedDropout.micro_batches = k
    total = 0.0
    for m in range(k):
        SlicedDropout.micro_batch = m
        loss = loss_fn(model(x[m * b:(m + 1) * b]), y[m * b:(m + 1) * b]) / k
        loss.backward()
        total += loss.item()
    optimizer.step()
    return total


def train(name, offset):
    """make_mlperf_fixtures.train() with each step accumulated over K micro-batches
    (ACCUMULATE[name]): the fixture's tensors (float64), the losses, the evaluation loss, the
    kink clearance and the float32 gradient noise."""
    build, batch_size, loss_name, outputs, _ = mlperf.MODELS[name]
    k, steps = ACCUMULATE[name]
    model32 = sliced(build())
    mlperf.initialize(model32)
    model64 = copy.deepcopy(model32).double()
    x, y = mlperf.batch(batch_size, model32.input_shape, loss_name, outputs, offset)
    loss_fn = torch.nn.CrossEntropyLoss() if loss_name == "cross_entropy" else torch.nn.MSELoss()
    y64 = y.double() if loss_name == "mse" else y
    runs = [(model32, x, y, torch.optim.SGD(model32.parameters(), **mlperf.SETTINGS),
             mlperf.ReluInputs(model32)),
            (model64, x.double(), y64, torch.optim.SGD(model64.parameters(), **mlperf.SETTINGS),
             mlperf.ReluInputs(model64))]
    tensors, losses, clearance = {}, [], math.inf
    for step in range(1, steps + 1):
        mlperf.HashDropout.step = step
        for model, inputs, labels, optimizer, _ in runs:
            loss = accumulated_step(model, optimizer, inputs, labels, loss_fn, k)
        losses.append(loss)  # the float64 run's
        if step == 1:
            for p_name, p in model64.named_parameters():
                tensors[f"grad1.{p_name}"] = p.grad.detach().clone().contiguous()
            noise = mlperf.float32_gradient_noise(model32, model64)
        # Each ReLU's input, micro-batch by micro-batch, in both runs' same order.
        clearance = min(clearance,
                        mlperf.kink_clearance(runs[0][4].take(), runs[1][4].take()))
    model64.eval()
    with torch.no_grad():
        eval_loss = loss_fn(model64(x.double()), y64).item()
    tensors["loss"] = torch.tensor(losses, dtype=torch.float64)
    tensors["eval_loss"] = torch.tensor([eval_loss], dtype=torch.float64)
    for key, v in model64.state_dict().items():
        if not key.endswith("num_batches_tracked"):
            tensors[f"final.{key}"] = v.detach().clone().contiguous()
    return tensors, losses, eval_loss, clearance, noise


# ---- sanity checks, printed ---------------------------------------------------------------------


def tensor_error(ours, theirs):
    """tests/codegen/tensor_error.hpp's: max |ours − theirs| / max |theirs|."""
    scale = theirs.abs().max().item()
    diff = (ours.double() - theirs.double()).abs().max().item()
    return diff if scale == 0 else diff / scale


def largest_error(ours, theirs, prefix):
    """The largest tensor_error over `theirs`' tensors named prefix + ..., and its name; a
    tensor zero but for rounding (below 1e-4 of the largest) is left out, as the C++ test
    does with gradients."""
    names = [n for n in theirs if n.startswith(prefix)]
    scale = max(theirs[n].abs().max().item() for n in names)
    errors = [(tensor_error(ours[n], theirs[n]), n) for n in names
              if theirs[n].abs().max().item() >= 1e-4 * scale]
    return max(errors)


def without_batch_norm(model):
    """`model` with its BatchNorm layers replaced by the identity (Dropout kept)."""
    for index, module in list(model.named_children()):
        if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
            setattr(model, index, torch.nn.Identity())
    return model


def run(model, x, y, loss_fn, k, steps):
    """`steps` accumulated steps (k = 1: the whole batch at once); the losses, the first step's
    gradients and the final state, by name."""
    optimizer = torch.optim.SGD(model.parameters(), **mlperf.SETTINGS)
    losses, grad1 = [], {}
    for step in range(1, steps + 1):
        mlperf.HashDropout.step = step
        losses.append(accumulated_step(model, optimizer, x, y, loss_fn, k))
        if step == 1:
            grad1 = {n: p.grad.detach().clone() for n, p in model.named_parameters()}
    final = {n: v.detach().clone() for n, v in model.state_dict().items()
             if not n.endswith("num_batches_tracked")}
    return losses, grad1, final


def compare_without_batch_norm(name, dtype):
    """With BatchNorm removed (Dropout kept), accumulation must change nothing but rounding:
    prints the accumulated run's largest differences from the whole batch's."""
    build, batch_size, loss_name, outputs, steps = mlperf.MODELS[name]
    k = ACCUMULATE[name][0]
    model = without_batch_norm(sliced(build()))
    mlperf.initialize(model)
    model = model.to(dtype)
    x, y = mlperf.batch(batch_size, model.input_shape, loss_name, outputs, 0)
    x = x.to(dtype)
    y = y.to(dtype) if loss_name == "mse" else y
    loss_fn = torch.nn.CrossEntropyLoss() if loss_name == "cross_entropy" else torch.nn.MSELoss()
    whole = run(copy.deepcopy(model), x, y, loss_fn, 1, steps)
    accumulated = run(copy.deepcopy(model), x, y, loss_fn, k, steps)
    loss_error = max(abs(a - w) / abs(w) for a, w in zip(accumulated[0], whole[0]))
    grad_error, grad_name = largest_error(accumulated[1], whole[1], "")
    final_error, final_name = largest_error(accumulated[2], whole[2], "")
    print(f"  {name} without BatchNorm, {str(dtype).removeprefix('torch.')}, K={k}: losses "
          f"{loss_error:.2g} relative, grad1 {grad_error:.2g} ({grad_name}), final "
          f"{final_error:.2g} ({final_name})")
    return max(loss_error, grad_error, final_error)


def float64_run(name, offset, steps):
    """make_mlperf_fixtures.py's whole-batch step (k = 1) in float64, `steps` times, on the batch
    at `offset`: (losses, first-step gradients, final weights and statistics)."""
    build, batch_size, loss_name, outputs, _ = mlperf.MODELS[name]
    model = sliced(build())
    mlperf.initialize(model)
    model = model.double()
    x, y = mlperf.batch(batch_size, model.input_shape, loss_name, outputs, offset)
    y = y.double() if loss_name == "mse" else y
    loss_fn = torch.nn.CrossEntropyLoss() if loss_name == "cross_entropy" else torch.nn.MSELoss()
    return run(model, x.double(), y, loss_fn, 1, steps)


def compare_with_whole_batch(name, tensors, offset):
    """How far the accumulated fixture is from make_mlperf_fixtures.py's whole-batch step on the
    same batch, over the same steps (float64 both): BatchNorm's micro-batch statistics must move
    it by far more than the test's tolerance."""
    losses, grad1, final = float64_run(name, offset, ACCUMULATE[name][1])
    whole = ({f"grad1.{n}": g for n, g in grad1.items()} |
             {f"final.{n}": v for n, v in final.items()} |
             {"loss": torch.tensor(losses, dtype=torch.float64)})
    grad_error, grad_name = largest_error(tensors, whole, "grad1.")
    final_error, final_name = largest_error(tensors, whole, "final.")
    loss_error = max((abs(a - w) / abs(w)) for a, w in
                     zip(tensors["loss"].tolist(), whole["loss"].tolist()))
    print(f"  {name}: accumulated vs whole batch: grad1 {grad_error:.3g} ({grad_name}), final "
          f"{final_error:.3g} ({final_name}), losses {loss_error:.3g} relative")
    return grad_error


def check_whole_batch_reproduces(name):
    """run() with k = 1 is make_mlperf_fixtures.py's step: it reproduces the committed
    whole-batch fixture's float64 gradients and weights (but for the gradients that are zero but
    for rounding)."""
    steps = mlperf.MODELS[name][4]
    path = str(mlperf.HERE / "fixtures" / f"mlperf_{name}.safetensors")
    committed = load_file(path)
    with safe_open(path, "pt") as f:
        offset = int(f.metadata()["input_offset"])
    losses, grad1, final = float64_run(name, offset, steps)
    ours = {f"grad1.{n}": g for n, g in grad1.items()} | {f"final.{n}": v for n, v in final.items()}
    error = max(largest_error(ours, committed, "grad1.")[0],
                largest_error(ours, committed, "final.")[0])
    print(f"  {name}: K=1 against the committed whole-batch fixture: {error:.2g}")
    assert error < 1e-12, name


# ---- the MLP in mixed precision -----------------------------------------------------------------

# make_mixed_fixtures.py's fixtures whose runs these accumulate: model and optimizer, under each
# of the precisions.
MIXED = ("mlp", "adam")
MIXED_PRECISIONS = ("bf16", "f16")
MIXED_MICRO_BATCHES = 4
# As make_mixed_fixtures.py's OVERFLOW_SCALE, for the accumulated f16 run: one more Adam run starts
# the scale here, where a micro-batch's scaled gradients overflow f16 (from 2^23; at 2^22, where
# the whole batch's step overflows, each micro-batch's part is a quarter of the size and the
# parts add in float32: no step is skipped). Its first step is skipped and the scale halved.
ACCUMULATE_OVERFLOW_SCALE = 2.0 ** 23


def mixed_run(suffix, k, autocast=True, init_scale=None):
    """make_mixed_fixtures.run()'s three steps of MIXED in `suffix` (f16: with GradScaler), each
    as PyTorch's accumulation loop over k micro-batches under autocast (k = 1: the whole batch, as
    there; autocast=False: float32 throughout, no scaler); (initial state, model, losses,
    first-step gradients, the scale after each step). A step's loss is the sum of its
    micro-batches' losses / k, the whole batch's mean; the gradients are the unscaled ones."""
    name, opt_name = MIXED
    dtype = mixed.PRECISIONS[suffix]
    build, batch_size, sample_shape, loss_name, outputs = fp32.models()[name]
    assert loss_name == "cross_entropy" and batch_size % k == 0
    torch.manual_seed(0)
    init_state = {key: v.detach().clone() for key, v in build().state_dict().items()}
    x, y = fp32.batch(batch_size, sample_shape, loss_name, outputs)
    loss_fn = torch.nn.CrossEntropyLoss()
    model = build()
    model.load_state_dict(init_state)
    optimizer = fp32.make_optimizer(opt_name, model.parameters())
    scaler = None
    if autocast and dtype == torch.float16:
        scaler = torch.amp.GradScaler("cpu", **({"init_scale": init_scale} if init_scale else {}))
    b = batch_size // k
    losses, grad1, scales = [], {}, []
    for step in range(3):
        optimizer.zero_grad()
        total = 0.0
        for m in range(k):
            with torch.autocast(device_type="cpu", dtype=dtype, enabled=autocast):
                logits = model(x[m * b:(m + 1) * b])
            assert logits.dtype == (dtype if autocast else torch.float32)
            loss = loss_fn(logits.float(), y[m * b:(m + 1) * b]) / k
            (loss if scaler is None else scaler.scale(loss)).backward()
            total += loss.item()
        losses.append(total)
        mixed.finish_step(model, optimizer, scaler, step == 0, grad1, scales)
    return init_state, model, losses, grad1, scales


def mixed_accumulated(out, suffix):
    """fixtures/<model>_mixed_<suffix>_accumulate<K>.safetensors (MIXED, MIXED_MICRO_BATCHES),
    after sanity checks against make_mixed_fixtures.py's whole-batch fixture, printed."""
    name, opt_name = MIXED
    k = MIXED_MICRO_BATCHES
    whole_name = f"{name}_mixed_{suffix}"
    committed = load_file(str(out / f"{whole_name}.safetensors"))

    print(f"sanity: {whole_name}, {opt_name}, at K=1 is make_mixed_fixtures.py's run")
    build, batch_size, sample_shape, loss_name, outputs = fp32.models()[name]
    init_state, model, losses, grad1, scales = mixed_run(suffix, 1)
    torch.manual_seed(0)
    reference = mixed.run(build, build().state_dict(), *fp32.batch(
        batch_size, sample_shape, loss_name, outputs), torch.nn.CrossEntropyLoss(), opt_name,
        mixed.PRECISIONS[suffix])
    assert losses == reference[1], (losses, reference[1])
    assert scales == reference[3], (scales, reference[3])
    assert all(torch.equal(grad1[key], reference[2][key]) for key in grad1)
    assert all(torch.equal(v, reference[0].state_dict()[key])
               for key, v in model.state_dict().items())
    assert all(torch.equal(v, committed[f"init.{key}"]) for key, v in init_state.items())
    error = max([tensor_error(grad1[key], committed[f"grad1.{key}"]) for key in grad1] +
                [tensor_error(v, committed[f"{opt_name}.final.{key}"])
                 for key, v in model.state_dict().items()] +
                [tensor_error(torch.tensor(losses, dtype=torch.float64),
                              committed[f"{opt_name}.loss"])])
    # Not to the bit: bf16 kernels differ from CPU to CPU (on an AMD EPYC with AVX2, one of the
    # first layer's 12800 weight gradients came out one bf16 ulp from the committed one, 5.5e-5
    # of the tensor's largest, and the second loss one float32 ulp off).
    print(f"  against the committed {whole_name}.safetensors: {error:.2g}")
    assert error < 1e-3

    init_state, model, losses, grad1, scales = mixed_run(suffix, k)
    print(f"sanity: {whole_name} as {k} micro-batches of {batch_size // k}")
    grad_error, grad_name = max((tensor_error(grad1[key], committed[f"grad1.{key}"]), key)
                                for key in grad1)
    final_error, final_name = max(
        (tensor_error(v, committed[f"{opt_name}.final.{key}"]), key)
        for key, v in model.state_dict().items())
    loss_error = max(abs(a - w) / abs(w) for a, w in
                     zip(losses, committed[f"{opt_name}.loss"].tolist()))
    print(f"  accumulated vs whole batch under autocast: grad1 {grad_error:.3g} ({grad_name}), "
          f"{opt_name}.final {final_error:.3g} ({final_name}), losses {loss_error:.3g} relative")
    # Without autocast, accumulation changes nothing but float32's rounding.
    _, _, _, grad32, _ = mixed_run(suffix, k, autocast=False)
    _, _, _, whole32, _ = mixed_run(suffix, 1, autocast=False)
    error32, name32 = max((tensor_error(grad32[key], whole32[key]), key) for key in grad32)
    print(f"  accumulated vs whole batch in float32: grad1 {error32:.3g} ({name32})")
    assert error32 < 1e-5
    assert grad_error > 10 * error32, "autocast's rounding hardly moves the gradients"

    tensors = {f"init.{key}": v.contiguous() for key, v in init_state.items()}
    tensors.update({f"grad1.{key}": g for key, g in grad1.items()})
    metadata = {"fixture_version": fp32.FIXTURE_VERSION, "torch_version": torch.__version__,
                "precision": f"Mixed<{suffix}>", "batch": str(batch_size),
                "micro_batches": str(k)}
    fp32.record_run(tensors, metadata, opt_name, model, losses)
    print(f"{name} {suffix} {opt_name}, {k} micro-batches: losses {losses}, scales {scales}")
    if scales:  # GradScaler's: its scale after each step, and the same run forced to overflow
        tensors[f"{opt_name}.scale"] = torch.tensor(scales, dtype=torch.float64)
        _, model, losses, _, scales = mixed_run(suffix, k, init_scale=ACCUMULATE_OVERFLOW_SCALE)
        assert scales[0] == ACCUMULATE_OVERFLOW_SCALE / 2, "the first step did not overflow"
        mixed.record_overflow(tensors, metadata, model, losses, scales, ACCUMULATE_OVERFLOW_SCALE)
        print(f"{name} {suffix} overflow, {k} micro-batches: losses {losses}, scales {scales}")
    save_file(tensors, str(out / f"{whole_name}_accumulate{k}.safetensors"), metadata=metadata)


def main():
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    out = mlperf.HERE / "fixtures"
    check_dropout_slices()
    print("sanity: the harness at K=1 is make_mlperf_fixtures.py's step")
    for name in ACCUMULATE:
        check_whole_batch_reproduces(name)
    print("sanity: without BatchNorm, accumulated = whole batch but for rounding")
    for name in ACCUMULATE:
        for dtype in (torch.float64, torch.float32):
            error = compare_without_batch_norm(name, dtype)
            assert error < (1e-12 if dtype == torch.float64 else 1e-4), (name, dtype)
    print("fixtures")
    for name, (k, steps) in ACCUMULATE.items():
        batch_size = mlperf.MODELS[name][1]
        assert batch_size % k == 0
        for offset in range(mlperf.OFFSETS):  # the first batch that keeps clear of the kink
            tensors, losses, eval_loss, clearance, noise = train(name, offset)
            if clearance >= mlperf.MIN_KINK_CLEARANCE:
                break
        else:
            raise SystemExit(f"{name}: no input offset keeps every ReLU input "
                             f"{mlperf.MIN_KINK_CLEARANCE} times float32's rounding noise from 0")
        metadata = {"fixture_version": mlperf.FIXTURE_VERSION, "torch_version": torch.__version__,
                    "batch": str(batch_size), "micro_batches": str(k), "steps": str(steps),
                    "input_offset": str(offset), "kink_clearance": f"{clearance:.3g}",
                    "float32_gradient_noise": f"{noise:.3g}",
                    "dropout_seed": str(mlperf.DROPOUT_SEED)}
        metadata.update({key: repr(v) for key, v in mlperf.SETTINGS.items()})
        print(f"{name}: batch {batch_size} as {k} micro-batches of {batch_size // k}, input offset "
              f"{offset}, kink clearance {clearance:.3g}, float32 gradient noise {noise:.3g}, "
              f"losses {losses}, eval {eval_loss}")
        grad_error = compare_with_whole_batch(name, tensors, offset)
        assert grad_error > 1e-2, f"{name}: accumulation hardly moves the gradients"
        save_file(tensors, str(out / f"mlperf_{name}_accumulate{k}.safetensors"),
                  metadata=metadata)
    for suffix in MIXED_PRECISIONS:
        mixed_accumulated(out, suffix)


if __name__ == "__main__":
    main()

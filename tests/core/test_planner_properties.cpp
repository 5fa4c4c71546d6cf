// Properties of the memory planner beyond examples. The value-level pipeline (lower, plan) is
// made of constexpr functions, so it also runs at run time: this file generates many random
// valid models (std::array<LayerDesc, N> values, fixed-seed PRNG), plans each one in training or
// inference at several batches, and checks, for every plan:
//   (a) no overlap: buffers of one region alive at a common step share no byte;
//   (b) coverage: per region the buffers' [offset, offset + occupied()) cover exactly
//       [region_offset, region_offset + footprint field), without a gap; fields sum to total();
//   (c) alignment and order: offsets are multiples of 256, regions in the documented order;
//   (d) lower bound: footprint.activations >= max over steps of live_activation_bytes;
//   (e) batch scaling: at batches b, 2b, 3b every per-sample buffer scales exactly, the exact
//       live bytes scale exactly, and activations(kb) <= k * activations(b) + slack;
//   (f) lifetimes: what each forward and backward step reads or writes is alive at that step,
//       saved tensors are not overwritten in place before the backward that reads them, the
//       gradient chain is connected;
//   (g) inference: no gradient, optimizer, saved, loss or label buffers, and activations no
//       larger than training the same model;
//   (h) footprint formulas of plan.hpp's header comment (weights, gradients, optimizer state,
//       inputs, workspace);
// plus max_batch against brute force (at compile time for typed models, at run time too) and
// the monotonicity of footprint.total() in the batch.
//
// A failing property is reported with the model written as a type (sn::Sequential<...>) and its
// setup, so that it can be reproduced with sn::plan<M, S>().
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticnet/staticnet.hpp"
#include "tests/core/test_support.hpp"

namespace {

namespace sn = staticnet;
using sn::Buffer;
using sn::BufferRole;
using sn::LayerDesc;
using sn::LayerKind;
using sn::Region;
using sn::SetupDesc;
using std::int64_t;

// ---- deterministic randomness --------------------------------------------------------------

using staticnet::testing::Rng;

// Sizes as PyTorch stores the tensors under FP32, written here rather than taken from the
// planner: activations and their gradients are f32, a max-pool's window index is the narrowest
// unsigned integer that holds every position of its window.
constexpr int64_t f32_bytes = 4;

// The bytes of one element of layer i's output (and of its gradient) in a chain, under the plan's
// precision, by autocast's rule written again here: a Linear or a convolution outputs the
// precision's products dtype, every other layer of a chain keeps its input's, and the model's input
// counts as f32 (as the products' dtype under Pure). setup.hpp's precision_dtypes() says only what
// each precision calls its dtypes.
template <std::size_t L>
constexpr int64_t element_bytes(const sn::Plan<L>& p, int64_t i) {
  const sn::PrecisionDtypes d = sn::precision_dtypes(p.setup.precision);
  int64_t bytes = d.model_input_is_low ? sn::size_of(d.products) : f32_bytes;
  for (int64_t k = 0; k <= i; ++k) {
    const LayerKind kind = p.layers[static_cast<std::size_t>(k)].kind;
    if (kind == LayerKind::Linear || kind == LayerKind::Conv2d ||
        kind == LayerKind::DepthwiseConv2d)
      bytes = sn::size_of(d.products);
  }
  return bytes;
}
constexpr int64_t window_index_bytes(const LayerDesc& d) {
  const int64_t positions = d.kernel_h * d.kernel_w;
  return positions <= 256 ? 1 : positions <= 65536 ? 2 : 4;
}

// ---- constexpr checks (usable in static_assert and at run time) -----------------------------

// What went wrong, with the buffer or layer indices involved; `what == nullptr` means it holds.
struct Verdict {
  const char* what = nullptr;
  int64_t a = -1, b = -1;
  constexpr bool ok() const { return what == nullptr; }
};

constexpr int region_index(Region r) {
  return static_cast<int>(r);
}

constexpr bool lifetimes_meet(const Buffer& x, const Buffer& y) {
  return x.first_step <= y.last_step && y.first_step <= x.last_step;
}

// (a) Buffers of the same region alive at a common step do not overlap.
template <std::size_t L>
constexpr Verdict check_no_overlap(const sn::Plan<L>& p) {
  for (std::size_t i = 0; i < p.buffers.size(); ++i) {
    const Buffer& x = p.buffers[i];
    if (x.occupied() == 0)
      continue;
    for (std::size_t j = i + 1; j < p.buffers.size(); ++j) {
      const Buffer& y = p.buffers[j];
      if (y.occupied() == 0 || x.region() != y.region() || !lifetimes_meet(x, y))
        continue;
      if (x.offset < y.offset + y.occupied() && y.offset < x.offset + x.occupied())
        return {"two buffers alive at a common step overlap", static_cast<int64_t>(i),
                static_cast<int64_t>(j)};
    }
  }
  return {};
}

// The plan's alignment: 256 bytes, or 16 under Int8 (a microcontroller's arena).
template <std::size_t L>
constexpr int64_t alignment_of(const sn::Plan<L>& p) {
  return p.setup.precision == sn::PrecisionKind::Int8 ? 16 : 256;
}

// (b) Per region, the union of the buffers' occupied bytes is exactly the region, and (c) the
// regions are laid out in order, aligned, and the footprint fields sum to the total.
template <std::size_t L>
constexpr Verdict check_coverage_and_layout(const sn::Plan<L>& p) {
  const int64_t alignment = alignment_of(p);
  constexpr Region order[] = {Region::weights, Region::gradients, Region::optimizer_state,
                              Region::inputs,  Region::workspace, Region::activations};
  int64_t expected_start = 0;
  int64_t sum = 0;
  for (Region r : order) {
    const int ri = region_index(r);
    const int64_t start = p.region_offset[ri];
    const int64_t size = p.footprint.of(r).count;
    if (start != expected_start)
      return {"regions are not contiguous and in the documented order", ri, start};
    if (start % alignment != 0 || size % alignment != 0)
      return {"a region is not aligned", ri, start};
    expected_start = start + size;
    sum += size;
    // Sort the region's buffers by offset (insertion sort; at most a few hundred).
    std::array<int, sn::Plan<L>::buffer_capacity> idx{};
    std::size_t n = 0;
    for (std::size_t i = 0; i < p.buffers.size(); ++i) {
      const Buffer& b = p.buffers[i];
      if (b.offset % alignment != 0)
        return {"a buffer offset is not a multiple of the alignment", static_cast<int64_t>(i),
                b.offset};
      if (b.region() != r || b.occupied() == 0)
        continue;
      std::size_t at = n++;
      while (at > 0 && p.buffers[idx[at - 1]].offset > b.offset) {
        idx[at] = idx[at - 1];
        --at;
      }
      idx[at] = static_cast<int>(i);
    }
    int64_t covered_to = start;
    for (std::size_t k = 0; k < n; ++k) {
      const Buffer& b = p.buffers[idx[k]];
      if (b.offset > covered_to)
        return {"a gap in a region: bytes counted by the footprint that no buffer uses", idx[k],
                covered_to};
      if (b.offset < start)
        return {"a buffer starts before its region", idx[k], b.offset};
      covered_to = std::max(covered_to, b.offset + b.occupied());
    }
    if (covered_to != start + size)
      return {covered_to > start + size ? "a buffer ends beyond its region"
                                        : "the end of a region is used by no buffer",
              ri, covered_to};
  }
  if (sum != p.footprint.total().count)
    return {"the footprint fields do not sum to total()", sum, p.footprint.total().count};
  return {};
}

// (d) The placed activation region holds at least what is alive at any one step.
template <std::size_t L>
constexpr int64_t max_live_activation_bytes(const sn::Plan<L>& p) {
  int64_t m = 0;
  for (int64_t s = 0; s < p.step_count(); ++s)
    m = std::max(m, p.live_activation_bytes(s));
  return m;
}

template <std::size_t L>
constexpr Verdict check_lower_bound(const sn::Plan<L>& p) {
  const int64_t live = max_live_activation_bytes(p);
  if (p.footprint.activations.count < live)
    return {"activations below the live bytes of some step", p.footprint.activations.count, live};
  return {};
}

// (f) Lifetimes and the data flow of forward, loss and backward.
// g++ 12 at -O2 reports p.layers[i] (0 <= i < L) "above array bounds" once this is inlined for
// L = 1, a known false positive of its range analysis; the indices here are checked by the loops.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
template <std::size_t L>
constexpr Verdict check_lifetimes(const sn::Plan<L>& p) {
  const auto n = static_cast<int64_t>(L);
  const bool training = p.mode == sn::Mode::training;
  const int64_t steps = p.step_count();
  const int64_t last = steps - 1;
  if (steps != (training ? 2 * n + 2 : n))
    return {"wrong number of steps", steps, n};
  for (int64_t i = 0; i < n; ++i)
    if (p.schedule[i].kind != sn::StepKind::forward || p.schedule[i].layer != i)
      return {"step i is not layer i's forward", i};
  if (training) {
    if (p.schedule[n].kind != sn::StepKind::loss)
      return {"step L is not the loss", n};
    for (int64_t i = 0; i < n; ++i)
      if (p.schedule[2 * n - i].kind != sn::StepKind::backward || p.schedule[2 * n - i].layer != i)
        return {"step 2L-i is not layer i's backward", i};
    if (p.schedule[2 * n + 1].kind != sn::StepKind::update)
      return {"the last step is not the update", 2 * n + 1};
  }
  for (std::size_t i = 0; i < p.buffers.size(); ++i) {
    const Buffer& b = p.buffers[i];
    if (b.first_step > b.last_step || b.first_step < 0 || b.last_step > last)
      return {"first_step <= last_step within the schedule fails", static_cast<int64_t>(i)};
    if (b.region() != Region::activations && (b.first_step != 0 || b.last_step != last))
      return {"a buffer outside the activation region is not alive for the whole step",
              static_cast<int64_t>(i)};
  }
  auto alive = [&](int buffer, int64_t step) {
    return buffer >= 0 && static_cast<std::size_t>(buffer) < p.buffers.size() &&
           p.buffers[buffer].alive_at(step);
  };
  auto written_at = [&](int buffer, int64_t step) {  // alive, and not before it is written
    return alive(buffer, step) && p.buffers[buffer].first_step <= step;
  };
  bool parameters_so_far = false;
  int previous_output = -1;
  for (int64_t i = 0; i < n; ++i) {
    const sn::LayerPlan& lp = p.layers[i];
    parameters_so_far = parameters_so_far || lp.parameters > 0;
    if (lp.runs_backward != (training && parameters_so_far))
      return {"runs_backward is not 'training and parameters at or before this layer'", i};
    // forward: reads its input, writes its output, at step i
    const BufferRole first_input = p.buffers[lp.input_buffer].role;
    if (i == 0 ? first_input != BufferRole::input && first_input != BufferRole::arena_input
               : lp.input_buffer != previous_output)
      return {"a layer's input is not the previous layer's output", i};
    previous_output = lp.output_buffer;
    if (!alive(lp.input_buffer, i) || !written_at(lp.output_buffer, i))
      return {"a forward reads or writes a buffer that is not alive at its step", i};
    if (lp.in_place) {
      if (lp.output_buffer != lp.input_buffer ||
          !(lp.kind == LayerKind::Flatten || sn::is_elementwise(lp.kind)))
        return {"in_place on a layer that is not elementwise or Flatten", i};
    } else {
      const Buffer& out = p.buffers[lp.output_buffer];
      if (out.role != BufferRole::activation || out.layer != i || out.first_step != i ||
          out.size != lp.output_shape.elements() * element_bytes(p, i))
        return {"a layer's output buffer has the wrong role, writer, first step or size", i};
    }
    if (!training) {
      if (lp.window_index_buffer != sn::no_buffer || lp.output_gradient_buffer != sn::no_buffer ||
          lp.input_gradient_buffer != sn::no_buffer || lp.saved_bytes != 0)
        return {"inference keeps something for a backward", i};
      continue;
    }
    if (!lp.runs_backward) {
      if (lp.window_index_buffer != sn::no_buffer || lp.output_gradient_buffer != sn::no_buffer ||
          lp.input_gradient_buffer != sn::no_buffer)
        return {"a layer without backward has backward buffers", i};
      continue;
    }
    const int64_t bwd = 2 * n - i;
    // Whether a later forward (not Flatten, which writes nothing) overwrites `buffer` in place.
    auto overwritten_later = [&](int buffer) {
      for (int64_t k = i + 1; k < n; ++k)
        if (p.layers[k].in_place && p.layers[k].kind != LayerKind::Flatten &&
            p.layers[k].output_buffer == buffer)
          return true;
      return false;
    };
    switch (lp.kind) {
      case LayerKind::Linear:
      case LayerKind::Conv2d:  // reads x
        if (!alive(lp.input_buffer, bwd))
          return {"a Linear/Conv2d input is dead at its backward", i};
        if (overwritten_later(lp.input_buffer))
          return {"a Linear/Conv2d input is overwritten in place before its backward", i};
        break;
      case LayerKind::ReLU:
      case LayerKind::LeakyReLU:
      case LayerKind::Sigmoid:
      case LayerKind::Tanh:  // reads y
        if (!alive(lp.output_buffer, bwd))
          return {"an activation's output is dead at its backward", i};
        if (overwritten_later(lp.output_buffer))
          return {"an activation's output is overwritten in place before its backward", i};
        break;
      case LayerKind::MaxPool2d: {
        if (!written_at(lp.window_index_buffer, i) || !alive(lp.window_index_buffer, bwd))
          return {"a max-pool window index is not alive from forward to backward", i};
        const Buffer& w = p.buffers[lp.window_index_buffer];
        if (w.role != BufferRole::window_index ||
            w.size != lp.output_shape.elements() * window_index_bytes(lp.options))
          return {"a max-pool window index has the wrong role or size", i};
        break;
      }
      default:
        break;
    }
    if (lp.kind != LayerKind::MaxPool2d && lp.window_index_buffer != sn::no_buffer)
      return {"a window index on a layer that is not a max-pool", i};
    // dy: written by the loss (last layer) or by the next layer's backward
    if (!alive(lp.output_gradient_buffer, bwd))
      return {"dy is not alive at the backward that reads it", i};
    const Buffer& dy = p.buffers[lp.output_gradient_buffer];
    if (dy.role != BufferRole::activation_gradient ||
        dy.size != lp.output_shape.elements() * element_bytes(p, i))
      return {"dy has the wrong role or size", i};
    if (i == n - 1 ? dy.first_step != n
                   : lp.output_gradient_buffer != p.layers[i + 1].input_gradient_buffer)
      return {"the gradient chain is broken (dy is not what the step after wrote)", i};
    const bool needs_dx = i > 0 && p.layers[i - 1].runs_backward;
    if (!needs_dx) {
      if (lp.input_gradient_buffer != sn::no_buffer)
        return {"dx computed although no earlier layer runs backward", i};
      continue;
    }
    if (!written_at(lp.input_gradient_buffer, bwd))
      return {"dx is not alive at the backward that writes it", i};
    const Buffer& dx = p.buffers[lp.input_gradient_buffer];
    if (dx.role != BufferRole::activation_gradient ||
        dx.size != lp.input_shape.elements() * element_bytes(p, i - 1))
      return {"dx has the wrong role or size", i};
    if (lp.input_gradient_buffer == lp.output_gradient_buffer &&
        !(sn::is_elementwise(lp.kind) || lp.kind == LayerKind::Flatten))
      return {"dx written over dy by a layer that is not elementwise", i};
  }
  // the loss and the host
  const int out = n > 0 ? p.layers[n - 1].output_buffer : sn::no_buffer;
  if (!training) {
    if (!alive(out, last))
      return {"the inference output is dead before the host reads it", out};
    return {};
  }
  if (!alive(out, n))
    return {"the output is dead at the loss step", out};
  bool loss_seen = false, labels_seen = false;
  int predictions_seen = 0;
  for (std::size_t i = 0; i < p.buffers.size(); ++i) {
    const Buffer& b = p.buffers[i];
    if (b.role == BufferRole::loss) {
      loss_seen = true;
      if (b.first_step != n || b.last_step != last || b.size != p.batch() * 4)
        return {"the per-sample loss is not alive from the loss step to the end",
                static_cast<int64_t>(i)};
    }
    if (b.role == BufferRole::predictions) {
      ++predictions_seen;
      if (b.first_step != n || b.last_step != last || b.size != p.batch() * 4)
        return {"the predictions are not alive from the loss step to the end",
                static_cast<int64_t>(i)};
    }
    if (b.role == BufferRole::labels || b.role == BufferRole::targets)
      labels_seen = true;
  }
  if (!loss_seen || !labels_seen)
    return {"training without a loss or a labels/targets buffer"};
  if (predictions_seen != (p.setup.loss == sn::LossKind::CrossEntropy ? 1 : 0))
    return {"CrossEntropy needs exactly one predictions buffer, MSE none", predictions_seen};
  return {};
}
#pragma GCC diagnostic pop

// (g) Inference plans keep nothing for a backward.
template <std::size_t L>
constexpr Verdict check_inference_only(const sn::Plan<L>& p) {
  if (p.footprint.gradients.count != 0 || p.footprint.optimizer_state.count != 0)
    return {"inference with gradient or optimizer bytes"};
  for (std::size_t i = 0; i < p.buffers.size(); ++i) {
    switch (p.buffers[i].role) {
      case BufferRole::gradients:
      case BufferRole::optimizer_moment1:
      case BufferRole::optimizer_moment2:
      case BufferRole::labels:
      case BufferRole::targets:
      case BufferRole::next_batch:
      case BufferRole::window_index:
      case BufferRole::activation_gradient:
      case BufferRole::loss:
      case BufferRole::predictions:
        return {"inference plan has a training-only buffer", static_cast<int64_t>(i)};
      default:
        break;
    }
  }
  for (std::size_t i = 0; i < L; ++i)
    if (p.layers[i].saved_bytes != 0 || p.layers[i].runs_backward ||
        p.layers[i].backward_flops != 0)
      return {"inference layer saves bytes or runs backward", static_cast<int64_t>(i)};
  return {};
}

// (h) under Int8: in flash, each convolution's and Linear's int8 weights (out · in / groups · kh ·
// kw, or out · in) and three int32 numbers per output channel; the input in the shared region;
// no workspace.
template <std::size_t L>
constexpr Verdict check_int8_formulas(const sn::Plan<L>& p) {
  int64_t weights = 0, channels = 0;
  for (const sn::LayerPlan& lp : p.layers) {
    if (lp.kind == LayerKind::Conv2d) {
      weights += lp.options.out * lp.input_shape[1] / lp.options.groups * lp.options.kernel_h *
                 lp.options.kernel_w;
      channels += lp.options.out;
    } else if (lp.kind == LayerKind::Linear) {
      weights += lp.options.out * lp.input_shape[1];
      channels += lp.options.out;
    }
  }
  const int64_t flash = sn::align_up(weights, 16) + sn::align_up(channels * 3 * 4, 16);
  if (p.footprint.weights.count != flash)
    return {"Int8 weights != align16(int8 weights) + align16(3 int32 per channel)",
            p.footprint.weights.count, flash};
  if (p.footprint.inputs.count != 0)  // the input is a tensor of the shared region
    return {"Int8 has an inputs region", p.footprint.inputs.count};
  if (p.footprint.workspace.count != 0 || p.footprint.non_trainable.count != 0)
    return {"Int8 has no workspace and no running statistics"};
  return {};
}

// (h) The footprint formulas of plan.hpp's header comment.
template <std::size_t L>
constexpr Verdict check_formulas(const sn::Plan<L>& p) {
  const bool training = p.mode == sn::Mode::training;
  // The master parameters in the precision's parameter dtype; Mixed adds a working copy in its
  // low dtype, and Mixed<f16> the loss scaler's 12 bytes (torch.amp.GradScaler's scale, growth
  // tracker and found-inf flag) beside the optimizer's state.
  const sn::PrecisionDtypes d = sn::precision_dtypes(p.setup.precision);
  if (d.quantized)
    return check_int8_formulas(p);
  const int64_t master = sn::align_up(sn::size_of(d.parameters) * p.parameter_count);
  const int64_t copy =
      d.has_working_copy() ? sn::align_up(sn::size_of(d.working_copy) * p.parameter_count) : 0;
  if (p.footprint.weights.count != master + copy)
    return {"weights != align_up(master) + align_up(working copy)", p.footprint.weights.count,
            master + copy};
  if (p.footprint.gradients.count != (training ? master : 0))
    return {"gradients != the master parameters in training (0 in inference)"};
  const int64_t copies = training ? sn::optimizer_state_copies(p.setup.optimizer) : 0;
  const int64_t scaler = training && d.scales_loss ? sn::align_up(12) : 0;
  if (p.footprint.optimizer_state.count != copies * master + scaler)
    return {"optimizer state != copies * master parameters (+ the loss scaler)",
            p.footprint.optimizer_state.count};
  int64_t inputs = sn::align_up(p.input_shape.elements() * sn::size_of(p.setup.input_dtype));
  if (training)
    inputs += p.setup.loss == sn::LossKind::CrossEntropy
                  ? sn::align_up(p.batch() * 4)
                  : sn::align_up(p.output_shape.elements() * 4);
  if (p.setup.prefetch)  // next_batch: the same layout again
    inputs *= 2;
  if (p.footprint.inputs.count != inputs)
    return {"inputs != align(batch inputs) + align(labels or targets), twice with Prefetch",
            p.footprint.inputs.count, inputs};
  int64_t workspace = 0;
  for (const sn::LayerPlan& lp : p.layers)
    if (lp.kind == LayerKind::Conv2d)
      workspace =
          std::max(workspace, lp.input_shape[1] * lp.options.kernel_h * lp.options.kernel_w *
                                  lp.output_shape[2] * lp.output_shape[3] * 4);
  if (p.footprint.workspace.count != sn::align_up(workspace))
    return {"workspace != align(largest im2col of one sample)", p.footprint.workspace.count,
            workspace};
  return {};
}

// The schedule's accesses (plan_types.hpp): step boundaries in order; every version made by a
// write or an update in turn, from 0 for a buffer made in the step and from 1 for a persistent
// one (and Int8's input, which the step starts with); every read naming the buffer's latest
// version; every activation-region buffer alive from the step that first writes it to the last that
// touches it (to the end for the loss, the predictions and Inference's output); and each layer's
// backward reading what its forward left, not a later version of it (a layer in place between them
// would make one).
template <std::size_t L>
constexpr Verdict check_schedule(const sn::Plan<L>& p) {
  const int64_t steps = p.step_count();
  const auto count = static_cast<int64_t>(p.buffers.size());
  std::vector<int32_t> made(static_cast<std::size_t>(count), 0);  // versions made so far
  std::vector<int64_t> first(static_cast<std::size_t>(count), -1), last(first);
  for (int64_t b = 0; b < count; ++b)
    if (p.buffers[b].region() != Region::activations ||
        p.buffers[b].role == BufferRole::arena_input)
      made[b] = 1;
  // (buffer, version) each layer's forward step read or wrote last
  std::vector<std::vector<std::pair<int, int32_t>>> forward_saw(L);
  for (int64_t s = 0; s < steps; ++s) {
    if (p.first_access(s) > p.end_access(s) || (s > 0 && p.first_access(s) < p.first_access(s - 1)))
      return {"step boundaries out of order", s};
    const sn::Step step = p.schedule[s];
    for (int64_t a = p.first_access(s); a < p.end_access(s); ++a) {
      const sn::Access x = p.access(a);
      if (x.buffer < 0 || x.buffer >= count)
        return {"an access names no buffer", s, x.buffer};
      int32_t& m = made[x.buffer];
      if (x.kind == sn::AccessKind::read && x.version != m - 1)
        return {"a read names another than the latest version", s, x.buffer};
      if (x.kind != sn::AccessKind::read && x.version != m)
        return {"a write makes another than the next version", s, x.buffer};
      if (x.kind == sn::AccessKind::update && m == 0)
        return {"an update of a buffer never written", s, x.buffer};
      if (x.kind != sn::AccessKind::read)
        ++m;
      if (first[x.buffer] < 0)
        first[x.buffer] = s;
      last[x.buffer] = s;
      if (step.kind == sn::StepKind::forward)
        forward_saw[step.layer].push_back({x.buffer, x.version});
      if (step.kind == sn::StepKind::backward && x.kind == sn::AccessKind::read)
        for (auto [b, v] : forward_saw[step.layer])
          if (b == x.buffer && v != x.version)
            return {"a backward reads a later version than its forward left", step.layer, x.buffer};
    }
  }
  for (int64_t b = 0; b < count; ++b) {
    const Buffer& buffer = p.buffers[b];
    if (buffer.region() != Region::activations)
      continue;
    if (first[b] < 0)
      return {"an activation-region buffer no step accesses", b};
    const bool result =
        buffer.role == BufferRole::loss || buffer.role == BufferRole::predictions ||
        (p.mode == sn::Mode::inference && b == p.layers[p.layer_count() - 1].output_buffer);
    if (buffer.first_step != first[b] || buffer.last_step != (result ? steps - 1 : last[b]))
      return {"a lifetime is not the span of the buffer's accesses", b};
  }
  return {};
}

template <std::size_t L>
constexpr Verdict check_all(const sn::Plan<L>& p) {
  if (!p.error.ok())
    return {"the plan carries an error"};
  for (Verdict v : {check_no_overlap(p), check_coverage_and_layout(p), check_lower_bound(p),
                    check_lifetimes(p), check_formulas(p), check_schedule(p)})
    if (!v.ok())
      return v;
  if (p.mode == sn::Mode::inference)
    return check_inference_only(p);
  return {};
}

// ---- typed models: the same checks at compile time ------------------------------------------

using Mlp = sn::Sequential<sn::Linear<32>, sn::ReLU, sn::Linear<16>, sn::Tanh, sn::Linear<10>>;
using MlpTrain = sn::Training<sn::Input<sn::f32, 20>, sn::Batch<8>, sn::Optimizer<sn::Adam>>;
using Cnn = sn::Sequential<sn::Conv2d<4, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU, sn::MaxPool2d<2>,
                           sn::Conv2d<8, sn::Kernel<3>>, sn::Sigmoid, sn::AvgPool2d<2>, sn::Flatten,
                           sn::Linear<10>>;
using CnnTrain = sn::Training<sn::Input<sn::f32, 1, 12, 12>, sn::Batch<4>,
                              sn::Optimizer<sn::SGDMomentum>, sn::Loss<sn::CrossEntropy>>;
using CnnInfer = sn::Inference<sn::Input<sn::i8, 1, 12, 12>, sn::Batch<16>>;

static_assert(check_all(sn::plan<Mlp, MlpTrain>()).ok());
static_assert(check_all(sn::plan<Cnn, CnnTrain>()).ok());
static_assert(check_all(sn::plan<Cnn, CnnInfer>()).ok());
static_assert(sn::plan<Cnn, CnnInfer>().footprint.activations <=
              sn::plan<Cnn, sn::Training<sn::Input<sn::i8, 1, 12, 12>, sn::Batch<16>>>()
                  .footprint.activations);

// ---- max_batch against brute force, at compile time -----------------------------------------

template <sn::Model M, sn::Setup S>
constexpr int64_t total_at(int64_t batch) {
  SetupDesc s = S::desc();
  s.batch = batch;
  return sn::plan(sn::lower(sn::flatten<M>(), s)).footprint.total().count;
}

// The largest batch in [1, limit] whose plan fits (not assuming monotonicity), 0 if none.
template <sn::Model M, sn::Setup S>
constexpr int64_t brute_max_batch(int64_t budget, int64_t limit) {
  int64_t best = 0;
  for (int64_t b = 1; b <= limit; ++b)
    if (total_at<M, S>(b) <= budget)
      best = b;
  return best;
}

template <sn::Model M, sn::Setup S, int64_t Budget>
constexpr bool max_batch_matches() {
  constexpr int64_t limit = 96;
  static_assert(total_at<M, S>(limit) > Budget, "widen the brute-force range");
  return sn::max_batch<M, S>(sn::Bytes{Budget}) == brute_max_batch<M, S>(Budget, limit);
}

using Tiny = sn::Sequential<sn::Linear<8>, sn::ReLU, sn::Linear<3>>;
using TinyTrain = sn::Training<sn::Input<sn::f32, 5>, sn::Loss<sn::MSE>>;
static_assert(max_batch_matches<Tiny, TinyTrain, total_at<Tiny, TinyTrain>(1) - 1>());  // 0
static_assert(max_batch_matches<Tiny, TinyTrain, total_at<Tiny, TinyTrain>(1)>());
static_assert(max_batch_matches<Tiny, TinyTrain, total_at<Tiny, TinyTrain>(37)>());
static_assert(max_batch_matches<Tiny, TinyTrain, total_at<Tiny, TinyTrain>(37) + 255>());
static_assert(max_batch_matches<Mlp, MlpTrain, total_at<Mlp, MlpTrain>(50) - 1>());
static_assert(max_batch_matches<Mlp, MlpTrain, total_at<Mlp, MlpTrain>(64)>());
static_assert(max_batch_matches<Cnn, CnnTrain, total_at<Cnn, CnnTrain>(20) + 100>());
static_assert(max_batch_matches<Cnn, CnnInfer, total_at<Cnn, CnnInfer>(77)>());
static_assert(sn::max_batch<Tiny, TinyTrain>(sn::Bytes{total_at<Tiny, TinyTrain>(37)}) >= 37);

// ---- random models -------------------------------------------------------------------------

template <std::size_t N>
struct Case {
  std::array<LayerDesc, N> layers{};
  SetupDesc setup;
};

// Per-sample shape after one layer (the same arithmetic as lowering, batch left out).
struct SampleShape {
  int rank = 1;  // 1: (F), 3: (C, H, W)
  int64_t c = 0, h = 0, w = 0, f = 0;
};

LayerDesc random_spatial_layer(Rng& rng, SampleShape& s) {
  const int64_t pick = rng.in(0, 99);
  if (pick < 40) {  // Conv2d
    LayerDesc d = LayerDesc::of(LayerKind::Conv2d, rng.in(1, 16));
    d.bias = rng.percent(80);
    d.pad_h = s.h > 48 ? 0 : rng.in(0, 2);
    d.pad_w = rng.percent(60) ? d.pad_h : (s.w > 48 ? 0 : rng.in(0, 2));
    d.kernel_h = rng.in(1, std::min<int64_t>(5, s.h + 2 * d.pad_h));
    d.kernel_w = rng.percent(60) && d.kernel_h <= s.w + 2 * d.pad_w
                     ? d.kernel_h
                     : rng.in(1, std::min<int64_t>(5, s.w + 2 * d.pad_w));
    d.stride_h = rng.in(1, 3);
    d.stride_w = rng.percent(60) ? d.stride_h : rng.in(1, 3);
    s.c = d.out;
    s.h = (s.h + 2 * d.pad_h - d.kernel_h) / d.stride_h + 1;
    s.w = (s.w + 2 * d.pad_w - d.kernel_w) / d.stride_w + 1;
    return d;
  }
  if (pick < 65) {  // pool: square window (as the types write it), stride and padding free
    LayerDesc d = LayerDesc::of(rng.percent(50) ? LayerKind::MaxPool2d : LayerKind::AvgPool2d);
    int64_t k = 1, ph = 0, pw = 0;
    for (int attempt = 0; attempt < 8; ++attempt) {
      const int64_t kk = rng.in(1, 4);
      const int64_t hh = rng.in(0, kk / 2);
      const int64_t ww = rng.percent(60) ? hh : rng.in(0, kk / 2);
      if (kk <= s.h + 2 * hh && kk <= s.w + 2 * ww) {
        k = kk, ph = hh, pw = ww;
        break;
      }
    }
    d.kernel_h = d.kernel_w = k;
    d.pad_h = ph;
    d.pad_w = pw;
    if (rng.percent(50)) {
      d.stride_h = d.stride_w = k;  // the default
    } else {
      d.stride_h = rng.in(1, 3);
      d.stride_w = rng.percent(60) ? d.stride_h : rng.in(1, 3);
    }
    s.h = (s.h + 2 * d.pad_h - d.kernel_h) / d.stride_h + 1;
    s.w = (s.w + 2 * d.pad_w - d.kernel_w) / d.stride_w + 1;
    return d;
  }
  constexpr LayerKind acts[] = {LayerKind::ReLU, LayerKind::LeakyReLU, LayerKind::Sigmoid,
                                LayerKind::Tanh};
  return LayerDesc::of(acts[rng.in(0, 3)]);
}

LayerDesc random_flat_layer(Rng& rng, SampleShape& s) {
  const int64_t pick = rng.in(0, 99);
  if (pick < 50) {
    LayerDesc d = LayerDesc::of(LayerKind::Linear, rng.in(1, 64));
    d.bias = rng.percent(80);
    if (rng.percent(25))
      d.in_features = s.f;
    s.f = d.out;
    return d;
  }
  if (pick < 90) {
    constexpr LayerKind acts[] = {LayerKind::ReLU, LayerKind::LeakyReLU, LayerKind::Sigmoid,
                                  LayerKind::Tanh};
    return LayerDesc::of(acts[rng.in(0, 3)]);
  }
  return LayerDesc::of(LayerKind::Flatten);  // a no-op view on flat input
}

template <std::size_t N>
Case<N> random_case(Rng& rng) {
  Case<N> c;
  SetupDesc& s = c.setup;
  SampleShape shape;
  const bool spatial = rng.percent(60);
  if (spatial) {
    shape.rank = 3;
    shape.c = rng.in(1, 4);
    shape.h = rng.in(1, 32);
    shape.w = rng.percent(70) ? shape.h : rng.in(1, 32);
    s.input = sn::Shape{shape.c, shape.h, shape.w};
  } else {
    shape.f = rng.in(1, 128);
    s.input = sn::Shape{shape.f};
  }
  s.input_rank_written = s.input.rank;
  constexpr sn::DType dtypes[] = {sn::f32, sn::f32, sn::f16, sn::bf16, sn::i8};
  s.input_dtype = dtypes[rng.in(0, 4)];
  s.batch = rng.in(1, 48);
  s.mode = rng.percent(70) ? sn::Mode::training : sn::Mode::inference;
  constexpr sn::OptimizerKind optimizers[] = {sn::OptimizerKind::SGD,
                                              sn::OptimizerKind::SGDMomentum,
                                              sn::OptimizerKind::Adam, sn::OptimizerKind::AdamW};
  s.optimizer = optimizers[rng.in(0, 3)];
  // Prefetch in a quarter of the cases (their training plans), from the batch rather than a new
  // draw, so that the cases drawn after it stay the ones they were.
  s.prefetch = s.batch % 4 == 1;
  // FP32 in half the cases, each other precision in a sixth, from the batch too.
  s.precision =
      (s.batch / 4) % 2 == 0 ? sn::PrecisionKind::FP32 : sn::precision_kinds[1 + (s.batch / 8) % 3];
  // Spatial models: a conv/pool/activation segment, then Flatten, then a flat segment (or all
  // spatial, which only MSE accepts). Flat inputs: a pure MLP.
  std::size_t spatial_layers = 0;
  if (spatial)
    spatial_layers = rng.percent(15) ? N : static_cast<std::size_t>(rng.in(0, N - 1));
  for (std::size_t i = 0; i < N; ++i) {
    if (i < spatial_layers) {
      c.layers[i] = random_spatial_layer(rng, shape);
    } else if (spatial && i == spatial_layers) {
      c.layers[i] = LayerDesc::of(LayerKind::Flatten);
      shape.rank = 1;
      shape.f = shape.c * shape.h * shape.w;
    } else {
      c.layers[i] = random_flat_layer(rng, shape);
    }
  }
  const bool flat_output = shape.rank == 1;
  s.loss = flat_output && rng.percent(60) ? sn::LossKind::CrossEntropy : sn::LossKind::MSE;
  if (s.mode == sn::Mode::training && rng.percent(30)) {
    s.has_target = true;
    if (s.loss == sn::LossKind::CrossEntropy) {
      s.target_dtype = sn::i32;
    } else {
      s.target_dtype = sn::f32;
      s.target = flat_output ? sn::Shape{shape.f} : sn::Shape{shape.c, shape.h, shape.w};
    }
  }
  return c;
}

// ---- reproductions ---------------------------------------------------------------------------

std::string pair_args(int64_t h, int64_t w) {
  return h == w ? std::to_string(h) : std::to_string(h) + ", " + std::to_string(w);
}

std::string type_of(const LayerDesc& d) {
  std::string t = "sn::";
  switch (d.kind) {
    case LayerKind::Linear:
      t += "Linear<" + std::to_string(d.out);
      if (d.in_features != -1)
        t += ", sn::InFeatures<" + std::to_string(d.in_features) + ">";
      return t + (d.bias ? ">" : ", sn::NoBias>");
    case LayerKind::Conv2d:
      t += "Conv2d<" + std::to_string(d.out) + ", sn::Kernel<" + pair_args(d.kernel_h, d.kernel_w) +
           ">, sn::Stride<" + pair_args(d.stride_h, d.stride_w) + ">, sn::Padding<" +
           pair_args(d.pad_h, d.pad_w) + ">";
      return t + (d.bias ? ">" : ", sn::NoBias>");
    case LayerKind::MaxPool2d:
    case LayerKind::AvgPool2d:
      return t + sn::name_of(d.kind) + "<" + std::to_string(d.kernel_h) + ", sn::Stride<" +
             pair_args(d.stride_h, d.stride_w) + ">, sn::Padding<" + pair_args(d.pad_h, d.pad_w) +
             ">>";
    default:
      return t + sn::name_of(d.kind);
  }
}

std::string dims_of(const sn::Shape& s) {
  std::string t;
  for (int i = 0; i < s.rank; ++i)
    t += ", " + std::to_string(s[i]);
  return t;
}

template <std::size_t N>
std::string repro(const std::array<LayerDesc, N>& layers, const SetupDesc& s) {
  std::string m = "using M = sn::Sequential<";
  for (std::size_t i = 0; i < N; ++i)
    m += (i ? ", " : "") + type_of(layers[i]);
  m += ">;\nusing S = sn::";
  m += s.mode == sn::Mode::training ? "Training<" : "Inference<";
  m += std::string("sn::Input<sn::") + sn::name_of(s.input_dtype) + dims_of(s.input) +
       ">, sn::Batch<" + std::to_string(s.batch) + ">";
  switch (s.precision) {
    case sn::PrecisionKind::FP32:
      break;
    case sn::PrecisionKind::MixedBF16:
      m += ", sn::Precision<sn::detail::Mixed<sn::bf16>>";
      break;
    case sn::PrecisionKind::MixedF16:
      m += ", sn::Precision<sn::detail::Mixed<sn::f16>>";
      break;
    case sn::PrecisionKind::PureBF16:
      m += ", sn::Precision<sn::detail::Pure<sn::bf16>>";
      break;
    case sn::PrecisionKind::Int8:
      m += ", sn::Precision<sn::Int8>";
      break;
  }
  if (s.mode == sn::Mode::training) {
    m += std::string(", sn::Loss<sn::") + sn::name_of(s.loss) +
         ">, sn::Optimizer<sn::" + sn::name_of(s.optimizer) + ">";
    if (s.has_target)
      m += std::string(", sn::Target<sn::") + sn::name_of(s.target_dtype) + dims_of(s.target) + ">";
    if (s.prefetch)
      m += ", sn::Prefetch";
  }
  return m + ">;";
}

// ---- bookkeeping -----------------------------------------------------------------------------

struct Failure {
  int count = 0;
  std::string first;  // the first failing model, as types
};

struct Report {
  std::vector<std::pair<std::string, Failure>> failures;  // by property message
  long models = 0, plans = 0, rejects = 0;
  std::string first_reject;
  double ratio_sum = 0, ratio_max = 0;  // activations / max live activation bytes
  long ratio_count = 0;
  long scaling_pairs = 0, scaling_exceeds = 0;  // activations(kb) > k * activations(b)
  int64_t scaling_max_excess = 0;               // bytes over k * activations(b)
  double scaling_max_excess_ratio = 0;          // the same, relative to k * activations(b)
  long inference_larger = 0;

  void fail(const std::string& what, const std::string& model) {
    for (auto& [name, f] : failures)
      if (name == what) {
        ++f.count;
        return;
      }
    failures.push_back({what, Failure{1, model}});
  }
  void record(const Verdict& v, const std::string& where, const std::string& model) {
    if (!v.ok())
      fail(where + ": " + v.what + " (" + std::to_string(v.a) + ", " + std::to_string(v.b) + ")",
           model);
  }
};

// The exact bytes (sizes, not occupied) of activation-region buffers alive at each step.
template <std::size_t L>
std::vector<int64_t> exact_live(const sn::Plan<L>& p) {
  std::vector<int64_t> live(static_cast<std::size_t>(p.step_count()), 0);
  for (const Buffer& b : p.buffers)
    if (b.region() == Region::activations)
      for (int64_t s = b.first_step; s <= b.last_step; ++s)
        live[static_cast<std::size_t>(s)] += b.size;
  return live;
}

// Buffers that hold one slice per sample: everything but parameters, their gradients and
// moments, and the workspace (one sample's im2col). Prefetch's next_batch mirrors the batch's
// layout, padding included, so it does not scale exactly: see next_batch_bytes.
constexpr bool per_sample(const Buffer& b) {
  return b.role != BufferRole::next_batch &&
         (b.region() == Region::activations || b.region() == Region::inputs);
}

// What next_batch holds: the input as it occupies the arena, then the labels or targets.
template <std::size_t L>
constexpr int64_t next_batch_bytes(const sn::Plan<L>& p) {
  int64_t bytes = 0;
  for (const Buffer& b : p.buffers) {
    if (b.role == BufferRole::input)
      bytes += b.occupied();
    if (b.role == BufferRole::labels || b.role == BufferRole::targets)
      bytes += b.size;
  }
  return bytes;
}

// Slack used by the minimised probes below (known placement limits, not hard properties): Every
// activation-region buffer holds a per-sample slice, so its exact size scales by k (checked above)
// and its occupied size obeys align_up(k * s) <= k * align_up(s). A placement whose decisions
// (order, which hole) do not depend on the batch therefore gives activations(kb) <= k *
// activations(b) with no slack at all: the region is the top of some stack of buffers, each at the
// end of the one below, and every term of that sum is at most k times its term at batch b. The
// 256-byte rounding can still flip a decision (a hole that fits at batch b misses by a few bytes at
// kb), so we allow one alignment unit per buffer of the region: 256 * buffers. Beyond that the
// placement is not batch-consistent, which also makes total() non-monotone in the batch and
// max_batch's bisection unsound (see the tests below).
template <std::size_t L>
constexpr int64_t scaling_slack(const sn::Plan<L>& p) {
  int64_t n = 0;
  for (const Buffer& b : p.buffers)
    n += b.region() == Region::activations ? 1 : 0;
  return alignment_of(p) * n;
}

// Checks one model in one mode at batches b, 2b, 3b. Returns the plan's activations at b
// (or -1 when the model does not lower in this mode).
template <std::size_t N>
int64_t check_mode(const std::array<LayerDesc, N>& layers, SetupDesc setup, Report& r) {
  const int64_t b = setup.batch;
  const sn::Graph<N> g = sn::lower(layers, setup);
  if (!g.error.ok())
    return -1;
  const std::string mode = setup.mode == sn::Mode::training ? "training" : "inference";
  std::vector<sn::Plan<N>> plans;
  plans.reserve(3);
  for (int64_t k = 1; k <= 3; ++k) {
    setup.batch = k * b;
    plans.push_back(sn::plan(sn::lower(layers, setup)));
    ++r.plans;
    const sn::Plan<N>& p = plans.back();
    const Verdict v = check_all(p);
    if (!v.ok()) {
      r.record(v, mode, repro(layers, setup));
      continue;
    }
    if (k == 1) {
      const int64_t live = max_live_activation_bytes(p);
      if (live > 0) {
        const double ratio =
            static_cast<double>(p.footprint.activations.count) / static_cast<double>(live);
        r.ratio_sum += ratio;
        r.ratio_max = std::max(r.ratio_max, ratio);
        ++r.ratio_count;
      }
    }
  }
  setup.batch = b;
  const std::string model = repro(layers, setup);
  // (e) batch scaling
  const sn::Plan<N>& p1 = plans[0];
  const std::vector<int64_t> live1 = exact_live(p1);
  for (int64_t k = 2; k <= 3; ++k) {
    const sn::Plan<N>& pk = plans[static_cast<std::size_t>(k - 1)];
    if (pk.buffers.size() != p1.buffers.size() || pk.step_count() != p1.step_count()) {
      r.fail(mode + ": the buffer list or the schedule depends on the batch", model);
      continue;
    }
    for (std::size_t i = 0; i < p1.buffers.size(); ++i) {
      const Buffer &x = p1.buffers[i], &y = pk.buffers[i];
      const int64_t expected = x.role == BufferRole::next_batch ? next_batch_bytes(pk)
                               : per_sample(x)                  ? k * x.size
                                                                : x.size;
      if (x.role != y.role || x.layer != y.layer || x.first_step != y.first_step ||
          x.last_step != y.last_step || y.size != expected) {
        r.fail(mode + ": a buffer's size does not scale exactly with the batch (per-sample " +
                   "buffers k times, others unchanged), or its role or lifetime changes",
               model);
        break;
      }
    }
    const std::vector<int64_t> livek = exact_live(pk);
    for (std::size_t s = 0; s < live1.size(); ++s)
      if (livek[s] != k * live1[s]) {
        r.fail(mode + ": the exact live activation bytes do not scale with the batch", model);
        break;
      }
    for (int64_t s = 0; s < p1.step_count(); ++s)
      if (pk.live_activation_bytes(s) > k * p1.live_activation_bytes(s)) {
        r.fail(mode + ": live_activation_bytes(kb) > k * live_activation_bytes(b)", model);
        break;
      }
    const int64_t a1 = p1.footprint.activations.count, ak = pk.footprint.activations.count;
    ++r.scaling_pairs;
    if (ak > k * a1) {
      ++r.scaling_exceeds;
      r.scaling_max_excess = std::max(r.scaling_max_excess, ak - k * a1);
      r.scaling_max_excess_ratio =
          std::max(r.scaling_max_excess_ratio,
                   static_cast<double>(ak - k * a1) / static_cast<double>(k * a1));
    }
    // The bytes a step needs scale exactly (checked above). The arena does too whenever the
    // placement at kb meets the live-bytes bound: then ak = live(kb) <= k * live(b) <= k * a1.
    // Otherwise the placement, a heuristic for an NP-hard problem (dynamic storage allocation)
    // that may not pad (no byte unused), can exceed k * a1: counted in the report, probed by the
    // minimised cases below.
    if (ak == max_live_activation_bytes(pk) && ak > k * a1)
      r.fail(mode + ": activations(kb) > k * activations(b) although kb meets the live bound",
             model);
  }
  return p1.footprint.activations.count;
}

template <std::size_t N>
void check_case(const Case<N>& c, Report& r) {
  ++r.models;
  const sn::Graph<N> g = sn::lower(c.layers, c.setup);
  if (!g.error.ok()) {
    if (r.rejects++ == 0)
      r.first_reject = repro(c.layers, c.setup);
    return;
  }
  SetupDesc training = c.setup, inference = c.setup;
  training.mode = sn::Mode::training;
  inference.mode = sn::Mode::inference;
  inference.has_target = false;
  inference.prefetch = false;  // Inference does not take it
  // Int8 is inference's only: the inference run of half the Pure<bf16> cases runs it instead.
  if (inference.precision == sn::PrecisionKind::PureBF16 && inference.batch % 2 == 0)
    inference.precision = sn::PrecisionKind::Int8;
  const int64_t a_train = check_mode(c.layers, training, r);
  const int64_t a_infer = check_mode(c.layers, inference, r);
  // (g) inference needs no more activation bytes than training the same model (in the same
  // precision: Int8's shared region holds the input too)
  if (a_train >= 0 && a_infer > a_train && inference.precision == training.precision) {
    ++r.inference_larger;
    r.fail("inference activations > training activations for the same model",
           repro(c.layers, training));
  }
}

template <std::size_t N>
void run_random(Rng& rng, int count, Report& r) {
  for (int i = 0; i < count; ++i)
    check_case(random_case<N>(rng), r);
}

void print_report(const char* name, const Report& r) {
  MESSAGE(
      std::string(name) << ": " << r.models << " random models (" << r.rejects
                        << " rejected by lowering), " << r.plans
                        << " plans checked; activations / max live bytes: mean "
                        << (r.ratio_count ? r.ratio_sum / static_cast<double>(r.ratio_count) : 0.0)
                        << ", max " << r.ratio_max << "; activations(kb) > k*activations(b) in "
                        << r.scaling_exceeds << " of " << r.scaling_pairs << " pairs (max excess "
                        << r.scaling_max_excess << " B, " << 100.0 * r.scaling_max_excess_ratio
                        << "%); inference > training in " << r.inference_larger << " models");
  CHECK_MESSAGE(r.rejects == 0, "the generator made a model that lowering rejects:\n"
                                    << r.first_reject);
  for (const auto& [what, f] : r.failures)
    FAIL_CHECK(what << " -- " << f.count << " model(s); the first:\n" << f.first);
}

}  // namespace

TEST_CASE("planner properties hold on random models") {
  Rng rng{20240601};
  Report r;
  run_random<1>(rng, 400, r);
  run_random<2>(rng, 400, r);
  run_random<3>(rng, 400, r);
  run_random<5>(rng, 300, r);
  run_random<8>(rng, 300, r);
  run_random<13>(rng, 300, r);
  run_random<21>(rng, 300, r);
  run_random<40>(rng, 300, r);
  run_random<64>(rng, 300, r);
  print_report("random models", r);
}

TEST_CASE("planner properties hold above the offline placement limit") {
  // More than 512 buffers: only the online placement runs.
  Rng rng{77};
  Report r;
  run_random<300>(rng, 6, r);
  print_report("300-layer models", r);
}

// Not a guarantee (see check_mode): placement can dip the total as the batch grows. A probe for
// a better placement, kept visible; what users rely on, max_batch, is checked against brute force.
TEST_CASE("planner properties: total() is monotone in the batch" * doctest::may_fail()) {
  Rng rng{99};
  long models = 0;
  std::vector<std::pair<std::string, int64_t>> failures;
  auto one = [&]<std::size_t N>(const Case<N>& c) {
    if (!sn::lower(c.layers, c.setup).error.ok())
      return;
    ++models;
    SetupDesc s = c.setup;
    int64_t previous = 0;
    for (int64_t b = 1; b <= 40; ++b) {
      s.batch = b;
      const int64_t total = sn::plan(sn::lower(c.layers, s)).footprint.total().count;
      if (total < previous) {
        failures.push_back({repro(c.layers, s), b});
        break;
      }
      previous = total;
    }
  };
  for (int i = 0; i < 60; ++i) {
    one(random_case<2>(rng));
    one(random_case<5>(rng));
    one(random_case<13>(rng));
  }
  MESSAGE(models << " random models planned at batches 1..40");
  CHECK_MESSAGE(failures.empty(), "total(b) < total(b-1) in "
                                      << failures.size() << " models; the first, at this batch:\n"
                                      << (failures.empty() ? "" : failures[0].first));
}

TEST_CASE("planner properties: max_batch matches brute force at run time") {
  auto check = [](auto model_tag, auto setup_tag) {
    using M = typename decltype(model_tag)::type;
    using S = typename decltype(setup_tag)::type;
    for (int64_t target = 1; target <= 60; target += 7)
      for (int64_t delta : {-1, 0, 1, 255}) {
        const int64_t budget = total_at<M, S>(target) + delta;
        CHECK(sn::max_batch<M, S>(sn::Bytes{budget}) == brute_max_batch<M, S>(budget, 90));
      }
  };
  check(std::type_identity<Tiny>{}, std::type_identity<TinyTrain>{});
  check(std::type_identity<Mlp>{}, std::type_identity<MlpTrain>{});
  check(std::type_identity<Cnn>{}, std::type_identity<CnnTrain>{});
  check(std::type_identity<Cnn>{}, std::type_identity<CnnInfer>{});
}

TEST_CASE("planner properties: max_batch matches brute force on random models") {
  Rng rng{1234};
  int checked = 0;
  auto one = [&]<std::size_t N>(const Case<N>& c) {
    if (!sn::lower(c.layers, c.setup).error.ok())
      return;
    SetupDesc s = c.setup;
    std::array<int64_t, 49> totals{};
    for (int64_t b = 1; b <= 48; ++b) {
      s.batch = b;
      totals[b] = sn::plan(sn::lower(c.layers, s)).footprint.total().count;
    }
    for (int64_t target : {3, 17, 30}) {
      const int64_t budget = totals[target] + static_cast<int64_t>(rng.in(0, 300));
      int64_t brute = 0;
      for (int64_t b = 1; b <= 48; ++b)
        if (totals[b] <= budget)
          brute = b;
      if (totals[48] <= budget)
        continue;  // the answer may lie beyond the brute-force range
      ++checked;
      CHECK_MESSAGE(sn::detail::max_batch_for(c.layers, c.setup, sn::Bytes{budget}) == brute,
                    repro(c.layers, c.setup) << " with a budget of " << budget << " B");
    }
  };
  for (int i = 0; i < 25; ++i) {
    one(random_case<3>(rng));
    one(random_case<8>(rng));
  }
  MESSAGE(checked << " random (model, budget) pairs checked against brute force");
  CHECK(checked > 50);
}

// Found by the monotonicity test and minimised: total() drops from batch 29 (15,360 B) to batch
// 30 (15,104 B): at 29 the placement misses the live-bytes bound (9,728 B of activations for
// 8,960 B live), at 30 it meets it (9,472 B). max_batch bisects as if total() were monotone, so
// with a budget of total(30) it answers 27 although batch 30 fits.
using Mlp3 = sn::Sequential<sn::Linear<28>, sn::Linear<17>, sn::Linear<5>>;
using Mlp3Train = sn::Training<sn::Input<sn::f32, 1>>;

TEST_CASE("planner properties: max_batch is the largest batch that fits (minimised case)") {
  // The dip itself is a known placement limit; max_batch must see past it.
  const int64_t budget = total_at<Mlp3, Mlp3Train>(30);
  CHECK(brute_max_batch<Mlp3, Mlp3Train>(budget, 90) == 30);
  CHECK(sn::max_batch<Mlp3, Mlp3Train>(sn::Bytes{budget}) ==
        brute_max_batch<Mlp3, Mlp3Train>(budget, 90));
}

// Found by the random test and minimised: the activation region at 3b exceeds 3x the region at
// b by more than the rounding slack. In both, the placement at b meets the live-bytes bound and
// the placement at 3b does not (a hole left by a freed buffer is a few bytes too small once the
// sizes are rounded to 256 at the larger batch).
template <sn::Model M, sn::Setup S>
constexpr sn::Plan<sn::layer_count<M>> plan_at(int64_t batch) {
  SetupDesc s = S::desc();
  s.batch = batch;
  return sn::plan(sn::lower(sn::flatten<M>(), s));
}

template <sn::Model M, sn::Setup S>
void check_scaling(int64_t b, int64_t k) {
  const auto p1 = plan_at<M, S>(b);
  const auto pk = plan_at<M, S>(k * b);
  INFO("activations at " << b << ": " << p1.footprint.activations.count << " B, at " << k * b
                         << ": " << pk.footprint.activations.count << " B (live bound "
                         << max_live_activation_bytes(pk) << " B)");
  CHECK(pk.footprint.activations.count <= k * p1.footprint.activations.count + scaling_slack(pk));
}

TEST_CASE("planner properties: activations scale with the batch (minimised cases)") {
  // training: 22,528 B at 19 (= live bound); 71,168 B at 57 > 3 x 22,528 + 11 x 256 = 70,400
  // (live bound 65,280)
  check_scaling<sn::Sequential<sn::Conv2d<3, sn::Kernel<1>, sn::Stride<2>>, sn::Flatten,
                               sn::Linear<1>, sn::Linear<30>, sn::Linear<25>, sn::Linear<54>>,
                sn::Training<sn::Input<sn::f32, 1, 5, 25>>>(19, 3);
  // inference: 4,352 B at 10 (= live bound); 14,336 B at 30 > 3 x 4,352 + 4 x 256 = 14,080
  // (live bound 12,544)
  check_scaling<sn::Sequential<sn::ReLU, sn::Linear<20>, sn::Linear<50>, sn::Linear<52>>,
                sn::Inference<sn::Input<sn::f32, 45>>>(10, 3);
}

TEST_CASE("planner properties: the checks catch corrupted plans") {
  const auto good = sn::plan<Cnn, CnnTrain>();
  REQUIRE(check_all(good).ok());
  const auto first_activation = [&] {
    for (std::size_t i = 0; i < good.buffers.size(); ++i)
      if (good.buffers[i].region() == Region::activations)
        return i;
    return good.buffers.size();
  }();
  REQUIRE(first_activation < good.buffers.size());
  {  // (a) a buffer moved onto a buffer alive at the same step
    auto p = good;
    const Buffer& x = p.buffers[first_activation];
    for (std::size_t j = first_activation + 1; j < p.buffers.size(); ++j)
      if (p.buffers[j].region() == Region::activations && lifetimes_meet(x, p.buffers[j])) {
        p.buffers[j].offset = x.offset;
        break;
      }
    CHECK_FALSE(check_no_overlap(p).ok());
  }
  {  // (b) a region counted larger than its buffers
    auto p = good;
    p.footprint.activations = p.footprint.activations + sn::Bytes{256};
    CHECK_FALSE(check_coverage_and_layout(p).ok());
  }
  {  // (c) a misaligned offset
    auto p = good;
    p.buffers[first_activation].offset += 4;
    CHECK_FALSE(check_coverage_and_layout(p).ok());
  }
  {  // (d) a region below the live bytes
    auto p = good;
    p.footprint.activations = sn::Bytes{max_live_activation_bytes(p) - 256};
    CHECK_FALSE(check_lower_bound(p).ok());
  }
  {  // (f) a saved input that dies before the backward that reads it
    auto p = good;
    const int x = p.layers[p.layer_count() - 1].input_buffer;  // the last Linear's input
    p.buffers[x].last_step = static_cast<int64_t>(p.layer_count());
    CHECK_FALSE(check_lifetimes(p).ok());
  }
  {  // (f) an activation made to run in place over the output that the ReLU before it saved
    auto q = sn::plan<sn::Sequential<sn::Linear<8>, sn::ReLU, sn::Sigmoid, sn::Linear<4>>,
                      sn::Training<sn::Input<sn::f32, 6>>>();
    REQUIRE(check_all(q).ok());
    REQUIRE_FALSE(q.layers[2].in_place);  // the planner keeps the ReLU's output
    q.layers[2].in_place = true;
    q.layers[2].output_buffer = q.layers[2].input_buffer;
    q.layers[3].input_buffer = q.layers[2].input_buffer;
    CHECK_FALSE(check_lifetimes(q).ok());
  }
  {  // (g) a backward that reads a version of its input other than the one its forward read
    auto p = good;
    const int64_t step = 2 * static_cast<int64_t>(p.layer_count());  // layer 0's backward
    for (int64_t a = p.first_access(step); a < p.end_access(step); ++a) {
      sn::Access x = p.access(a);
      if (x.kind == sn::AccessKind::read && x.buffer == p.layers[0].input_buffer) {
        ++x.version;
        p.access_codes[static_cast<std::size_t>(a)] =
            sn::Access::encode(x.buffer, x.version, x.kind);
      }
    }
    CHECK_FALSE(check_schedule(p).ok());
  }
  {  // (h) a buffer that lives past its last access
    auto p = good;
    ++p.buffers[first_activation].last_step;
    CHECK_FALSE(check_schedule(p).ok());
  }
}

#pragma once
// The planner's fusion stage: which layers run as one pass. It is decided here, once, from the
// placed plan, and every backend renders the groups it is given (codegen/emit) while the analyzer
// shows them (staticnet analyze); neither decides them.
//
// Layers read tensors by id (LayerPlan::inputs), so "after" below means "reads the output of, as
// its only reader": in a residual block the layer that follows another in the list may read
// something else entirely.
//
// The rules:
//   * A Linear or Conv2d starts a group (its "product": a GEMM or convolution), unless the
//     convolution runs directly (grouped or depthwise; on CUDA also a dense one whose padding is
//     uneven or whose input gradient adds to another reader's, which cuDNN's graphs do not take):
//     then it is a group of its own.
//   * An elementwise activation after it joins: bias + activation are applied in the pass that
//     finishes the product's output, and backward applies the activation's derivative in the
//     pass that starts the product's backward.
//   * After a Conv2d (and its activation, if any), a MaxPool2d or AvgPool2d whose windows tile
//     its input exactly (stride = kernel, no padding, no leftover row or column) joins too: each
//     window is finished, activated and pooled in one visit, and backward routes the pooled
//     gradient through the activation straight into the convolution's output gradient. Windows
//     that overlap or leave elements out would visit an element twice or never, so such a pool
//     runs as a group of its own. It joins only where the placement allows the writes the fused
//     passes make early (early_write_safe).
//   * A BatchNorm starts a group, and an activation after it joins: normalise and activate in one
//     pass; backward applies the activation's derivative in the pass that sums for BatchNorm's.
//   * Under sn::Inference, a BatchNorm the plan folded (LayerPlan::folded) joins the product or
//     direct convolution before it, and the activation after it joins too: its scale is folded
//     into that layer's weights once, at load time, and its shift is added where the bias was
//     (kernels/batch_norm.hpp, fold_batch_norm), so conv + BN + ReLU is one pass over the output.
//   * A residual Add starts a group, and an activation after it joins (ResNet's ReLU after the
//     sum): y = act(a + b) in one pass.
//   * An activation joins only when it runs in place in both directions (its output over its
//     input, its input gradient over its output gradient): the fused pass writes one buffer.
//   * Every other layer is a group of its own; a Flatten is a view.
// A group never changes what the plan placed where: it reads and writes the buffers the plan
// gave its layers, by id.
//
// fuse() takes any plan-shaped value: a Plan<L>, or the generator's run-time copy of one (its
// `layers`, `buffers` and `schedule` with size() and operator[]). It runs at run time, in the
// generator and the analyzer's probe, and adds nothing to the cost of sn::plan<M, S>().
#include <cstdint>
#include <stdexcept>
#include <string>

#include "staticnet/plan_types.hpp"

namespace staticnet {

// The kernels a plan is fused for. They differ only in which convolutions run directly (above).
enum class FusionTarget : std::uint8_t { cpu, cuda };

constexpr const char* name_of(FusionTarget t) {
  return t == FusionTarget::cpu ? "cpu" : "cuda";
}

struct FusedGroup {
  std::int64_t first = 0, last = 0;  // the layers covered, inclusive
  std::int64_t product = -1;         // the Linear or Conv2d, or -1
  std::int64_t activation = -1;   // the activation fused after the first layer, or a standalone one
  std::int64_t pool = -1;         // the pool fused after the product, or a standalone one
  std::int64_t view = -1;         // a Flatten (nothing to run)
  std::int64_t norm = -1;         // a BatchNorm2d or BatchNorm1d
  std::int64_t folded = -1;       // Inference: a BatchNorm folded into the product or direct conv
  std::int64_t sum = -1;          // a residual block's Add
  std::int64_t grouped = -1;      // a convolution computed directly (see the rules above)
  std::int64_t global_pool = -1;  // a GlobalAvgPool2d
  std::int64_t dropout = -1;      // a Dropout

  constexpr bool fused() const { return last > first; }
};

namespace fusion {

constexpr bool is_product(LayerKind k) {
  return k == LayerKind::Linear || k == LayerKind::Conv2d;
}

constexpr bool pool_tiles(const LayerPlan& pool) {
  const LayerDesc& d = pool.options;
  return d.stride_h == d.kernel_h && d.stride_w == d.kernel_w && d.pad_h == 0 && d.pad_w == 0 &&
         pool.input_shape[2] == pool.output_shape[2] * d.kernel_h &&
         pool.input_shape[3] == pool.output_shape[3] * d.kernel_w;
}

template <class P>
constexpr std::int64_t step_of(const P& plan, StepKind kind, std::int64_t layer) {
  for (std::size_t s = 0; s < plan.schedule.size(); ++s)
    if (plan.schedule[s].kind == kind && plan.schedule[s].layer == layer)
      return static_cast<std::int64_t>(s);
  throw std::logic_error("no step of that kind for layer " + std::to_string(layer));
}

// A fused group runs several steps of the schedule as one, so it may write a buffer earlier than
// the step the plan starts it at. That is allowed only if no other buffer placed in the same
// bytes is alive in between.
template <class P>
constexpr bool early_write_safe(const P& plan, int index, std::int64_t at_step) {
  if (index == no_buffer)
    return true;
  const Buffer& w = plan.buffers[static_cast<std::size_t>(index)];
  if (w.first_step <= at_step || w.region() != Region::activations)
    return true;
  for (std::size_t i = 0; i < plan.buffers.size(); ++i) {
    const Buffer& b = plan.buffers[i];
    if (static_cast<int>(i) == index || b.region() != Region::activations)
      continue;
    const bool alive_between = b.first_step <= w.first_step - 1 && b.last_step >= at_step;
    const bool shares_bytes =
        b.offset < w.offset + w.occupied() && w.offset < b.offset + b.occupied();
    if (alive_between && shares_bytes)
      return false;
  }
  return true;
}

// How many layers read layer i's output.
template <class P>
constexpr int readers_of(const P& plan, std::int64_t i) {
  int count = 0;
  for (std::size_t j = 0; j < plan.layers.size(); ++j)
    for (int k = 0; k < plan.layers[j].input_count(); ++k)
      count += plan.layers[j].inputs[k] == i;
  return count;
}

// Checkpointing: the step at which layer i runs again in backward (a recompute step), or -1
// (LayerPlan::recomputed says whether there is one).
template <class P>
constexpr std::int64_t recompute_step(const P& plan, std::int64_t i) {
  for (std::size_t s = 0; s < plan.schedule.size(); ++s)
    if (plan.schedule[s].kind == StepKind::recompute && plan.schedule[s].layer == i)
      return static_cast<std::int64_t>(s);
  return -1;
}

// Layer `next` reads layer `i`'s output, and nothing else reads it: it may join i's group, if
// both run again in backward or neither does (a group is recomputed whole).
template <class P>
constexpr bool only_reader(const P& plan, std::int64_t i, std::int64_t next) {
  if (next >= static_cast<std::int64_t>(plan.layers.size()))
    return false;
  if (plan.layers[static_cast<std::size_t>(i)].recomputed !=
      plan.layers[static_cast<std::size_t>(next)].recomputed)
    return false;
  const LayerPlan& n = plan.layers[static_cast<std::size_t>(next)];
  return n.input_count() == 1 && n.inputs[0] == i && readers_of(plan, i) == 1;
}

// An activation fuses after layer i when it is i's output's only reader and runs in place both
// ways: the fused forward writes the activation's output over i's, and the fused backward leaves
// d(i's output) in the activation's output gradient (always so for a chain; a residual block may
// give an activation's input gradient a buffer of its own when its output gradient is shared).
template <class P>
constexpr bool can_fuse_activation(const P& plan, std::int64_t i, std::int64_t next) {
  if (!only_reader(plan, i, next))
    return false;
  const LayerPlan& a = plan.layers[static_cast<std::size_t>(next)];
  return is_elementwise(a.kind) && a.in_place &&
         (!a.runs_backward || a.input_gradient_buffer == no_buffer ||
          a.input_gradient_buffer == a.output_gradient_buffer);
}

// A pool after the product (and its activation) fuses when its windows tile its input and the
// writes the fused passes make early collide with nothing: the pooled values and window indices
// (written at the product's forward step, not the pool's) and the product's output gradient
// (written at the pool's backward step, not the activation's).
template <class P>
constexpr bool can_fuse_pool(const P& plan, std::int64_t product, std::int64_t before,
                             std::int64_t pool_layer) {
  if (!only_reader(plan, before, pool_layer))
    return false;
  const LayerPlan& pool = plan.layers[static_cast<std::size_t>(pool_layer)];
  if (!is_pool(pool.kind) || !pool_tiles(pool))
    return false;
  const std::int64_t forward = step_of(plan, StepKind::forward, product);
  if (!early_write_safe(plan, pool.output_buffer, forward) ||
      !early_write_safe(plan, pool.window_index_buffer, forward))
    return false;
  // Recomputed, the fused passes write the pool's recomputed buffers at the product's recompute
  // step.
  if (plan.layers[static_cast<std::size_t>(product)].recomputed) {
    const std::int64_t again = recompute_step(plan, product);
    if (!early_write_safe(plan, recomputed_or_same(plan.buffers, pool.output_buffer), again) ||
        !early_write_safe(plan, recomputed_or_same(plan.buffers, pool.window_index_buffer), again))
      return false;
  }
  if (!pool.runs_backward)
    return true;
  return early_write_safe(plan,
                          plan.layers[static_cast<std::size_t>(product)].output_gradient_buffer,
                          step_of(plan, StepKind::backward, pool_layer));
}

// A convolution computed directly (grouped_conv.hpp) rather than as a product: grouped and
// depthwise ones on both backends, and on CUDA a dense one that staticnet's cuDNN convolutions
// (kernels/src/cuda/convolution.cpp) do not take as the plan has it: padding uneven before and
// after (cuDNN's graphs have post-padding; whether its engines beat the direct kernel there is
// what bench/cuda_step/direct_conv_engines.cpp measures), or an input gradient added to another
// reader's part.
constexpr bool runs_direct(const LayerPlan& l, FusionTarget target) {
  if (l.kind == LayerKind::DepthwiseConv2d)
    return true;
  if (l.kind != LayerKind::Conv2d)
    return false;
  return l.options.groups != 1 ||
         (target == FusionTarget::cuda &&
          (!l.options.symmetric_padding() || l.accumulates_input_gradient));
}

}  // namespace fusion

// The plan's layers as groups for `target`, in order, each appended to `groups` (a container with
// push_back: a std::vector, a StaticVector).
template <class P, class Groups>
constexpr void fuse(const P& plan, FusionTarget target, Groups& groups) {
  using namespace fusion;
  const bool training = plan.setup.mode == Mode::training;
  const auto count = static_cast<std::int64_t>(plan.layers.size());
  auto layer = [&](std::int64_t i) -> const LayerPlan& {
    return plan.layers[static_cast<std::size_t>(i)];
  };
  for (std::int64_t i = 0; i < count;) {
    const LayerPlan& l = layer(i);
    const LayerKind kind = l.kind;
    FusedGroup g;
    g.first = g.last = i;
    auto fuse_activation = [&](std::int64_t after) {
      if (can_fuse_activation(plan, after, after + 1))
        g.activation = g.last = after + 1;
    };
    // Under Inference the plan may have folded the BatchNorm after this layer into it.
    auto fuse_folded_norm = [&] {
      if (only_reader(plan, i, i + 1) && layer(i + 1).folded) {
        g.folded = g.last = i + 1;
        fuse_activation(g.last);
      } else {
        fuse_activation(i);
      }
    };
    if (runs_direct(l, target)) {
      g.grouped = i;
      if (!training)
        fuse_folded_norm();
    } else if (is_product(kind)) {
      g.product = i;
      fuse_folded_norm();
      if (kind == LayerKind::Conv2d && can_fuse_pool(plan, i, g.last, g.last + 1))
        g.pool = g.last = g.last + 1;
    } else if (is_batch_norm(kind)) {
      if (l.folded)  // the plan folds only a BatchNorm right after its only reader's producer
        throw std::logic_error("layer " + std::to_string(i) +
                               ": a folded BatchNorm not grouped with the layer it folds into");
      g.norm = i;
      fuse_activation(i);
    } else if (kind == LayerKind::Add) {
      g.sum = i;
      fuse_activation(i);
    } else if (is_elementwise(kind)) {
      g.activation = i;
    } else if (is_pool(kind)) {
      g.pool = i;
    } else if (kind == LayerKind::GlobalAvgPool2d) {
      g.global_pool = i;
    } else if (kind == LayerKind::Dropout) {
      g.dropout = i;
    } else {
      g.view = i;  // Flatten
    }
    groups.push_back(g);
    i = g.last + 1;
  }
}

}  // namespace staticnet

#include "staticnet/codegen/fusion.hpp"

#include <stdexcept>
#include <string>

namespace staticnet::codegen {
namespace {

bool is_product(LayerKind k) {
  return k == LayerKind::Linear || k == LayerKind::Conv2d;
}

const LayerPlan& layer_at(const ModelView& model, std::int64_t i) {
  return model.layers.at(static_cast<std::size_t>(i));
}

bool pool_tiles(const LayerPlan& pool) {
  const LayerDesc& d = pool.options;
  return d.stride_h == d.kernel_h && d.stride_w == d.kernel_w && d.pad_h == 0 && d.pad_w == 0 &&
         pool.input_shape[2] == pool.output_shape[2] * d.kernel_h &&
         pool.input_shape[3] == pool.output_shape[3] * d.kernel_w;
}

// A fused group runs several steps of the schedule as one, so it may write a buffer earlier than
// the step the plan starts it at. That is allowed only if no other buffer placed in the same
// bytes is alive in between.
bool early_write_safe(const ModelView& model, int index, std::int64_t at_step) {
  if (index == no_buffer)
    return true;
  const Buffer& w = model.buffer(index);
  if (w.first_step <= at_step || w.region() != Region::activations)
    return true;
  for (std::size_t i = 0; i < model.buffers.size(); ++i) {
    const Buffer& b = model.buffers[i];
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
int readers_of(const ModelView& model, std::int64_t i) {
  int count = 0;
  for (const LayerPlan& l : model.layers)
    for (int k = 0; k < l.input_count(); ++k)
      count += l.inputs[k] == i;
  return count;
}

// Layer `next` reads layer `i`'s output, and nothing else reads it: it may join i's group.
bool only_reader(const ModelView& model, std::int64_t i, std::int64_t next) {
  const auto count = static_cast<std::int64_t>(model.layers.size());
  if (next >= count)
    return false;
  const LayerPlan& n = layer_at(model, next);
  return n.input_count() == 1 && n.inputs[0] == i && readers_of(model, i) == 1;
}

// An activation fuses after layer i when it is i's output's only reader and runs in place both
// ways: the fused forward writes the activation's output over i's, and the fused backward leaves
// d(i's output) in the activation's output gradient (always so for a chain; a residual block may
// give an activation's input gradient a buffer of its own when its output gradient is shared).
bool can_fuse_activation(const ModelView& model, std::int64_t i, std::int64_t next) {
  if (!only_reader(model, i, next) || !is_elementwise(layer_at(model, next).kind))
    return false;
  const LayerPlan& a = layer_at(model, next);
  return a.in_place && (!a.runs_backward || a.input_gradient_buffer == no_buffer ||
                        a.input_gradient_buffer == a.output_gradient_buffer);
}

// A pool after the product (and its activation) fuses when its windows tile its input and the
// writes the fused passes make early collide with nothing: the pooled values and window indices
// (written at the product's forward step, not the pool's) and the product's output gradient
// (written at the pool's backward step, not the activation's).
bool can_fuse_pool(const ModelView& model, std::int64_t product, std::int64_t before,
                   std::int64_t pool_layer) {
  if (!only_reader(model, before, pool_layer) || !is_pool(layer_at(model, pool_layer).kind))
    return false;
  const LayerPlan& pool = layer_at(model, pool_layer);
  if (!pool_tiles(pool))
    return false;
  const std::int64_t forward = model.forward_step(product);
  if (!early_write_safe(model, pool.output_buffer, forward) ||
      !early_write_safe(model, pool.window_index_buffer, forward))
    return false;
  if (!pool.runs_backward)
    return true;
  return early_write_safe(model, layer_at(model, product).output_gradient_buffer,
                          model.backward_step(pool_layer));
}

// A convolution computed directly (grouped_conv.hpp) rather than as a product: grouped and
// depthwise ones on both backends, and on CUDA a dense one that staticnet's cuDNN convolutions
// (kernels/src/cuda/convolution.cpp) do not take as the plan has it: padding uneven before and
// after (cuDNN's graphs have post-padding; whether its engines beat the direct kernel there is
// what bench/cuda_step/direct_conv_engines.cpp measures), or an input gradient added to another
// reader's part.
bool runs_direct(const LayerPlan& l, Target target) {
  if (l.kind == LayerKind::DepthwiseConv2d)
    return true;
  if (l.kind != LayerKind::Conv2d)
    return false;
  return l.options.groups != 1 || (target == Target::cuda && (!l.options.symmetric_padding() ||
                                                              l.accumulates_input_gradient));
}

}  // namespace

std::vector<FusedGroup> fuse(const ModelView& model, Target target) {
  std::vector<FusedGroup> groups;
  const auto count = static_cast<std::int64_t>(model.layers.size());
  for (std::int64_t i = 0; i < count;) {
    const LayerPlan& l = layer_at(model, i);
    const LayerKind kind = l.kind;
    FusedGroup g;
    g.first = g.last = i;
    auto fuse_activation = [&](std::int64_t after) {
      if (can_fuse_activation(model, after, after + 1))
        g.activation = g.last = after + 1;
    };
    // Under Inference the plan may have folded the BatchNorm after this layer into it.
    auto fuse_folded_norm = [&] {
      if (only_reader(model, i, i + 1) && layer_at(model, i + 1).folded) {
        g.folded = g.last = i + 1;
        fuse_activation(g.last);
      } else {
        fuse_activation(i);
      }
    };
    if (runs_direct(l, target)) {
      g.grouped = i;
      if (!model.training())
        fuse_folded_norm();
    } else if (is_product(kind)) {
      g.product = i;
      fuse_folded_norm();
      if (kind == LayerKind::Conv2d && can_fuse_pool(model, i, g.last, g.last + 1))
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
  return groups;
}

bool view_writes_gradient(const ModelView& model, const FusedGroup& g) {
  if (g.view < 0)
    return false;
  const LayerPlan& l = layer_at(model, g.view);
  return l.runs_backward && l.input_gradient_buffer != no_buffer &&
         l.input_gradient_buffer != l.output_gradient_buffer;
}

bool has_backward(const ModelView& model, const FusedGroup& g) {
  if (g.view >= 0)
    return view_writes_gradient(model, g);
  const LayerPlan& first = layer_at(model, g.first);
  if (!first.runs_backward)
    return false;
  if (first.parameters > 0)
    return true;
  if (g.sum >= 0) {
    const bool fused_derivative = g.activation >= 0 && layer_at(model, g.activation).runs_backward;
    const bool writes = (first.input_gradient_buffer != no_buffer &&
                         first.input_gradient_buffer != first.output_gradient_buffer) ||
                        (first.input2_gradient_buffer != no_buffer &&
                         first.input2_gradient_buffer != first.output_gradient_buffer);
    return fused_derivative || writes;
  }
  return first.input_gradient_buffer != no_buffer;
}

bool differs_in_evaluation(const FusedGroup& group) {
  return group.norm >= 0 || group.dropout >= 0;
}

std::string layer_span(const FusedGroup& group) {
  if (group.first == group.last)
    return "layer " + std::to_string(group.first);
  return "layers " + std::to_string(group.first) + "-" + std::to_string(group.last);
}

}  // namespace staticnet::codegen

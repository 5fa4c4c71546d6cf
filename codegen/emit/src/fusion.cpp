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

// An activation after a product fuses when it runs in place over the product's output (always
// the case today: a Linear or Conv2d saves its input, never its output).
bool can_fuse_activation(const ModelView& model, std::int64_t activation) {
  return layer_at(model, activation).in_place;
}

// A pool after the product (and its activation) fuses when its windows tile its input and the
// writes the fused passes make early collide with nothing: the pooled values and window indices
// (written at the product's forward step, not the pool's) and the product's output gradient
// (written at the pool's backward step, not the activation's).
bool can_fuse_pool(const ModelView& model, std::int64_t product, std::int64_t pool_layer) {
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

// What the kernel emitters cannot write yet, or "" when they can write every layer.
std::string not_emittable(const LayerPlan& l) {
  switch (l.kind) {
    case LayerKind::BatchNorm2d:
    case LayerKind::BatchNorm1d:
    case LayerKind::DepthwiseConv2d:
    case LayerKind::GlobalAvgPool2d:
    case LayerKind::Dropout:
    case LayerKind::Add:
      return "this layer kind";
    case LayerKind::Conv2d:
      if (l.options.groups != 1)
        return "a grouped convolution";
      break;
    default:
      break;
  }
  if (l.options.same_padding && (l.options.pad_h != 0 || l.options.pad_w != 0 ||
                                 l.options.pad_h_end != 0 || l.options.pad_w_end != 0)) {
    if (is_pool(l.kind))
      return "'same' padding on a pool (TensorFlow's: padding ignored, not counted)";
    if (!l.options.symmetric_padding())
      return "unequal padding before and after ('same' with an odd total)";
  }
  return "";
}

}  // namespace

void require_emittable(const ModelView& model) {
  for (std::size_t i = 0; i < model.layers.size(); ++i) {
    const std::string what = not_emittable(model.layers[i]);
    if (!what.empty())
      throw std::invalid_argument(
          "staticnet codegen: " + model.names.name + ": layer " + std::to_string(i) + " (" +
          name_of(model.layers[i].kind) + "): the kernel emitters do not write " + what +
          " yet. Its plan, budgets and analysis are exact; generated trainers for it are not "
          "built yet");
  }
}

std::vector<FusedGroup> fuse(const ModelView& model) {
  require_emittable(model);
  std::vector<FusedGroup> groups;
  const auto count = static_cast<std::int64_t>(model.layers.size());
  for (std::int64_t i = 0; i < count;) {
    const LayerKind kind = layer_at(model, i).kind;
    FusedGroup g;
    g.first = g.last = i;
    if (is_product(kind)) {
      g.product = i;
      std::int64_t next = i + 1;
      if (next < count && is_elementwise(layer_at(model, next).kind) &&
          can_fuse_activation(model, next))
        g.activation = next++;
      if (kind == LayerKind::Conv2d && next < count && is_pool(layer_at(model, next).kind) &&
          can_fuse_pool(model, i, next))
        g.pool = next++;
      g.last = next - 1;
    } else if (is_elementwise(kind)) {
      g.activation = i;
    } else if (is_pool(kind)) {
      g.pool = i;
    } else {
      g.view = i;  // Flatten
    }
    groups.push_back(g);
    i = g.last + 1;
  }
  return groups;
}

std::string layer_span(const FusedGroup& group) {
  if (group.first == group.last)
    return "layer " + std::to_string(group.first);
  return "layers " + std::to_string(group.first) + "-" + std::to_string(group.last);
}

}  // namespace staticnet::codegen

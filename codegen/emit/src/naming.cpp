#include "staticnet/codegen/naming.hpp"

#include <cstdio>
#include <stdexcept>

#include "staticnet/print.hpp"

namespace staticnet::codegen {

std::string buffer_name(const ModelView& model, int index) {
  // Checkpointing: a recompute step's buffer is named for the one whose values it holds again.
  if (static_cast<std::size_t>(index) < model.recomputes.size() &&
      model.recomputes[static_cast<std::size_t>(index)] != no_buffer)
    return buffer_name(model, model.recomputes[static_cast<std::size_t>(index)]) + "_recomputed";
  const Buffer& b = model.buffer(index);
  const std::string layer = std::to_string(b.layer);
  switch (b.role) {
    case BufferRole::parameters:
    case BufferRole::gradients:
    case BufferRole::optimizer_moment1:
    case BufferRole::optimizer_moment2:
    case BufferRole::input:
    case BufferRole::labels:
    case BufferRole::targets:
    case BufferRole::next_batch:
    case BufferRole::workspace:
    case BufferRole::parameter_copy:
    case BufferRole::loss_scale:
    case BufferRole::quantization:
    case BufferRole::loss:
    case BufferRole::predictions:
    case BufferRole::non_trainable:
      return name_of(b.role);
    case BufferRole::activation:
      return "activation_" + layer;
    case BufferRole::window_index:
      return "window_index_" + layer;
    case BufferRole::batch_statistics:
      return "batch_statistics_" + layer;
    case BufferRole::dropout_mask:
      return "dropout_mask_" + layer;
    case BufferRole::arena_input:
      return "input";
    case BufferRole::activation_gradient: {
      if (b.first_step == model.loss_step)
        return "loss_gradient";
      // An Add may write the gradients of both its inputs.
      const bool second =
          model.layers.at(static_cast<std::size_t>(b.layer)).input2_gradient_buffer == index;
      return (second ? "input2_gradient_" : "input_gradient_") + layer;
    }
  }
  throw std::logic_error("buffer_name: unknown role");
}

namespace {
std::string pair_text(std::int64_t h, std::int64_t w, const char* joiner) {
  return h == w ? std::to_string(h) : std::to_string(h) + joiner + std::to_string(w);
}
std::string window_text(const LayerDesc& d) {
  return std::to_string(d.kernel_h) + "×" + std::to_string(d.kernel_w);
}
// ", pad 1", ", pad 1×2", or, for unequal sides (PaddingSame), ", pad 0/1×0/1" (before/after).
std::string padding_text(const LayerDesc& d) {
  if (d.pad_h == 0 && d.pad_w == 0 && d.pad_h_end == 0 && d.pad_w_end == 0)
    return "";
  if (d.symmetric_padding())
    return ", pad " + pair_text(d.pad_h, d.pad_w, "×");
  auto side = [](std::int64_t before, std::int64_t after) {
    return std::to_string(before) + "/" + std::to_string(after);
  };
  return ", pad " + side(d.pad_h, d.pad_h_end) + "×" + side(d.pad_w, d.pad_w_end);
}
// A ratio N/D as the decimal it stands for: "0.2", "1e-05".
std::string ratio_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}
}  // namespace

std::string describe_layer(const LayerPlan& layer) {
  const LayerDesc& d = layer.options;
  std::string text = name_of(layer.kind);
  switch (layer.kind) {
    case LayerKind::Linear:
      text += "(" + std::to_string(layer.input_shape[1]) + " → " + std::to_string(d.out);
      if (!d.bias)
        text += ", no bias";
      return text + ")";
    case LayerKind::Conv2d:
      text += "(" + std::to_string(layer.input_shape[1]) + " → " + std::to_string(d.out) + ", " +
              window_text(d);
      if (d.stride_h != 1 || d.stride_w != 1)
        text += ", stride " + pair_text(d.stride_h, d.stride_w, "×");
      text += padding_text(d);
      if (d.groups != 1)
        text += ", " + std::to_string(d.groups) + " groups";
      if (!d.bias)
        text += ", no bias";
      return text + ")";
    case LayerKind::DepthwiseConv2d:
      text += "(" + std::to_string(layer.input_shape[1]) + ", " + window_text(d);
      if (d.stride_h != 1 || d.stride_w != 1)
        text += ", stride " + pair_text(d.stride_h, d.stride_w, "×");
      text += padding_text(d);
      if (!d.bias)
        text += ", no bias";
      return text + ")";
    case LayerKind::MaxPool2d:
    case LayerKind::AvgPool2d:
      text += "(" + window_text(d);
      if (d.stride_h != d.kernel_h || d.stride_w != d.kernel_w)
        text += ", stride " + pair_text(d.stride_h, d.stride_w, "×");
      return text + padding_text(d) + ")";
    case LayerKind::BatchNorm2d:
    case LayerKind::BatchNorm1d:
      return text + "(" + std::to_string(layer.input_shape[1]) + ", eps " +
             ratio_text(d.epsilon()) + ", momentum " + ratio_text(d.momentum()) + ")";
    case LayerKind::Dropout:
      return text + "(" + ratio_text(d.drop_probability()) + ")";
    case LayerKind::Add:
      return text + "(layers " + std::to_string(layer.inputs[0]) + " + " +
             (layer.inputs[1] == model_input ? std::string("input")
                                             : std::to_string(layer.inputs[1])) +
             ")";
    case LayerKind::ReLU:
    case LayerKind::LeakyReLU:
    case LayerKind::Sigmoid:
    case LayerKind::Tanh:
    case LayerKind::Flatten:
    case LayerKind::GlobalAvgPool2d:
      return text;
  }
  return text;
}

std::string shape_text(const Shape& shape) {
  return to_string(shape);
}

std::string element_type(const ModelView& model, int index) {
  const Buffer& b = model.buffer(index);
  // A Dropout's mask is bits packed into bytes: its kernels read it as a mask, not as numbers.
  return b.role == BufferRole::dropout_mask ? "mask" : name_of(b.dtype);
}

std::string weight_name(std::int64_t layer) {
  return std::to_string(layer) + ".weight";
}
std::string bias_name(std::int64_t layer) {
  return std::to_string(layer) + ".bias";
}

Shape weight_shape(const LayerPlan& l) {
  const std::int64_t out = l.output_shape[1], in = l.input_shape[1];
  switch (l.kind) {
    case LayerKind::Linear:
      return Shape{out, in};
    case LayerKind::Conv2d:
      return Shape{out, in / l.options.groups, l.options.kernel_h, l.options.kernel_w};
    case LayerKind::DepthwiseConv2d:
      return Shape{out, 1, l.options.kernel_h, l.options.kernel_w};
    case LayerKind::BatchNorm2d:
    case LayerKind::BatchNorm1d:
      return Shape{in};
    default:
      throw std::logic_error(std::string(name_of(l.kind)) + " has no weights");
  }
}

bool has_bias(const LayerPlan& l) {
  return is_batch_norm(l.kind) || l.options.bias;
}

std::int64_t fan_in(const LayerPlan& l) {
  const Shape w = weight_shape(l);
  std::int64_t n = 1;
  for (int i = 1; i < w.rank; ++i)
    n *= w[i];
  return n;
}

}  // namespace staticnet::codegen

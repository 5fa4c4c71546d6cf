#include "staticnet/codegen/naming.hpp"

#include <stdexcept>

#include "staticnet/print.hpp"

namespace staticnet::codegen {

std::string buffer_name(const ModelView& model, int index) {
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
    case BufferRole::workspace:
    case BufferRole::loss:
    case BufferRole::predictions:
      return name_of(b.role);
    case BufferRole::activation:
      return "activation_" + layer;
    case BufferRole::window_index:
      return "window_index_" + layer;
    case BufferRole::activation_gradient: {
      const auto loss_step = static_cast<std::int64_t>(model.layers.size());
      return b.first_step == loss_step ? std::string("loss_gradient") : "input_gradient_" + layer;
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
      if (d.pad_h != 0 || d.pad_w != 0)
        text += ", pad " + pair_text(d.pad_h, d.pad_w, "×");
      if (!d.bias)
        text += ", no bias";
      return text + ")";
    case LayerKind::MaxPool2d:
    case LayerKind::AvgPool2d:
      text += "(" + window_text(d);
      if (d.stride_h != d.kernel_h || d.stride_w != d.kernel_w)
        text += ", stride " + pair_text(d.stride_h, d.stride_w, "×");
      if (d.pad_h != 0 || d.pad_w != 0)
        text += ", pad " + pair_text(d.pad_h, d.pad_w, "×");
      return text + ")";
    case LayerKind::ReLU:
    case LayerKind::LeakyReLU:
    case LayerKind::Sigmoid:
    case LayerKind::Tanh:
    case LayerKind::Flatten:
      return text;
  }
  return text;
}

std::string shape_text(const Shape& shape) {
  return to_string(shape);
}

std::string element_type(const ModelView& model, int index) {
  const Buffer& b = model.buffer(index);
  switch (b.role) {
    case BufferRole::labels:
    case BufferRole::predictions:
      return "i32";
    case BufferRole::input:
      return name_of(model.setup.input_dtype);
    case BufferRole::window_index: {
      const std::int64_t elements =
          model.layers.at(static_cast<std::size_t>(b.layer)).output_shape.elements();
      const std::int64_t width = b.size / elements;
      return width == 1 ? "u8" : width == 2 ? "u16" : "u32";
    }
    default:
      return "f32";
  }
}

std::string weight_name(std::int64_t layer) {
  return std::to_string(layer) + ".weight";
}
std::string bias_name(std::int64_t layer) {
  return std::to_string(layer) + ".bias";
}

}  // namespace staticnet::codegen

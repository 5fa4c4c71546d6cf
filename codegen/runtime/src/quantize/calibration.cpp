#include "staticnet/runtime/quantize/calibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace staticnet::runtime::quantize {

void Range::add(std::span<const float> values) {
  for (const float v : values) {
    min = std::min(min, v);
    max = std::max(max, v);
  }
}

TensorScale activation_scale(const Range& range) {
  constexpr double qmin = -128, qmax = 127;
  // The range widened to hold 0, its width and the scale in float32, as the converter's are.
  const float low = std::min(range.min, 0.0f), high = std::max(range.max, 0.0f);
  const float width = high - low;
  if (!std::isfinite(width))
    throw QuantizationError(
        fmt::format("the range [{}, {}] is wider than float32 holds", range.min, range.max));
  if (!(width > 0.0f))
    return {1.0, static_cast<std::int32_t>(qmin)};
  const float scale = width / 255.0f;
  const double zero = std::round(qmin - static_cast<double>(low) / static_cast<double>(scale));
  return {scale, static_cast<std::int32_t>(std::clamp(zero, qmin, qmax))};
}

QuantizedWeights quantize_weights(std::span<const float> weights, std::int64_t channels) {
  QuantizedWeights q;
  const auto per_channel = static_cast<std::int64_t>(weights.size()) / channels;
  q.scales.resize(static_cast<std::size_t>(channels));
  q.values.resize(weights.size());
  for (std::int64_t c = 0; c < channels; ++c) {
    const auto channel = weights.subspan(static_cast<std::size_t>(c * per_channel),
                                         static_cast<std::size_t>(per_channel));
    double largest = 0;
    for (const float w : channel)
      largest = std::max(largest, std::fabs(static_cast<double>(w)));
    // A channel of zeros: any scale quantizes it to zeros; 1, as the converter's zero range.
    const double scale = largest > 0 ? largest / 127.0 : 1.0;
    q.scales[static_cast<std::size_t>(c)] = scale;
    for (std::int64_t e = 0; e < per_channel; ++e) {
      const double v =
          std::round(static_cast<double>(channel[static_cast<std::size_t>(e)]) / scale);
      q.values[static_cast<std::size_t>(c * per_channel + e)] =
          static_cast<std::int8_t>(std::clamp(v, -127.0, 127.0));
    }
  }
  return q;
}

std::int32_t quantize_bias(float bias, double input_scale, double weight_scale) {
  const double v = std::round(static_cast<double>(bias) / (input_scale * weight_scale));
  if (!std::isfinite(v) || v < std::numeric_limits<std::int32_t>::min() ||
      v > std::numeric_limits<std::int32_t>::max())
    throw QuantizationError(fmt::format(
        "a bias of {} on an input scale of {:g} and a weight scale of {:g} is {:g} in int32 "
        "units, beyond int32",
        bias, input_scale, weight_scale, v));
  return static_cast<std::int32_t>(v);
}

Source::Source(const QuantizerModel& model, std::vector<TensorScale> tensors)
    : model_(model), tensors_(std::move(tensors)) {}

const TensorScale& Source::tensor(int index) const {
  return tensors_.at(static_cast<std::size_t>(index));
}

const QuantizedOp& Source::op(std::int64_t layer, OpKind kind) const {
  for (const QuantizedOp& o : model_.ops)
    if (o.layer == layer && o.kind == kind)
      return o;
  throw std::logic_error(
      fmt::format("{}: no int8 op of that kind at layer {}", model_.name, layer));
}

q8::TensorQuantization Source::input() const {
  return tensor(model_.input).stored();
}

q8::TensorQuantization Source::output() const {
  return tensor(model_.output).stored();
}

q8::ProductQuantization Source::product(std::int64_t layer) const {
  const QuantizedOp& o = op(layer, OpKind::product);
  const q8::TensorQuantization out = tensor(o.output).stored();
  const q8::ActivationRange r = q8::activation_range(o.activation, out.scale, out.zero_point);
  return {tensor(o.input).zero_point, out.zero_point, r.lowest, r.highest};
}

q8::AddQuantization Source::sum(std::int64_t layer) const {
  const QuantizedOp& o = op(layer, OpKind::sum);
  const q8::TensorQuantization a = tensor(o.input).stored(), b = tensor(o.input2).stored(),
                               y = tensor(o.output).stored();
  return q8::add_quantization(a.scale, a.zero_point, b.scale, b.zero_point, y.scale, y.zero_point,
                              o.activation);
}

q8::MeanQuantization Source::mean(std::int64_t layer, int plane) const {
  const QuantizedOp& o = op(layer, OpKind::mean);
  const q8::TensorQuantization x = tensor(o.input).stored(), y = tensor(o.output).stored();
  return q8::mean_quantization(x.scale, x.zero_point, y.scale, y.zero_point, plane);
}

q8::Requantization Source::activation(std::int64_t layer) const {
  const QuantizedOp& o = op(layer, OpKind::activation);
  const q8::TensorQuantization x = tensor(o.input).stored(), y = tensor(o.output).stored();
  return q8::activation_requantization(x.scale, x.zero_point, y.scale, y.zero_point, o.activation);
}

}  // namespace staticnet::runtime::quantize

#pragma once
// TensorFlow Lite's whole-model fixtures (tests/reference/int8_models/, int8_mlperf/) as the mcu
// backend's Model: each convolution's and Linear's int8 weights and channel numbers laid out where
// the plan puts them in flash (its weight_offset and bias_offset), and the generated Quantization
// filled from the operators' quantization through its quantization_from(), as the quantizer will
// fill it. test_mcu_models.cpp runs them on this machine; firmware_source.cpp writes them as a C++
// source for a Cortex-M.
#include <cstdint>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "staticnet/kernels/int8/quantize.hpp"
#include "staticnet/staticnet.hpp"

namespace fixture_models {

namespace sn = staticnet;
namespace q8 = staticnet::kernels::int8;
using nlohmann::json;

inline json load(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("no fixture " + path);
  return json::parse(in);
}

inline float scale(const json& j, const char* key) {
  return static_cast<float>(j.at(key).get<double>());
}

// The int8 values of a list, or of a base64 string (the larger fixtures' weights).
inline std::vector<std::int8_t> int8_values(const json& op, const std::string& key) {
  std::vector<std::int8_t> out;
  if (op.contains(key)) {
    for (const json& v : op.at(key))
      out.push_back(static_cast<std::int8_t>(v.get<int>()));
    return out;
  }
  const std::string text = op.at(key + "_b64").get<std::string>();
  static const std::string alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    if (c == '=')
      break;
    const std::size_t v = alphabet.find(c);
    if (v == std::string::npos)
      throw std::runtime_error("not base64: " + key);
    bits = bits << 6 | static_cast<std::uint32_t>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push_back(static_cast<std::int8_t>(static_cast<std::uint8_t>(bits >> count)));
    }
  }
  return out;
}

// The TensorFlow Lite operator kind that serves a staticnet layer kind ("" for none: a folded
// BatchNorm, a fused activation, a view).
inline std::string operator_of(sn::LayerKind k) {
  switch (k) {
    case sn::LayerKind::Conv2d:
      return "conv2d";
    case sn::LayerKind::DepthwiseConv2d:
      return "depthwise_conv2d";
    case sn::LayerKind::Linear:
      return "fully_connected";
    case sn::LayerKind::Add:
      return "add";
    case sn::LayerKind::GlobalAvgPool2d:
      return "mean";
    case sn::LayerKind::MaxPool2d:
      return "max_pool";
    case sn::LayerKind::AvgPool2d:
      return "avg_pool";
    default:
      return "";
  }
}

// Each layer's operator: by the operator's "layer" tag where the fixture has them, else the n-th
// operator of a kind serves the n-th layer of that kind (the small fixtures, whose order is ours).
template <std::size_t L>
std::map<std::int64_t, json> operators_by_layer(const json& fx, const sn::Plan<L>& plan) {
  std::map<std::int64_t, json> found;
  std::vector<json> untagged;
  for (const json& op : fx.at("ops")) {
    if (op.at("op") == "reshape")
      continue;
    if (op.contains("layer"))
      found[op.at("layer").get<std::int64_t>()] = op;
    else
      untagged.push_back(op);
  }
  std::size_t next = 0;
  for (std::size_t i = 0; i < L && !untagged.empty(); ++i) {
    const std::string kind = operator_of(plan.layers[i].kind);
    if (kind.empty())
      continue;
    while (next < untagged.size() && untagged[next].at("op") != kind)
      ++next;
    if (next == untagged.size())
      throw std::runtime_error("the fixture has no " + kind + " for layer " + std::to_string(i));
    found[static_cast<std::int64_t>(i)] = untagged[next++];
  }
  for (std::size_t i = 0; i < L; ++i)
    if (!operator_of(plan.layers[i].kind).empty() && !found.contains(static_cast<std::int64_t>(i)))
      throw std::runtime_error("the fixture has no operator for layer " + std::to_string(i));
  return found;
}

// The flash the quantizer writes: each product's int8 weights and its three runs of channel
// numbers, where the plan put them.
struct Flash {
  std::vector<std::int8_t> weights;
  std::vector<std::int32_t> numbers;
};

template <std::size_t L>
Flash flash(const sn::Plan<L>& plan, const std::map<std::int64_t, json>& ops,
            std::size_t weight_count, std::size_t number_count) {
  Flash f{std::vector<std::int8_t>(weight_count, 0), std::vector<std::int32_t>(number_count, 0)};
  for (std::size_t i = 0; i < L; ++i) {
    const sn::LayerPlan& l = plan.layers[i];
    if (!sn::detail::is_quantized_product(l.kind))
      continue;
    const json& op = ops.at(static_cast<std::int64_t>(i));
    const std::vector<std::int8_t> w = int8_values(op, "weights");
    const auto at = static_cast<std::size_t>(l.weight_offset);
    if (at + w.size() > weight_count)
      throw std::runtime_error("layer " + std::to_string(i) + "'s weights do not fit the plan's");
    std::copy(w.begin(), w.end(), f.weights.begin() + static_cast<std::ptrdiff_t>(at));
    const auto channels = static_cast<std::size_t>(l.output_shape[1]);
    if (op.at("bias").size() != channels)
      throw std::runtime_error("layer " + std::to_string(i) + "'s channels differ from the plan's");
    for (std::size_t c = 0; c < channels; ++c) {
      const q8::QuantizedMultiplier m = q8::channel_multiplier(
          scale(op, "input_scale"), static_cast<float>(op.at("weight_scales")[c].get<double>()),
          scale(op, "output_scale"));
      const auto n = static_cast<std::size_t>(l.bias_offset) + c;
      f.numbers[n] = op.at("bias")[c].get<std::int32_t>();
      f.numbers[n + channels] = m.multiplier;
      f.numbers[n + 2 * channels] = m.shift;
    }
  }
  return f;
}

inline q8::FusedActivation activation_of(const json& op) {
  const std::string a = op.value("fused_activation", "NONE");
  return a == "RELU"    ? q8::FusedActivation::relu
         : a == "RELU6" ? q8::FusedActivation::relu6
                        : q8::FusedActivation::none;
}

// What a generated quantization_from() asks, answered from the fixture.
struct Source {
  const json& fx;
  const std::map<std::int64_t, json>& ops;

  q8::TensorQuantization input() const {
    return {scale(fx, "input_scale"), fx.at("input_zero_point").get<std::int32_t>()};
  }
  q8::TensorQuantization output() const {
    return {scale(fx, "output_scale"), fx.at("output_zero_point").get<std::int32_t>()};
  }
  q8::ProductQuantization product(std::int64_t layer) const {
    const json& op = ops.at(layer);
    return {op.at("input_zero_point").get<std::int32_t>(),
            op.at("output_zero_point").get<std::int32_t>(),
            op.at("activation_min").get<std::int32_t>(),
            op.at("activation_max").get<std::int32_t>()};
  }
  q8::AddQuantization sum(std::int64_t layer) const {
    const json& op = ops.at(layer);
    return q8::add_quantization(scale(op, "input_scale"), op.at("input_zero_point"),
                                scale(op, "input2_scale"), op.at("input2_zero_point"),
                                scale(op, "output_scale"), op.at("output_zero_point"),
                                activation_of(op));
  }
  q8::MeanQuantization mean(std::int64_t layer, int plane) const {
    const json& op = ops.at(layer);
    return q8::mean_quantization(scale(op, "input_scale"), op.at("input_zero_point"),
                                 scale(op, "output_scale"), op.at("output_zero_point"), plane);
  }
  q8::Requantization activation(std::int64_t layer) const {
    throw std::runtime_error("no fixture has an activation of its own (layer " +
                             std::to_string(layer) + ")");
  }
};

}  // namespace fixture_models

// The int8 kernels against TensorFlow Lite's reference kernels, bit for bit. Each fixture in
// tests/reference/int8/ is one operator of a model TensorFlow Lite's converter quantized, run by
// its interpreter with the reference kernels (make_int8_fixtures.py says how): the int8 input,
// the model's quantization parameters, its int8 weights and int32 biases, and the int8 output
// TensorFlow Lite produced. Here the parameters go through quantize.hpp, as our quantizer will
// take them, the input through our kernel, and every output byte must equal TensorFlow Lite's.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixture_models.hpp"
#include "staticnet/kernels/int8/products.hpp"
#include "staticnet/kernels/int8/quantize.hpp"

namespace fs = std::filesystem;
namespace q8 = staticnet::kernels::int8;
using nlohmann::json;

namespace {

// The fixtures' lists, scales and activations are read as the whole-model fixtures' are.
using fixture_models::activation_of;
using fixture_models::int8_values;
using fixture_models::scale;

// The clamp TensorFlow Lite applied, as quantize.hpp computes it; the fixture records the one
// TensorFlow Lite's converter computed, and the two must agree.
q8::ActivationRange checked_range(const json& fx, q8::FusedActivation a) {
  const q8::ActivationRange r =
      q8::activation_range(a, scale(fx, "output_scale"), fx.at("output_zero_point").get<int>());
  CHECK(r.lowest == fx.at("activation_min").get<int>());
  CHECK(r.highest == fx.at("activation_max").get<int>());
  return r;
}

// A product's three runs of channel numbers, as the quantizer writes them to flash.
struct ChannelNumbers {
  std::vector<std::int32_t> bias, multiplier, shift;

  q8::ChannelRequantization requantization(const json& fx, q8::ActivationRange r) const {
    return {bias.data(), multiplier.data(), shift.data(), fx.at("output_zero_point").get<int>(),
            r.lowest,    r.highest};
  }
};
ChannelNumbers channel_numbers(const json& fx) {
  ChannelNumbers c;
  const json& scales = fx.at("weight_scales");
  for (std::size_t o = 0; o < scales.size(); ++o) {
    const q8::QuantizedMultiplier m = q8::channel_multiplier(
        scale(fx, "input_scale"), static_cast<float>(scales[o].get<double>()),
        scale(fx, "output_scale"));
    c.bias.push_back(fx.at("bias")[o].get<std::int32_t>());
    c.multiplier.push_back(m.multiplier);
    c.shift.push_back(m.shift);
  }
  return c;
}

int at(const json& fx, const char* key, std::size_t i) {
  return fx.at(key)[i].get<int>();
}

std::vector<std::int8_t> run(const json& fx) {
  const std::string op = fx.at("op");
  const std::vector<std::int8_t> input = int8_values(fx, "input");
  const json& out_shape = fx.at("output_shape");
  std::size_t out_elements = 1;
  for (const json& d : out_shape)
    out_elements *= d.get<std::size_t>();
  std::vector<std::int8_t> out(out_elements);
  const int input_zero_point = fx.at("input_zero_point").get<int>();

  if (op == "conv2d" || op == "depthwise_conv2d") {
    const json& in_shape = fx.at("input_shape");
    q8::ConvShape s;
    s.in_channels = in_shape[0], s.in_height = in_shape[1], s.in_width = in_shape[2];
    s.out_channels = out_shape[0], s.out_height = out_shape[1], s.out_width = out_shape[2];
    s.kernel_h = at(fx, "kernel", 0), s.kernel_w = at(fx, "kernel", 1);
    s.stride_h = at(fx, "stride", 0), s.stride_w = at(fx, "stride", 1);
    s.pad_top = at(fx, "padding", 0), s.pad_left = at(fx, "padding", 1);
    s.groups = op == "depthwise_conv2d" ? s.in_channels : 1;
    const ChannelNumbers c = channel_numbers(fx);
    const std::vector<std::int8_t> weights = int8_values(fx, "weights");
    q8::conv2d(s, input.data(), input_zero_point, weights.data(),
               c.requantization(fx, checked_range(fx, activation_of(fx))), out.data());
  } else if (op == "fully_connected") {
    const ChannelNumbers c = channel_numbers(fx);
    const std::vector<std::int8_t> weights = int8_values(fx, "weights");
    q8::fully_connected(fx.at("input_shape")[0].get<int>(), out_shape[0].get<int>(), input.data(),
                        input_zero_point, weights.data(),
                        c.requantization(fx, checked_range(fx, activation_of(fx))), out.data());
  } else if (op == "max_pool" || op == "avg_pool") {
    const json& in_shape = fx.at("input_shape");
    // A pool keeps its input's quantization: nothing to requantize.
    CHECK(fx.at("output_zero_point") == fx.at("input_zero_point"));
    CHECK(fx.at("output_scale") == fx.at("input_scale"));
    q8::PoolShape s;
    s.channels = in_shape[0], s.in_height = in_shape[1], s.in_width = in_shape[2];
    s.out_height = out_shape[1], s.out_width = out_shape[2];
    s.kernel_h = at(fx, "kernel", 0), s.kernel_w = at(fx, "kernel", 1);
    s.stride_h = at(fx, "stride", 0), s.stride_w = at(fx, "stride", 1);
    s.pad_top = at(fx, "padding", 0), s.pad_left = at(fx, "padding", 1);
    if (op == "max_pool")
      q8::pool2d<q8::PoolKind::max>(s, input.data(), out.data());
    else
      q8::pool2d<q8::PoolKind::average>(s, input.data(), out.data());
  } else if (op == "mean") {
    const json& in_shape = fx.at("input_shape");
    const int plane = in_shape[1].get<int>() * in_shape[2].get<int>();
    q8::mean(in_shape[0], plane, input.data(),
             q8::mean_quantization(scale(fx, "input_scale"), input_zero_point,
                                   scale(fx, "output_scale"), fx.at("output_zero_point"), plane),
             out.data());
  } else if (op == "add") {
    const std::vector<std::int8_t> input2 = int8_values(fx, "input2");
    const q8::AddQuantization q =
        q8::add_quantization(scale(fx, "input_scale"), input_zero_point, scale(fx, "input2_scale"),
                             fx.at("input2_zero_point"), scale(fx, "output_scale"),
                             fx.at("output_zero_point"), activation_of(fx));
    checked_range(fx, activation_of(fx));
    q8::add(static_cast<int>(out.size()), input.data(), input2.data(), q, out.data());
  } else if (op == "relu" || op == "relu6") {
    const q8::FusedActivation a =
        op == "relu" ? q8::FusedActivation::relu : q8::FusedActivation::relu6;
    const q8::Requantization q =
        q8::activation_requantization(scale(fx, "input_scale"), input_zero_point,
                                      scale(fx, "output_scale"), fx.at("output_zero_point"), a);
    checked_range(fx, a);
    q8::requantize(static_cast<int>(out.size()), input.data(), q, out.data());
  } else {
    FAIL("a fixture of an operator the test does not know: " << op);
  }
  return out;
}

std::vector<fs::path> fixtures() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(STATICNET_INT8_FIXTURE_DIR))
    if (entry.path().extension() == ".json")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("int8 kernels give TensorFlow Lite's reference outputs, bit for bit") {
  const std::vector<fs::path> files = fixtures();
  // 23 cases and 7 with a clamp that cuts, each from two seeds (make_int8_fixtures.py).
  REQUIRE(files.size() == 60);
  int ops_seen = 0;
  std::vector<std::string> ops;
  for (const fs::path& file : files) {
    CAPTURE(file.filename().string());
    std::ifstream in(file);
    const json fx = json::parse(in);
    const std::vector<std::int8_t> want = int8_values(fx, "output");
    const std::vector<std::int8_t> got = run(fx);
    REQUIRE(got.size() == want.size());
    std::size_t differing = 0, first = want.size();
    for (std::size_t i = 0; i < want.size(); ++i)
      if (got[i] != want[i] && differing++ == 0)
        first = i;
    CHECK_MESSAGE(differing == 0, differing << " of " << want.size() << " bytes differ; the first, "
                                            << first << ", is "
                                            << (first < got.size() ? int{got[first]} : 0)
                                            << " where TensorFlow Lite gives "
                                            << (first < want.size() ? int{want[first]} : 0));
    const std::string op = fx.at("op");
    if (std::find(ops.begin(), ops.end(), op) == ops.end()) {
      ops.push_back(op);
      ++ops_seen;
    }
  }
  // conv2d, depthwise_conv2d, fully_connected, max_pool, avg_pool, mean, add, relu, relu6.
  CHECK(ops_seen == 9);
}

// The quantizer's arithmetic (runtime/quantize/calibration.hpp, model_source.hpp) on numbers
// worked by hand. The whole-model checks against TensorFlow Lite's converter are
// quantizer_check.cpp's.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "staticnet/runtime/quantize/calibration.hpp"
#include "staticnet/runtime/quantize/model_source.hpp"

namespace rq = staticnet::runtime::quantize;

TEST_CASE("an activation's scale and zero point from its range") {
  // [0, 5.1]: scale 5.1 / 255 = 0.02, zero point −128 − 0 / 0.02 = −128.
  const rq::TensorScale relu = rq::activation_scale({0.0f, 5.1f});
  CHECK(relu.stored().scale == 5.1f / 255.0f);
  CHECK(relu.zero_point == -128);
  // [−1, 3]: scale 4 / 255; zero point −128 + 1 / (4 / 255) = −128 + 63.75 → −64.
  const rq::TensorScale mixed = rq::activation_scale({-1.0f, 3.0f});
  CHECK(mixed.stored().scale == 4.0f / 255.0f);
  CHECK(mixed.zero_point == -64);
  // [2, 3] widens to [0, 3]; [−3, −2] to [−3, 0]: zero point −128 + 3 / (3 / 255) = 127.
  CHECK(rq::activation_scale({2.0f, 3.0f}).zero_point == -128);
  CHECK(rq::activation_scale({-3.0f, -2.0f}).zero_point == 127);
  // All zeros: scale 1, zero point −128; a width beyond float32 is refused.
  CHECK(rq::activation_scale({0.0f, 0.0f}).scale == 1.0);
  CHECK(rq::activation_scale({0.0f, 0.0f}).zero_point == -128);
  CHECK_THROWS_AS(rq::activation_scale({-3e38f, 3e38f}), rq::QuantizationError);
}

TEST_CASE("weights per output channel, symmetric in [-127, 127]") {
  // Channel 0: max |w| = 254, scale 2 (exact): 254 → 127, −127 → −63.5 → −64 and 1 → 0.5 → 1
  // (ties away from zero), 4.8 → 2.4 → 2. Channel 1: zeros, scale 1.
  const std::vector<float> w{254.0f, -127.0f, 1.0f, 4.8f, 0.0f, 0.0f, 0.0f, 0.0f};
  const rq::QuantizedWeights q = rq::quantize_weights(w, 2);
  CHECK(q.scales == std::vector<double>{2.0, 1.0});
  CHECK(q.values == std::vector<std::int8_t>{127, -64, 1, 2, 0, 0, 0, 0});
}

TEST_CASE("an int32 bias at input scale times weight scale") {
  CHECK(rq::quantize_bias(0.5f, 0.25, 0.01) == 200);
  CHECK(rq::quantize_bias(-0.5f, 0.25, 0.01) == -200);
  CHECK_THROWS_AS(rq::quantize_bias(1e6f, 1e-3, 1e-3), rq::QuantizationError);  // 1e12
  CHECK_THROWS_AS(rq::quantize_bias(1.0f, 0.0, 0.5), rq::QuantizationError);    // infinite
}

TEST_CASE("a Quantization member as the firmware's source writes it") {
  // A scale of exactly 1 keeps its point: "1f" would not compile.
  CHECK(rq::member_text(staticnet::kernels::int8::TensorQuantization{1.0f, -128}) ==
        "{1.00000000f, -128}");
  CHECK(rq::member_text(staticnet::kernels::int8::TensorQuantization{0.00392156886f, 5}) ==
        "{0.00392156886f, 5}");
}

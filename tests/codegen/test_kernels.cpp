// The shared kernel bodies (staticnet/kernels/) and the CPU launchers' partitioning, on cases
// small enough to work out by hand. Each expected value is derived in the comment beside it.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <staticnet/cpu/launch.hpp>
#include <staticnet/kernels/activations.hpp>
#include <staticnet/kernels/bias_activation.hpp>
#include <staticnet/kernels/dropout.hpp>
#include <staticnet/kernels/losses.hpp>
#include <staticnet/kernels/optimizers.hpp>
#include <staticnet/kernels/pooling.hpp>

namespace k = staticnet::kernels;
namespace c = staticnet::cpu;

namespace {

// Distance in units in the last place of `exact` rounded to float.
double ulps(float got, double exact) {
  const float e = static_cast<float>(exact);
  const double ulp =
      std::nextafter(std::fabs(e), std::numeric_limits<float>::infinity()) - std::fabs(e);
  return std::fabs(got - exact) / ulp;
}

}  // namespace

TEST_CASE("kernels: exp_f within 1 ulp and tanh_f within 1.3 ulp of the exact values") {
  double worst_exp = 0, worst_tanh = 0;
  for (double x = -87.0; x <= 87.0; x += 1.7e-3)
    worst_exp = std::max(worst_exp, ulps(k::exp_f(static_cast<float>(x)),
                                         std::exp(static_cast<double>(static_cast<float>(x)))));
  for (double x = -12.0; x <= 12.0; x += 3.1e-4) {
    const float f = static_cast<float>(x);
    if (f != 0.0f)
      worst_tanh = std::max(worst_tanh, ulps(k::tanh_f(f), std::tanh(static_cast<double>(f))));
  }
  CHECK(worst_exp <= 1.0);
  CHECK(worst_tanh <= 1.3);
  CHECK(k::tanh_f(0.0f) == 0.0f);
  CHECK(k::tanh_f(30.0f) == 1.0f);
  CHECK(k::tanh_f(-30.0f) == -1.0f);
  CHECK(k::exp_f(0.0f) == 1.0f);
  CHECK(std::isfinite(k::exp_f(1000.0f)));  // saturates instead of overflowing
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(std::isnan(k::exp_f(nan)));  // a diverging loss must stay visible
  CHECK(std::isnan(k::tanh_f(nan)));
  CHECK(std::isnan(k::Sigmoid::forward(nan)));
}

TEST_CASE("kernels: Dropout's mask is SplitMix64, keeps 1 − p, and is a function of its key") {
  // SplitMix64's first output from state 0 (Vigna's reference implementation).
  CHECK(k::splitmix64(0) == 0xE220A8397B1DCDAFull);
  using D = k::DropoutGeometry<20, 100, 80'000>;
  CHECK(D::threshold == (20u << 24) / 100u);
  CHECK(D::scale == 1.25f);
  std::vector<float> x(D::count, 2.0f), y(D::count);
  std::vector<k::MaskByte> mask(D::mask_bytes);
  const std::uint64_t key = k::dropout_key(7, 1, 3);
  for (k::index_t b = 0; b < D::mask_bytes; ++b)
    k::dropout_forward<D>(b, key, x.data(), y.data(), mask.data());
  k::index_t kept = 0;
  for (k::index_t i = 0; i < D::count; ++i) {
    const bool bit = (static_cast<unsigned>(mask[static_cast<std::size_t>(i / 8)]) >> (i % 8)) & 1u;
    CHECK(y[static_cast<std::size_t>(i)] == (bit ? 2.5f : 0.0f));
    kept += bit;
  }
  // 80,000 draws of p = 0.8: the standard deviation of the fraction is 0.0014.
  CHECK(std::abs(static_cast<double>(kept) / D::count - 0.8) < 0.007);
  // Backward routes dy through the same bits, scaled.
  std::vector<float> dx(D::count);
  for (k::index_t i = 0; i < D::count; ++i)
    k::dropout_backward<D, false>(i, mask.data(), x.data(), dx.data());
  CHECK(dx == y);
  // The CPU's byte-wise backward gives the same values, written or added.
  std::vector<float> dx_bytes(D::count), sum(D::count, 1.0f), sum_bytes(D::count, 1.0f);
  for (k::index_t b = 0; b < D::mask_bytes; ++b) {
    k::dropout_backward_byte<D, false>(b, mask.data(), x.data(), dx_bytes.data());
    k::dropout_backward_byte<D, true>(b, mask.data(), x.data(), sum_bytes.data());
  }
  for (k::index_t i = 0; i < D::count; ++i)
    k::dropout_backward<D, true>(i, mask.data(), x.data(), sum.data());
  CHECK(dx_bytes == y);
  CHECK(sum_bytes == sum);
  CHECK(sum[0] == (y[0] == 0.0f ? 1.0f : 3.5f));
  // A dropped element is +0 whatever its input; a kept NaN or infinity passes, scaled.
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[8] = {inf, -inf, std::numeric_limits<float>::quiet_NaN(), -0.0f,
                             inf, -inf, std::numeric_limits<float>::quiet_NaN(), -0.0f};
  float out[8];
  k::MaskByte bits[1];
  k::dropout_forward<D>(0, key, specials, out, bits);
  CHECK(static_cast<unsigned>(bits[0]) != 0u);     // this key's first byte keeps some and drops
  CHECK(static_cast<unsigned>(bits[0]) != 0xFFu);  // some, so both arms are checked
  for (int i = 0; i < 8; ++i) {
    CAPTURE(i);
    if ((static_cast<unsigned>(bits[0]) >> i) & 1u) {
      CHECK(std::isnan(out[i]) == std::isnan(specials[i]));  // x · 1.25 is x for these
      if (!std::isnan(specials[i])) {
        CHECK(out[i] == specials[i]);
        CHECK(std::signbit(out[i]) == std::signbit(specials[i]));
      }
    } else {
      CHECK(std::signbit(out[i]) == false);
      CHECK(out[i] == 0.0f);
    }
  }
  // Another step or layer draws another mask; the same key draws the same one.
  CHECK(k::dropout_key(7, 2, 3) != key);
  CHECK(k::dropout_key(7, 1, 4) != key);
  CHECK(k::dropout_key(8, 1, 3) != key);
  CHECK(k::dropout_key(7, 1, 3) == key);
}

TEST_CASE("kernels: activation derivatives from the saved output") {
  // ReLU: y = 0 blocks the gradient (PyTorch's gradient at x = 0 is 0 too).
  CHECK(k::ReLU::backward(0.0f, 2.0f) == 0.0f);
  CHECK(k::ReLU::backward(0.5f, 2.0f) == 2.0f);
  // LeakyReLU: y < 0 passes 0.01 of it.
  CHECK(k::LeakyReLU::forward(-3.0f) == doctest::Approx(-0.03f));
  CHECK(k::LeakyReLU::backward(-0.03f, 2.0f) == doctest::Approx(0.02f));
  // Sigmoid at y = 0.25: 0.25 · 0.75 = 0.1875.
  CHECK(k::Sigmoid::backward(0.25f, 1.0f) == doctest::Approx(0.1875f));
  // Tanh at y = 0.5: 1 − 0.25 = 0.75.
  CHECK(k::Tanh::backward(0.5f, 2.0f) == doctest::Approx(1.5f));
}

TEST_CASE("kernels: softmax cross-entropy on logits (1, 2, 3) and (0, 0, 0)") {
  // Sample 0, label 2: loss = log(e^-2 + e^-1 + 1) = log(1.50321472) = 0.40760596;
  // softmax = (0.09003057, 0.24472847, 0.66524096); d = (softmax − onehot) / batch 2.
  // Sample 1, label 0: loss = log 3 = 1.09861229; softmax = 1/3 each.
  const float logits[] = {1, 2, 3, 0, 0, 0};
  const std::int32_t labels[] = {2, 0};
  float loss[2], dlogits[6];
  std::int32_t predicted[2];
  for (k::index_t n = 0; n < 2; ++n)
    k::softmax_cross_entropy<2, 3>(n, logits, labels, loss, predicted, dlogits);
  CHECK(loss[0] == doctest::Approx(0.40760596).epsilon(1e-6));
  CHECK(loss[1] == doctest::Approx(1.09861229).epsilon(1e-6));
  CHECK(predicted[0] == 2);
  CHECK(predicted[1] == 0);  // ties: the first maximum
  CHECK(dlogits[0] == doctest::Approx(0.09003057 / 2).epsilon(1e-5));
  CHECK(dlogits[1] == doctest::Approx(0.24472847 / 2).epsilon(1e-5));
  CHECK(dlogits[2] == doctest::Approx((0.66524096 - 1) / 2).epsilon(1e-5));
  CHECK(dlogits[3] == doctest::Approx((1.0 / 3 - 1) / 2).epsilon(1e-5));
}

TEST_CASE("kernels: mean squared error over 2 samples of 2") {
  // Sample 0: y (1, 3), t (0, 1): loss (1 + 4) / 2 = 2.5; dy = 2 / 4 · (1, 2) = (0.5, 1).
  // Sample 1: y (2, 2), t (2, 0): loss (0 + 4) / 2 = 2; dy = (0, 1).
  const float y[] = {1, 3, 2, 2}, t[] = {0, 1, 2, 0};
  float loss[2], dy[4];
  for (k::index_t n = 0; n < 2; ++n)
    k::mean_squared_error<2, 2>(n, y, t, loss, dy);
  CHECK(loss[0] == 2.5f);
  CHECK(loss[1] == 2.0f);
  CHECK(dy[0] == 0.5f);
  CHECK(dy[1] == 1.0f);
  CHECK(dy[2] == 0.0f);
  CHECK(dy[3] == 1.0f);
}

TEST_CASE("kernels: one step of each optimizer, by hand") {
  k::OptimizerSettings s;
  SUBCASE("SGD with momentum and L2 weight decay") {
    // p = 1, g = 0.5, wd = 0.1, lr = 0.1, momentum 0.9, velocity 0.2:
    // g' = 0.5 + 0.1 · 1 = 0.6; v = 0.9 · 0.2 + 0.6 = 0.78; p = 1 − 0.1 · 0.78 = 0.922.
    s.learning_rate = 0.1;
    s.weight_decay = 0.1;
    float p = 1, g = 0.5f, v = 0.2f;
    k::sgd_momentum_update(0, &p, &g, &v, k::optimizer_constants(k::Optimizer::sgd_momentum, s, 1));
    CHECK(v == doctest::Approx(0.78f));
    CHECK(p == doctest::Approx(0.922f));
  }
  SUBCASE("Adam with L2 weight decay, first step") {
    // p = 0.5, g = 0.2, wd = 0.1, lr = 0.01: g' = 0.25; m = 0.1 · 0.25 = 0.025;
    // v = 0.001 · 0.0625 = 6.25e-5; step size 0.01 / (1 − 0.9) = 0.1;
    // denominator √6.25e-5 / √0.001 + 1e-8 = 0.25 + 1e-8; p = 0.5 − 0.1 · 0.025 / 0.25 = 0.49.
    s.learning_rate = 0.01;
    s.weight_decay = 0.1;
    float p = 0.5f, g = 0.2f, m = 0, v = 0;
    k::adam_update<false>(0, &p, &g, &m, &v, k::optimizer_constants(k::Optimizer::adam, s, 1));
    CHECK(m == doctest::Approx(0.025f));
    CHECK(v == doctest::Approx(6.25e-5f));
    CHECK(p == doctest::Approx(0.49f).epsilon(1e-6));
  }
  SUBCASE("AdamW, first step") {
    // p = 0.5 · (1 − 0.01 · 0.1) = 0.4995; g = 0.2: m = 0.02, v = 4e-5; denominator 0.2;
    // p = 0.4995 − 0.1 · 0.02 / 0.2 = 0.4895.
    s.learning_rate = 0.01;
    s.weight_decay = 0.1;
    float p = 0.5f, g = 0.2f, m = 0, v = 0;
    k::adam_update<true>(0, &p, &g, &m, &v, k::optimizer_constants(k::Optimizer::adamw, s, 1));
    CHECK(p == doctest::Approx(0.4895f).epsilon(1e-6));
  }
}

TEST_CASE("kernels: max-pool takes the first maximum, lets NaN win, routes dy back") {
  constexpr k::Pool2dGeometry g{.batch = 1,
                                .channels = 1,
                                .in_height = 2,
                                .in_width = 4,
                                .out_height = 1,
                                .out_width = 2,
                                .kernel_h = 2,
                                .kernel_w = 2,
                                .stride_h = 2,
                                .stride_w = 2};
  // Window 0: (2, 5 / 5, 1) -> 5 at position 1 (the first of the two 5s).
  // Window 1: (1, NaN / 3, 2) -> NaN at position 1.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float x[] = {2, 5, 1, nan, 5, 1, 3, 2};
  float y[2];
  std::uint8_t window[2];
  for (k::index_t q = 0; q < 2; ++q)
    k::max_pool_forward<g, std::uint8_t>(0, q, x, y, window);
  CHECK(y[0] == 5.0f);
  CHECK(window[0] == 1);
  CHECK(std::isnan(y[1]));
  CHECK(window[1] == 1);
  const float dy[] = {10, 20};
  float dx[8];
  for (k::index_t p = 0; p < 8; ++p)
    k::max_pool_backward<g, std::uint8_t>(0, p, dy, window, dx);
  const float expected[] = {0, 10, 0, 20, 0, 0, 0, 0};
  for (int i = 0; i < 8; ++i) {
    CAPTURE(i);
    CHECK(dx[i] == expected[i]);
  }
}

TEST_CASE("kernels: a padded average pool divides by the whole window") {
  // 2×2 input (1, 2 / 3, 4), kernel 2, stride 2, padding 1: four windows each holding one
  // element and three zeros of padding -> 0.25, 0.5, 0.75, 1 (PyTorch's count_include_pad).
  constexpr k::Pool2dGeometry g{.batch = 1,
                                .channels = 1,
                                .in_height = 2,
                                .in_width = 2,
                                .out_height = 2,
                                .out_width = 2,
                                .kernel_h = 2,
                                .kernel_w = 2,
                                .stride_h = 2,
                                .stride_w = 2,
                                .pad_h = 1,
                                .pad_w = 1};
  const float x[] = {1, 2, 3, 4};
  float y[4];
  for (k::index_t q = 0; q < 4; ++q)
    k::avg_pool_forward<g>(0, q, x, y);
  CHECK(y[0] == 0.25f);
  CHECK(y[1] == 0.5f);
  CHECK(y[2] == 0.75f);
  CHECK(y[3] == 1.0f);
  // Backward of dy = 1 everywhere: each input is in one window, which gives it 1/4.
  const float dy[] = {1, 1, 1, 1};
  float dx[4];
  for (k::index_t p = 0; p < 4; ++p)
    k::avg_pool_backward<g>(0, p, dy, dx);
  for (float v : dx)
    CHECK(v == 0.25f);
}

TEST_CASE("launch: split covers 0..count in contiguous, near-equal pieces on the grain") {
  // 10 items in 3: 4, 3, 3.
  CHECK(c::split(10, 3, 0).begin == 0);
  CHECK(c::split(10, 3, 0).end == 4);
  CHECK(c::split(10, 3, 1).end == 7);
  CHECK(c::split(10, 3, 2).end == 10);
  // Grain 4: units of 4 (the last one short): [0, 4), [4, 8), [8, 10).
  CHECK(c::split(10, 3, 1, 4).begin == 4);
  CHECK(c::split(10, 3, 2, 4).end == 10);
  // More threads than units: the extra ones get nothing.
  CHECK(c::split(2, 4, 3).empty());
  for (int parts = 1; parts <= 5; ++parts) {
    c::index_t covered = 0;
    for (int t = 0; t < parts; ++t) {
      const c::Range r = c::split(23, parts, t, 3);
      CHECK(r.begin == covered);
      covered = r.end;
    }
    CHECK(covered == 23);
  }
}

TEST_CASE("kernels: the fused pool bodies (the GPU's) equal the CPU's two sweeps") {
  // A 2-sample, 3-channel, 4×6 tile pooled 2×2, with bias and activation: the fused body applied
  // per window against bias_activation_forward over the rows, then the tiled reduction.
  constexpr k::Pool2dGeometry g{.batch = 2,
                                .channels = 3,
                                .in_height = 4,
                                .in_width = 6,
                                .out_height = 2,
                                .out_width = 3,
                                .kernel_h = 2,
                                .kernel_w = 2,
                                .stride_h = 2,
                                .stride_w = 2};
  constexpr k::index_t n = 2 * 3 * 4 * 6, pooled_n = 2 * 3 * 2 * 3;
  std::vector<float> z(n);
  for (k::index_t i = 0; i < n; ++i)
    z[static_cast<std::size_t>(i)] = std::sin(static_cast<float>(i) * 1.7f);
  const float bias[] = {0.1f, -0.2f, 0.3f};
  std::vector<float> fused_y(z), swept_y(z), fused_max(pooled_n), swept_max(pooled_n),
      fused_avg(pooled_n), swept_avg(pooled_n);
  std::vector<k::WindowIndex8> fused_at(pooled_n), swept_at(pooled_n);
  std::vector<float> fused_y2(z), swept_y2(z);
  for (k::index_t plane = 0; plane < 6; ++plane)
    for (k::index_t oh = 0; oh < 2; ++oh)
      for (k::index_t ow = 0; ow < 3; ++ow) {
        k::bias_activation_max_pool_forward<k::ReLU, g, true, k::WindowIndex8>(
            plane, oh, ow, fused_y.data(), bias, fused_y.data(), fused_max.data(), fused_at.data());
        k::bias_activation_avg_pool_forward<k::Tanh, g, true>(plane, oh, ow, fused_y2.data(), bias,
                                                              fused_y2.data(), fused_avg.data());
      }
  for (k::index_t row = 0; row < 6; ++row)
    for (k::index_t p = 0; p < 24; ++p) {
      k::bias_activation_forward<k::ReLU, k::BiasAlong::rows, 3, 24, true>(row, p, swept_y.data(),
                                                                           bias, swept_y.data());
      k::bias_activation_forward<k::Tanh, k::BiasAlong::rows, 3, 24, true>(row, p, swept_y2.data(),
                                                                           bias, swept_y2.data());
    }
  for (k::index_t plane = 0; plane < 6; ++plane)
    for (k::index_t oh = 0; oh < 2; ++oh)
      for (k::index_t ow = 0; ow < 3; ++ow) {
        k::max_pool_tiled_forward<g, k::WindowIndex8>(plane, oh, ow, swept_y.data(),
                                                      swept_max.data(), swept_at.data());
        k::avg_pool_tiled_forward<g>(plane, oh, ow, swept_y2.data(), swept_avg.data());
      }
  CHECK(fused_y == swept_y);
  CHECK(fused_y2 == swept_y2);
  CHECK(fused_max == swept_max);
  CHECK(fused_avg == swept_avg);
  CHECK(fused_at == swept_at);
}

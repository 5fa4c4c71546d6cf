// The CPU's plane-wise kernel bodies (one (sample, channel) plane or one filter per call; for
// BatchNorm1d one sample's row or a block of channels) against the element-wise ones (one element
// per call, as a CUDA thread runs them), bit for bit: both must add each element's terms in the
// same order. The element-wise bodies are the ones checked against PyTorch and finite differences
// (test_mlperf_fixtures.cpp, test_gradients.cpp); this keeps the faster shape equal to them on
// geometries those models do not reach (uneven 'same' padding, stride 2, several channels per
// group, a row that is no multiple of 8).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include <staticnet/kernels/batch_norm.hpp>
#include <staticnet/kernels/bias_activation.hpp>
#include <staticnet/kernels/grouped_conv.hpp>

namespace k = staticnet::kernels;
using k::index_t;

namespace {

// Values in [-1, 1] from a linear congruential generator: any numbers do, the same each run.
std::vector<float> values(std::size_t n, std::uint32_t seed) {
  std::vector<float> out(n);
  for (float& v : out) {
    seed = seed * 1664525u + 1013904223u;
    v = static_cast<float>((seed >> 8) % 2001) / 1000.0f - 1.0f;
  }
  return out;
}

// As values(), each scaled by 2^e with e in [-20, 20]. values() are thousandths in [-1, 1], whose
// sums and products are often exact; spread this wide they round, so a term computed another way
// (tried: x̂ in double instead of float in the backward sums) shows in the bits.
std::vector<float> wide_values(std::size_t n, std::uint32_t seed) {
  std::vector<float> out = values(n, seed);
  for (float& v : out) {
    seed = seed * 1664525u + 1013904223u;
    v = std::ldexp(v, static_cast<int>((seed >> 8) % 41) - 20);
  }
  return out;
}

template <k::Conv2dGeometry G>
void check_grouped_conv() {
  CAPTURE(G.groups);
  CAPTURE(G.stride_h);
  CAPTURE(k::shifts_by_tap(G));
  const auto x = wide_values(static_cast<std::size_t>(G.input_elements()), 1);
  const auto w = wide_values(static_cast<std::size_t>(G.weight_elements()), 2);
  const auto b = wide_values(static_cast<std::size_t>(G.out_channels), 3);
  const auto dy = wide_values(static_cast<std::size_t>(G.output_elements()), 4);
  std::vector<float> y_element(dy.size()), y_plane(dy.size());
  std::vector<float> dx_element(x.size()), dx_plane(x.size());
  std::vector<float> dw_element(w.size()), dw_filter(w.size());
  for (index_t i = 0; i < G.output_elements(); ++i)
    k::grouped_conv_forward<G, true>(i, x.data(), w.data(), b.data(), y_element.data());
  for (index_t p = 0; p < G.batch * G.out_channels; ++p)
    k::grouped_conv_forward_plane<G, true>(p, x.data(), w.data(), b.data(), y_plane.data());
  for (index_t j = 0; j < G.input_elements(); ++j)
    k::grouped_conv_backward_input<G, false>(j, dy.data(), w.data(), dx_element.data());
  for (index_t p = 0; p < G.batch * G.in_channels; ++p)
    k::grouped_conv_backward_input_plane<G, false>(p, dy.data(), w.data(), dx_plane.data());
  for (index_t e = 0; e < G.weight_elements(); ++e)
    k::grouped_conv_backward_weight<G>(e, x.data(), dy.data(), dw_element.data());
  for (index_t f = 0; f < G.out_channels * G.group_inputs(); ++f)
    k::grouped_conv_backward_filter<G>(f, x.data(), dy.data(), dw_filter.data());
  CHECK(y_plane == y_element);
  CHECK(dx_plane == dx_element);
  CHECK(dw_filter == dw_element);
  // Added to a gradient already there: the plane-wise version adds term by term, so it rounds
  // differently; close, not equal (on values in [-1, 1], whose terms are of one size).
  const auto small_dy = values(dy.size(), 6), small_w = values(w.size(), 7);
  std::vector<float> sum_element = values(x.size(), 5), sum_plane = sum_element;
  for (index_t j = 0; j < G.input_elements(); ++j)
    k::grouped_conv_backward_input<G, true>(j, small_dy.data(), small_w.data(), sum_element.data());
  for (index_t p = 0; p < G.batch * G.in_channels; ++p)
    k::grouped_conv_backward_input_plane<G, true>(p, small_dy.data(), small_w.data(),
                                                  sum_plane.data());
  for (std::size_t j = 0; j < x.size(); ++j)
    CHECK(sum_plane[j] == doctest::Approx(sum_element[j]).epsilon(1e-6).scale(1.0));
}

template <k::BatchNormGeometry G, class Act>
void check_batch_norm() {
  CAPTURE(G.positions);
  const auto x = values(static_cast<std::size_t>(G.elements()), 5);
  const auto gamma = values(static_cast<std::size_t>(G.channels), 6);
  const auto beta = values(static_cast<std::size_t>(G.channels), 7);
  const auto dy = values(static_cast<std::size_t>(G.elements()), 8);
  std::vector<float> stats(2 * static_cast<std::size_t>(G.channels));
  std::vector<float> running(stats.size(), 1.0f);
  for (index_t c = 0; c < G.channels; ++c)
    k::batch_norm_statistics<G>(c, x.data(), stats.data(), running.data());
  std::vector<float> y_element(x.size()), y_plane(x.size());
  for (index_t i = 0; i < G.elements(); ++i)
    k::batch_norm_forward<G, Act>(i, x.data(), stats.data(), gamma.data(), beta.data(),
                                  y_element.data());
  for (index_t p = 0; p < G.batch * G.channels; ++p)
    k::batch_norm_forward_plane<G, Act>(p, x.data(), stats.data(), gamma.data(), beta.data(),
                                        y_plane.data());
  CHECK(y_plane == y_element);
  for (index_t i = 0; i < G.elements(); ++i)
    k::batch_norm_inference<G, Act>(i, x.data(), running.data(), gamma.data(), beta.data(),
                                    y_element.data());
  for (index_t p = 0; p < G.batch * G.channels; ++p)
    k::batch_norm_inference_plane<G, Act>(p, x.data(), running.data(), gamma.data(), beta.data(),
                                          y_plane.data());
  CHECK(y_plane == y_element);

  std::vector<float> d = dy, dgamma(gamma.size()), dbeta(beta.size());
  for (index_t c = 0; c < G.channels; ++c)
    k::batch_norm_backward_sums<G, Act>(c, x.data(), y_element.data(), stats.data(), d.data(),
                                        dgamma.data(), dbeta.data());
  std::vector<float> dx_element(x.size()), dx_plane(x.size());
  for (index_t i = 0; i < G.elements(); ++i)
    k::batch_norm_backward_input<G, false>(i, x.data(), stats.data(), gamma.data(), d.data(),
                                           dgamma.data(), dbeta.data(), dx_element.data());
  for (index_t p = 0; p < G.batch * G.channels; ++p)
    k::batch_norm_backward_input_plane<G, false>(p, x.data(), stats.data(), gamma.data(), d.data(),
                                                 dgamma.data(), dbeta.data(), dx_plane.data());
  CHECK(dx_plane == dx_element);
}

// BatchNorm1d's row- and block-wise passes (the CPU's, where a plane is one element) against the
// element-wise ones and the per-channel sums, bit for bit; Width channels per block, the last
// block partial when it does not divide the channels.
template <k::BatchNormGeometry G, class Act, index_t Width>
void check_batch_norm_rows() {
  static_assert(G.positions == 1);
  CAPTURE(G.channels);
  const auto x = wide_values(static_cast<std::size_t>(G.elements()), 11);
  const auto gamma = values(static_cast<std::size_t>(G.channels), 12);
  const auto beta = values(static_cast<std::size_t>(G.channels), 13);
  const auto dy = wide_values(static_cast<std::size_t>(G.elements()), 14);
  const index_t blocks = (G.channels + Width - 1) / Width;
  std::vector<float> stats(2 * static_cast<std::size_t>(G.channels)), stats_block(stats.size());
  std::vector<float> running(stats.size(), 1.0f), running_block(stats.size(), 1.0f);
  for (index_t c = 0; c < G.channels; ++c)
    k::batch_norm_statistics<G>(c, x.data(), stats.data(), running.data());
  for (index_t b = 0; b < blocks; ++b)
    k::batch_norm_statistics_block<G, Width>(b, x.data(), stats_block.data(), running_block.data());
  CHECK(stats_block == stats);
  CHECK(running_block == running);

  std::vector<float> y_element(x.size()), y_row(x.size());
  for (index_t i = 0; i < G.elements(); ++i)
    k::batch_norm_forward<G, Act>(i, x.data(), stats.data(), gamma.data(), beta.data(),
                                  y_element.data());
  for (index_t n = 0; n < G.batch; ++n)
    k::batch_norm_forward_row<G, Act>(n, x.data(), stats.data(), gamma.data(), beta.data(),
                                      y_row.data());
  CHECK(y_row == y_element);
  std::vector<float> z_element(x.size()), z_row(x.size());
  for (index_t i = 0; i < G.elements(); ++i)
    k::batch_norm_inference<G, Act>(i, x.data(), running.data(), gamma.data(), beta.data(),
                                    z_element.data());
  for (index_t n = 0; n < G.batch; ++n)
    k::batch_norm_inference_row<G, Act>(n, x.data(), running.data(), gamma.data(), beta.data(),
                                        z_row.data());
  CHECK(z_row == z_element);

  std::vector<float> d = dy, dgamma(gamma.size()), dbeta(beta.size());
  std::vector<float> d_block = dy, dgamma_block(gamma.size()), dbeta_block(beta.size());
  for (index_t c = 0; c < G.channels; ++c)
    k::batch_norm_backward_sums<G, Act>(c, x.data(), y_element.data(), stats.data(), d.data(),
                                        dgamma.data(), dbeta.data());
  for (index_t b = 0; b < blocks; ++b)
    k::batch_norm_backward_sums_block<G, Act, Width>(b, x.data(), y_element.data(), stats.data(),
                                                     d_block.data(), dgamma_block.data(),
                                                     dbeta_block.data());
  CHECK(d_block == d);
  CHECK(dgamma_block == dgamma);
  CHECK(dbeta_block == dbeta);
  // dx twice, the second time added to the first (Accumulate), as a second reader of x would.
  std::vector<float> dx_element(x.size()), dx_row(x.size());
  for (int pass = 0; pass < 2; ++pass) {
    for (index_t i = 0; i < G.elements(); ++i)
      if (pass == 0)
        k::batch_norm_backward_input<G, false>(i, x.data(), stats.data(), gamma.data(), d.data(),
                                               dgamma.data(), dbeta.data(), dx_element.data());
      else
        k::batch_norm_backward_input<G, true>(i, x.data(), stats.data(), gamma.data(), d.data(),
                                              dgamma.data(), dbeta.data(), dx_element.data());
    for (index_t n = 0; n < G.batch; ++n)
      if (pass == 0)
        k::batch_norm_backward_input_row<G, false>(n, x.data(), stats.data(), gamma.data(),
                                                   d.data(), dgamma.data(), dbeta.data(),
                                                   dx_row.data());
      else
        k::batch_norm_backward_input_row<G, true>(n, x.data(), stats.data(), gamma.data(), d.data(),
                                                  dgamma.data(), dbeta.data(), dx_row.data());
    CHECK(dx_row == dx_element);
  }
}

// The statistics and backward sums by a plain loop in long double: the lanes reorder additions,
// so these agree to rounding, not to the bit.
template <k::BatchNormGeometry G>
void check_batch_norm_sums() {
  const auto x = values(static_cast<std::size_t>(G.elements()), 9);
  const auto dy = values(static_cast<std::size_t>(G.elements()), 10);
  std::vector<float> stats(2 * static_cast<std::size_t>(G.channels)), running(stats.size());
  std::vector<float> d = dy, dgamma(static_cast<std::size_t>(G.channels)), dbeta(dgamma.size());
  for (index_t c = 0; c < G.channels; ++c) {
    k::batch_norm_statistics<G>(c, x.data(), stats.data(), running.data());
    k::batch_norm_backward_sums<G, k::Identity>(c, x.data(), nullptr, stats.data(), d.data(),
                                                dgamma.data(), dbeta.data());
  }
  for (index_t c = 0; c < G.channels; ++c) {
    long double sum = 0, squares = 0, dsum = 0, dot = 0;
    auto at = [&](index_t n, index_t p) { return (n * G.channels + c) * G.positions + p; };
    for (index_t n = 0; n < G.batch; ++n)
      for (index_t p = 0; p < G.positions; ++p)
        sum += x[at(n, p)];
    const long double mean = sum / G.per_channel();
    for (index_t n = 0; n < G.batch; ++n)
      for (index_t p = 0; p < G.positions; ++p)
        squares += (x[at(n, p)] - mean) * (x[at(n, p)] - mean);
    const long double inv = 1 / std::sqrt(squares / G.per_channel() + G.epsilon);
    for (index_t n = 0; n < G.batch; ++n)
      for (index_t p = 0; p < G.positions; ++p) {
        dsum += dy[at(n, p)];
        dot += dy[at(n, p)] * ((x[at(n, p)] - stats[c]) * stats[G.channels + c]);
      }
    CAPTURE(c);
    CHECK(stats[c] == doctest::Approx(static_cast<double>(mean)).epsilon(1e-6));
    CHECK(stats[G.channels + c] == doctest::Approx(static_cast<double>(inv)).epsilon(1e-6));
    CHECK(dbeta[c] == doctest::Approx(static_cast<double>(dsum)).epsilon(1e-6));
    CHECK(dgamma[c] == doctest::Approx(static_cast<double>(dot)).epsilon(1e-6));
  }
}

}  // namespace

TEST_CASE("kernels: plane-wise grouped convolutions equal the element-wise ones bit for bit") {
  // batch, Ci, Hi, Wi, Co, Ho, Wo, KH, KW, SH, SW, PH, PW, groups
  check_grouped_conv<k::Conv2dGeometry{2, 4, 25, 5, 4, 25, 5, 3, 3, 1, 1, 1, 1, 4}>();
  check_grouped_conv<k::Conv2dGeometry{2, 4, 8, 8, 4, 4, 4, 3, 3, 2, 2, 0, 0, 4}>();  // 0/1 pad
  check_grouped_conv<k::Conv2dGeometry{2, 4, 7, 6, 8, 4, 3, 3, 3, 2, 2, 1, 1, 2}>();
  check_grouped_conv<k::Conv2dGeometry{1, 3, 9, 10, 6, 5, 4, 10, 4, 2, 3, 4, 1, 3}>();
  // Stride 1, as many output columns as input ones: one run over the plane per tap.
  check_grouped_conv<k::Conv2dGeometry{2, 4, 9, 6, 4, 9, 6, 10, 4, 1, 1, 4, 1, 2}>();  // 4/5, 1/2
  check_grouped_conv<k::Conv2dGeometry{1, 2, 7, 5, 4, 5, 5, 3, 1, 1, 1, 0, 0, 2}>();   // no pad
  check_grouped_conv<k::Conv2dGeometry{1, 2, 4, 1, 2, 4, 1, 3, 3, 1, 1, 1, 1, 2}>();   // 1 wide
  // dW runs k::filter_lanes samples at once: a batch of exactly that many, and one of two full
  // passes and a partial third, each lane still adding its sample's terms in order.
  static_assert(k::filter_lanes == 8);
  check_grouped_conv<k::Conv2dGeometry{8, 4, 25, 5, 4, 25, 5, 3, 3, 1, 1, 1, 1, 4}>();
  check_grouped_conv<k::Conv2dGeometry{19, 4, 8, 8, 4, 4, 4, 3, 3, 2, 2, 0, 0, 4}>();
  check_grouped_conv<k::Conv2dGeometry{19, 2, 9, 6, 4, 9, 6, 10, 4, 1, 1, 4, 1, 2}>();
  static_assert(
      k::filter_tile_rows<k::Conv2dGeometry{8, 4, 25, 5, 4, 25, 5, 3, 3, 1, 1, 1, 1, 4}>() ==
      25);  // the DS-CNN's planes: one band
  // Planes too large for one band on the stack: bands of output rows, the last one shorter, at
  // stride 1 and at stride 2 with 'same' padding 0/1 (bands whose input rows overlap).
  constexpr k::Conv2dGeometry tall{11, 2, 48, 48, 2, 48, 48, 3, 3, 1, 1, 1, 1, 2};
  constexpr k::Conv2dGeometry strided{11, 2, 46, 46, 2, 23, 23, 3, 3, 2, 2, 0, 0, 2};
  // (in rows + out rows) · 48 floats · 8 lanes · 4 B ≤ 32 KiB: ((R + 2) + R) · 1,536 B, R = 9;
  // at stride 2, ((2R + 1) · 46 + 23R) · 32 B, R = 8.
  static_assert(k::filter_tile_rows<tall>() == 9 && 48 % 9 != 0);
  static_assert(k::filter_tile_rows<strided>() == 8 && 23 % 8 != 0);
  check_grouped_conv<tall>();
  check_grouped_conv<strided>();
  check_grouped_conv<k::Conv2dGeometry{9, 2, 40, 40, 2, 40, 40, 5, 5, 1, 1, 2, 2, 2}>();
  // Rows too wide for even one band: a sample at a time.
  constexpr k::Conv2dGeometry wide{3, 1, 3, 300, 1, 3, 300, 3, 3, 1, 1, 1, 1, 1};
  static_assert(k::filter_tile_rows<wide>() == 0);
  check_grouped_conv<wide>();
}

TEST_CASE("kernels: plane-wise BatchNorm passes equal the element-wise ones bit for bit") {
  check_batch_norm<k::BatchNormGeometry{4, 3, 125, 1e-3f, 0.01f}, k::ReLU>();
  check_batch_norm<k::BatchNormGeometry{3, 5, 9, 1e-5f, 0.1f}, k::Identity>();
  check_batch_norm<k::BatchNormGeometry{16, 7, 1, 1e-5f, 0.1f}, k::ReLU>();  // BatchNorm1d
}

TEST_CASE(
    "kernels: BatchNorm1d's row- and block-wise passes equal the element-wise ones bit for bit") {
  check_batch_norm_rows<k::BatchNormGeometry{16, 7, 1, 1e-5f, 0.1f}, k::ReLU, 16>();    // one block
  check_batch_norm_rows<k::BatchNormGeometry{33, 40, 1, 1e-3f, 0.01f}, k::ReLU, 16>();  // 16+16+8
  check_batch_norm_rows<k::BatchNormGeometry{9, 128, 1, 1e-5f, 0.1f}, k::Identity, 16>();
  check_batch_norm_rows<k::BatchNormGeometry{5, 12, 1, 1e-5f, 0.1f}, k::Sigmoid, 4>();
}

TEST_CASE("kernels: BatchNorm's lane sums agree with a plain long-double sum") {
  check_batch_norm_sums<k::BatchNormGeometry{4, 3, 125, 1e-3f, 0.01f}>();
  check_batch_norm_sums<k::BatchNormGeometry{64, 5, 1, 1e-5f, 0.1f}>();
}

TEST_CASE("kernels: bias gradients over a range of channels or features equal one at a time") {
  // 21 channels of 3 samples x 37 positions: ranges of two blocks of 8 and a rest, from 0 and
  // from 3; 150 features of 5 samples: a block of 64, another, and 22.
  constexpr index_t batch = 3, channels = 21, positions = 37, features = 150;
  const auto dz = wide_values(static_cast<std::size_t>(batch * channels * positions), 9);
  for (const auto& range_of : {std::pair<index_t, index_t>{0, 21}, {3, 20}, {5, 6}}) {
    const index_t begin = range_of.first, end = range_of.second;
    CAPTURE(begin);
    std::vector<float> one(channels, 0.5f), range(channels, 0.5f);
    for (index_t c = begin; c < end; ++c)
      k::bias_gradient_channels<batch, channels, positions>(c, dz.data(), one.data());
    k::bias_gradient_channel_range<batch, channels, positions>(begin, end, dz.data(), range.data());
    CHECK(range == one);
  }
  const auto dy = wide_values(static_cast<std::size_t>(5 * features), 10);
  for (const auto& range_of : {std::pair<index_t, index_t>{0, 150}, {7, 100}}) {
    const index_t begin = range_of.first, end = range_of.second;
    CAPTURE(begin);
    std::vector<float> one(features, 0.5f), range(features, 0.5f);
    for (index_t o = begin; o < end; ++o)
      k::bias_gradient_features<5, features>(o, dy.data(), one.data());
    k::bias_gradient_feature_range<5, features>(begin, end, dy.data(), range.data());
    CHECK(range == one);
  }
}

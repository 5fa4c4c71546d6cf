// The shared kernel bodies over bf16 and f16 tensors (low_precision.hpp's load, store, write):
// each computes in float and rounds once at its store, as PyTorch runs a bf16 or f16 elementwise
// operation. So a body over low-precision tensors must give exactly the float body's result on
// the same (already rounded) inputs, rounded once; and a few cases are worked by hand where one
// rounding or two would differ.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <doctest/doctest.h>

#include "staticnet/kernels/activations.hpp"
#include "staticnet/kernels/batch_norm.hpp"
#include "staticnet/kernels/dropout.hpp"
#include "staticnet/kernels/geometry.hpp"
#include "staticnet/kernels/global_pool.hpp"
#include "staticnet/kernels/losses.hpp"
#include "staticnet/kernels/low_precision.hpp"
#include "staticnet/kernels/pooling.hpp"
#include "staticnet/kernels/residual_add.hpp"

namespace k = staticnet::kernels;
using k::index_t;

namespace {

// n values spread over several binades, both signs, none exactly representable in bf16.
std::vector<float> values(index_t n, float scale = 1.0f) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] = scale * std::sin(0.7f * static_cast<float>(i) + 0.3f) *
                                     std::exp2(static_cast<float>(i % 7) - 3.0f);
  return v;
}

template <class T>
std::vector<T> stored(const std::vector<float>& v) {
  std::vector<T> out;
  for (float x : v)
    out.push_back(k::from_float<T>(x));
  return out;
}

template <class T>
std::vector<float> loaded(const std::vector<T>& v) {
  std::vector<float> out;
  for (T x : v)
    out.push_back(k::to_float(x));
  return out;
}

// Every element of `low` equals the float result rounded to T.
template <class T>
void check_rounded_once(const std::vector<T>& low, const std::vector<float>& reference) {
  REQUIRE(low.size() == reference.size());
  for (std::size_t i = 0; i < low.size(); ++i) {
    CAPTURE(i);
    CHECK(k::to_float(low[i]) == k::to_float(k::from_float<T>(reference[i])));
  }
}

template <class T>
void check_elementwise_bodies() {
  constexpr index_t n = 200;
  const std::vector<T> x = stored<T>(values(n)), dy = stored<T>(values(n, 0.25f));
  const std::vector<float> xf = loaded(x), dyf = loaded(dy);

  SUBCASE("activations, forward and backward, accumulating too") {
    std::vector<T> y(n), dx = stored<T>(values(n, 3.0f));
    std::vector<float> yf(n), dxf = loaded(dx);
    for (index_t i = 0; i < n; ++i) {
      k::activation_forward<k::Sigmoid>(i, x.data(), y.data());
      k::activation_forward<k::Sigmoid>(i, xf.data(), yf.data());
    }
    check_rounded_once(y, yf);
    // Added to a gradient already there: the part is a tensor of its own in PyTorch, rounded,
    // and the sum rounded again.
    const std::vector<float> y_loaded = loaded(y);
    std::vector<float> part(n);
    for (index_t i = 0; i < n; ++i) {
      k::activation_backward<k::Sigmoid, true>(i, y.data(), dy.data(), dx.data());
      k::activation_backward<k::Sigmoid>(i, y_loaded.data(), dyf.data(), part.data());
      const auto at = static_cast<std::size_t>(i);
      dxf[at] += k::round_to<T>(part[at]);
    }
    check_rounded_once(dx, dxf);
  }
  SUBCASE("a residual sum of a low-precision and a float tensor, and its gradients") {
    const std::vector<float> b = values(n, 0.5f);
    std::vector<float> yf(n), ref(n);
    for (index_t i = 0; i < n; ++i) {
      k::residual_add_forward<k::ReLU>(i, x.data(), b.data(), yf.data());  // f32 output
      ref[static_cast<std::size_t>(i)] =
          std::max(xf[static_cast<std::size_t>(i)] + b[static_cast<std::size_t>(i)], 0.0f);
    }
    CHECK(yf == ref);  // the low-precision input is widened exactly
    // The gradient to the low-precision input is a rounded copy of the float dy.
    std::vector<float> d = values(n, 0.125f);
    std::vector<T> da(n);
    for (index_t i = 0; i < n; ++i)
      k::residual_add_backward<k::Identity, k::GradientWrite::copy, k::GradientWrite::same_buffer>(
          i, nullptr, d.data(), da.data(), nullptr);
    check_rounded_once(da, d);
  }
  SUBCASE("dropout over whole mask bytes, and its backward") {
    using D = k::DropoutGeometry<1, 4, n>;
    std::vector<T> y(n), dx(n);
    std::vector<float> yf(n), dxf(n);
    std::vector<k::MaskByte> mask(D::mask_bytes), maskf(D::mask_bytes);
    const std::uint64_t key = k::dropout_key(7, 3, 2);
    for (index_t b = 0; b < D::mask_bytes; ++b) {
      k::dropout_forward<D>(b, key, x.data(), y.data(), mask.data());
      k::dropout_forward<D>(b, key, xf.data(), yf.data(), maskf.data());
      k::dropout_backward_byte<D, false>(b, mask.data(), dy.data(), dx.data());
      k::dropout_backward_byte<D, false>(b, maskf.data(), dyf.data(), dxf.data());
    }
    check_rounded_once(y, yf);
    check_rounded_once(dx, dxf);
    CHECK(std::vector<std::uint8_t>(
              reinterpret_cast<const std::uint8_t*>(mask.data()),
              reinterpret_cast<const std::uint8_t*>(mask.data()) + mask.size()) ==
          std::vector<std::uint8_t>(
              reinterpret_cast<const std::uint8_t*>(maskf.data()),
              reinterpret_cast<const std::uint8_t*>(maskf.data()) + maskf.size()));
  }
}

template <class T>
void check_window_bodies() {
  // 2 planes of 6 × 6, pooled 2 × 2 by 2 (tiled) and 3 × 3 by 2 with padding 1 (standalone).
  constexpr k::Pool2dGeometry tiled{.batch = 1,
                                    .channels = 2,
                                    .in_height = 6,
                                    .in_width = 6,
                                    .out_height = 3,
                                    .out_width = 3,
                                    .kernel_h = 2,
                                    .kernel_w = 2,
                                    .stride_h = 2,
                                    .stride_w = 2};
  constexpr k::Pool2dGeometry padded{.batch = 1,
                                     .channels = 2,
                                     .in_height = 6,
                                     .in_width = 6,
                                     .out_height = 3,
                                     .out_width = 3,
                                     .kernel_h = 3,
                                     .kernel_w = 3,
                                     .stride_h = 2,
                                     .stride_w = 2,
                                     .pad_h = 1,
                                     .pad_w = 1};
  const std::vector<T> x = stored<T>(values(72));
  const std::vector<float> xf = loaded(x);
  std::vector<T> y(18), dx(72);
  std::vector<float> yf(18), dxf(72);
  std::vector<k::WindowIndex8> w(18), wf(18);
  for (index_t plane = 0; plane < 2; ++plane)
    for (index_t p = 0; p < 9; ++p) {
      k::max_pool_forward<padded, k::WindowIndex8>(plane, p, x.data(), y.data(), w.data());
      k::max_pool_forward<padded, k::WindowIndex8>(plane, p, xf.data(), yf.data(), wf.data());
    }
  check_rounded_once(y, yf);  // a maximum of rounded values: exact
  const std::vector<float> yl = loaded(y);
  for (index_t plane = 0; plane < 2; ++plane)
    for (index_t p = 0; p < 36; ++p) {
      k::max_pool_backward<padded, k::WindowIndex8>(plane, p, y.data(), w.data(), dx.data());
      k::max_pool_backward<padded, k::WindowIndex8>(plane, p, yl.data(), wf.data(), dxf.data());
    }
  check_rounded_once(dx, dxf);
  for (index_t plane = 0; plane < 2; ++plane)
    for (index_t p = 0; p < 9; ++p) {
      k::avg_pool_forward<padded>(plane, p, x.data(), y.data());
      k::avg_pool_forward<padded>(plane, p, xf.data(), yf.data());
    }
  check_rounded_once(y, yf);
  for (index_t plane = 0; plane < 2; ++plane)
    for (index_t oh = 0; oh < 3; ++oh)
      for (index_t ow = 0; ow < 3; ++ow) {
        k::avg_pool_tiled_forward<tiled>(plane, oh, ow, x.data(), y.data());
        k::avg_pool_tiled_forward<tiled>(plane, oh, ow, xf.data(), yf.data());
      }
  check_rounded_once(y, yf);
  // Global average pool of the two 6 × 6 planes.
  std::vector<T> g(2);
  std::vector<float> gf(2);
  for (index_t plane = 0; plane < 2; ++plane) {
    k::global_avg_pool_forward<36>(plane, x.data(), g.data());
    k::global_avg_pool_forward<36>(plane, xf.data(), gf.data());
  }
  check_rounded_once(g, gf);
}

template <class T>
void check_losses() {
  constexpr index_t batch = 3, classes = 5;
  const std::vector<T> z = stored<T>(values(batch * classes, 4.0f));
  const std::vector<float> zf = loaded(z);
  const std::int32_t labels[batch] = {4, 0, 2};
  std::vector<T> dz(batch * classes);
  std::vector<float> dzf(batch * classes), loss(batch), lossf(batch);
  std::int32_t predicted[batch], predictedf[batch];
  for (index_t n = 0; n < batch; ++n) {
    k::softmax_cross_entropy<batch, classes>(n, z.data(), labels, loss.data(), predicted,
                                             dz.data());
    k::softmax_cross_entropy<batch, classes>(n, zf.data(), labels, lossf.data(), predictedf,
                                             dzf.data());
  }
  CHECK(loss == lossf);  // the loss itself stays f32: not rounded
  CHECK(std::equal(predicted, predicted + batch, predictedf));
  check_rounded_once(dz, dzf);  // the gradient rounded once, not its exponentials first
  const std::vector<float> target = values(batch * classes, -1.0f);
  for (index_t n = 0; n < batch; ++n) {
    k::mean_squared_error<batch, classes>(n, z.data(), target.data(), loss.data(), dz.data());
    k::mean_squared_error<batch, classes>(n, zf.data(), target.data(), lossf.data(), dzf.data());
  }
  CHECK(loss == lossf);
  check_rounded_once(dz, dzf);
}

// BatchNorm2d over 4 samples of 3 channels of 5 positions, with a ReLU: x, y, dy and dx in T; the
// statistics, γ, β and their gradients float. The statistics of rounded inputs are those the
// float bodies compute from the same values; each stored output is rounded once.
template <class T>
void check_batch_norm() {
  constexpr k::BatchNormGeometry G{.batch = 4, .channels = 3, .positions = 5};
  constexpr index_t n = G.elements();
  const std::vector<T> x = stored<T>(values(n, 2.0f)), dy0 = stored<T>(values(n, 0.5f));
  const std::vector<float> xf = loaded(x), gamma = {1.5f, -0.5f, 0.25f}, beta = {0.1f, 0.0f, -2.0f};
  std::vector<float> stats(6), statsf(6), running(6, 0.5f), runningf(6, 0.5f);
  for (index_t c = 0; c < G.channels; ++c) {
    k::batch_norm_statistics<G>(c, x.data(), stats.data(), running.data());
    k::batch_norm_statistics<G>(c, xf.data(), statsf.data(), runningf.data());
  }
  CHECK(stats == statsf);
  CHECK(running == runningf);
  std::vector<T> y(n);
  std::vector<float> yf(n);
  for (index_t plane = 0; plane < G.batch * G.channels; ++plane) {
    k::batch_norm_forward_plane<G, k::ReLU>(plane, x.data(), stats.data(), gamma.data(),
                                            beta.data(), y.data());
    k::batch_norm_forward_plane<G, k::ReLU>(plane, xf.data(), stats.data(), gamma.data(),
                                            beta.data(), yf.data());
  }
  check_rounded_once(y, yf);
  // Backward: d = ReLU'(y)·dy over dy (rounded there, as PyTorch's ReLU backward stores it), the
  // sums, then dx.
  const std::vector<float> y_loaded = loaded(y);
  std::vector<T> dy = dy0, dx(n);
  std::vector<float> dyf = loaded(dy0), dxf(n), dgamma(3), dbeta(3), dgammaf(3), dbetaf(3);
  for (index_t c = 0; c < G.channels; ++c) {
    k::batch_norm_backward_sums<G, k::ReLU>(c, x.data(), y.data(), stats.data(), dy.data(),
                                            dgamma.data(), dbeta.data());
    k::batch_norm_backward_sums<G, k::ReLU>(c, xf.data(), y_loaded.data(), stats.data(), dyf.data(),
                                            dgammaf.data(), dbetaf.data());
  }
  check_rounded_once(dy, dyf);  // ReLU's backward: exact in any format
  CHECK(dgamma == dgammaf);
  CHECK(dbeta == dbetaf);
  for (index_t plane = 0; plane < G.batch * G.channels; ++plane) {
    k::batch_norm_backward_input_plane<G, false>(plane, x.data(), stats.data(), gamma.data(),
                                                 dy.data(), dgamma.data(), dbeta.data(), dx.data());
    k::batch_norm_backward_input_plane<G, false>(plane, xf.data(), stats.data(), gamma.data(),
                                                 dyf.data(), dgammaf.data(), dbetaf.data(),
                                                 dxf.data());
  }
  check_rounded_once(dx, dxf);
}

}  // namespace

TEST_CASE("typed bodies: bf16 tensors round once, as the float body's result") {
  check_elementwise_bodies<k::BF16>();
}
TEST_CASE("typed bodies: f16 tensors round once, as the float body's result") {
  check_elementwise_bodies<k::F16>();
}
TEST_CASE("typed bodies: pools over bf16 and f16 tensors") {
  check_window_bodies<k::BF16>();
  check_window_bodies<k::F16>();
}
TEST_CASE("typed bodies: the losses read bf16 and f16 logits in f32") {
  check_losses<k::BF16>();
  check_losses<k::F16>();
}

// By hand: bf16 keeps 8 significant bits, so the neighbours of 1 are 1 − 2^-9 and 1 + 2^-7, and
// 1 + 2^-8 is halfway. A part added to a bf16 gradient is rounded to bf16 first (it is a tensor of
// its own in PyTorch): 2^-8 · (1 + 2^-8) rounds to 2^-8 (a tie, to even), and 1 + 2^-8 to 1 (a
// tie, to even); adding the unrounded part would have passed the tie and given 1 + 2^-7.
TEST_CASE("typed bodies: a part added to a bf16 gradient is rounded, then the sum") {
  const float part = std::ldexp(1.0f, -8) + std::ldexp(1.0f, -16);
  k::BF16 dx[1] = {k::from_float<k::BF16>(1.0f)};
  k::write<true>(dx, 0, part);
  CHECK(k::to_float(dx[0]) == 1.0f);
  CHECK(k::to_float(k::from_float<k::BF16>(1.0f + part)) == 1.0f + std::ldexp(1.0f, -7));
  // Two parts of 2^-8 added one after the other: each sum is the tie, so it stays at 1.
  k::BF16 twice[1] = {k::from_float<k::BF16>(1.0f)};
  k::write<true>(twice, 0, std::ldexp(1.0f, -8));
  k::write<true>(twice, 0, std::ldexp(1.0f, -8));
  CHECK(k::to_float(twice[0]) == 1.0f);
  // A float gradient adds its part unrounded.
  float f[1] = {1.0f};
  k::write<true>(f, 0, part);
  CHECK(f[0] == 1.0f + part);
  // ReLU's backward over bf16: the gradient passes where y > 0, exactly.
  const k::BF16 y[2] = {k::from_float<k::BF16>(0.5f), k::from_float<k::BF16>(0.0f)};
  const k::BF16 dy[2] = {k::from_float<k::BF16>(-3.0f), k::from_float<k::BF16>(7.0f)};
  k::BF16 d[2];
  k::activation_backward<k::ReLU>(0, y, dy, d);
  k::activation_backward<k::ReLU>(1, y, dy, d);
  CHECK(k::to_float(d[0]) == -3.0f);
  CHECK(k::to_float(d[1]) == 0.0f);
}

TEST_CASE("typed bodies: BatchNorm over bf16 and f16 activations, float statistics") {
  check_batch_norm<k::BF16>();
  check_batch_norm<k::F16>();
}

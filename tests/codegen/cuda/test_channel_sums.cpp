// The GPU's per-block sums over the batch (staticnet/cuda/channel_sums.hpp) against the CPU's
// bodies they stand in for (staticnet/kernels/, themselves checked against PyTorch and finite
// differences), on geometries that leave threads idle, end in a partial round of the block, pad,
// stride and group. The two add in different orders, in double, so they agree to rounding (1e-6
// of the largest value), and the element-wise part (BatchNorm's d = ReLU'(y)·dy) to the bit. The
// sums add to what the output held (gradients accumulate), so it starts non-zero. Running twice
// gives the same bits.
#include <doctest/doctest.h>

#include <cstdint>
#include <span>
#include <vector>

#include <staticnet/kernels/activations.hpp>
#include <staticnet/kernels/batch_norm.hpp>
#include <staticnet/kernels/bias_activation.hpp>
#include <staticnet/kernels/grouped_conv.hpp>

#include "../tensor_error.hpp"
#include "channel_sums_launch.hpp"

namespace {

namespace k = staticnet::kernels;
namespace t = channel_sums_test;

// Values in [offset − 1, offset + 1).
std::vector<float> values(std::size_t count, std::uint32_t seed, float offset = 0.0f) {
  std::vector<float> v(count);
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = offset + static_cast<float>(seed >> 8) / 8388608.0f - 1.0f;
  }
  return v;
}

double error(const std::vector<float>& ours, const std::vector<float>& theirs) {
  return tensor_error(std::span<const float>(ours), std::span<const float>(theirs));
}

template <int N>
void check_norm() {
  constexpr k::BatchNormGeometry G = t::norms[N];
  CAPTURE(N);
  const auto size = static_cast<std::size_t>(G.elements());
  const auto channels = static_cast<std::size_t>(G.channels);
  // A mean far from zero: the two-pass variance must not cancel.
  const std::vector<float> x = values(size, 11, 20.0f);
  std::vector<float> stats(2 * channels), running = values(2 * channels, 12, 1.5f);
  std::vector<float> cpu_stats = stats, cpu_running = running;
  for (k::index_t c = 0; c < G.channels; ++c)
    k::batch_norm_statistics<G>(c, x.data(), cpu_stats.data(), cpu_running.data());
  t::batch_norm_statistics(N, x, stats, running);
  CHECK(error(stats, cpu_stats) <= 1e-6);
  CHECK(error(running, cpu_running) <= 1e-6);

  // Backward with a fused ReLU: y from the forward, dy random, sums added to non-zero ones.
  std::vector<float> y(size);
  for (std::size_t i = 0; i < size; ++i)
    y[i] = i % 3 == 0 ? 0.0f : 0.5f;  // a third of the outputs clipped
  const std::vector<float> dy = values(size, 13);
  std::vector<float> cpu_dy = dy, gpu_dy = dy;
  std::vector<float> cpu_dgamma = values(channels, 14), cpu_dbeta = values(channels, 15);
  std::vector<float> dgamma = cpu_dgamma, dbeta = cpu_dbeta;
  for (k::index_t c = 0; c < G.channels; ++c)
    k::batch_norm_backward_sums<G, k::ReLU>(c, x.data(), y.data(), cpu_stats.data(), cpu_dy.data(),
                                            cpu_dgamma.data(), cpu_dbeta.data());
  t::batch_norm_backward_sums(N, x, y, cpu_stats, gpu_dy, dgamma, dbeta);
  CHECK(gpu_dy == cpu_dy);
  CHECK(error(dgamma, cpu_dgamma) <= 1e-6);
  CHECK(error(dbeta, cpu_dbeta) <= 1e-6);

  std::vector<float> again(2 * channels), again_running = values(2 * channels, 12, 1.5f);
  t::batch_norm_statistics(N, x, again, again_running);
  CHECK(again == stats);
  CHECK(again_running == running);
}

template <int N>
void check_conv() {
  constexpr k::Conv2dGeometry G = t::convs[N];
  CAPTURE(N);
  const std::vector<float> x = values(static_cast<std::size_t>(G.input_elements()), 21);
  const std::vector<float> dy = values(static_cast<std::size_t>(G.output_elements()), 22);
  std::vector<float> cpu_dw = values(static_cast<std::size_t>(G.weight_elements()), 23);
  std::vector<float> dw = cpu_dw;
  for (k::index_t e = 0; e < G.weight_elements(); ++e)
    k::grouped_conv_backward_weight<G>(e, x.data(), dy.data(), cpu_dw.data());
  t::grouped_conv_backward_weight(N, x, dy, dw);
  CHECK(error(dw, cpu_dw) <= 1e-6);

  std::vector<float> cpu_db = values(static_cast<std::size_t>(G.out_channels), 24);
  std::vector<float> db = cpu_db;
  for (k::index_t c = 0; c < G.out_channels; ++c)
    k::bias_gradient_channels<G.batch, G.out_channels, G.positions()>(c, dy.data(), cpu_db.data());
  t::bias_gradient_channels(N, dy, db);
  CHECK(error(db, cpu_db) <= 1e-6);
}

}  // namespace

TEST_CASE("per-block sums: BatchNorm's statistics and backward sums equal the CPU bodies'") {
  check_norm<0>();
  check_norm<1>();
}

TEST_CASE("per-block sums: direct convolutions' weight and bias gradients equal the CPU bodies'") {
  check_conv<0>();
  check_conv<1>();
}

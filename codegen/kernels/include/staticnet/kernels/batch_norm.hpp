#pragma once
// Batch normalisation, training and inference, forward and backward, alone or with the ReLU (or
// other activation) that follows it fused in.
//
// A tensor of shape (Batch, Channels, Positions): BatchNorm2d has Positions = H·W, BatchNorm1d
// Positions = 1. Per channel c, over its M = Batch·Positions elements:
//   training   mean = Σx / M, var = Σ(x − mean)² / M (biased), inv = 1/√(var + ε)
//              y = act(γ·(x − mean)·inv + β)
//              running_mean = (1 − m)·running_mean + m·mean
//              running_var  = (1 − m)·running_var + m·var·M/(M − 1)   (unbiased, as PyTorch)
//   inference  y = act(γ·(x − running_mean)/√(running_var + ε) + β)
//   backward   d = act'(y)·dy;  x̂ = (x − mean)·inv
//              dβ = Σd,  dγ = Σ d·x̂
//              dx = γ·inv·(d − dβ/M − x̂·dγ/M)
// The batch statistics (mean and inv per channel) are what the plan saves beside the input.
//
// Reductions run one channel per call, in double, two-pass (mean first, then squared
// deviations): the same sums on every thread count, and no cancellation when the mean is large.
// Each keeps eight partial sums (position p of a plane into lane p mod 8, added up at the end),
// so the additions overlap instead of each waiting on the last; the order is fixed, so the bits
// are too.
//
// The element-wise passes come in two shapes: one element per call (a CUDA thread's work) and
// one (sample, channel) plane per call (the CPU's: the channel's constants loaded once, the row
// contiguous, no index divided per element); for BatchNorm1d, whose planes are single elements,
// the CPU runs a sample's row per call instead, and sums a block of channels at once. All compute
// each element with the same expression.
// Backward's first pass leaves d in dy (the fused activation's derivative applied in place) and
// the two sums in dβ and dγ (the gradient region, which no other layer writes), and its second
// pass reads them back: so the activation's output is read only before dx is written, which may
// reuse its bytes.
//
// x, y, dy and dx may be float, BF16 or F16 (low_precision.hpp): computed in float, stored rounded,
// as PyTorch's batch norm runs over bf16 input; a fused activation runs on the normalised value
// rounded to y's type and is rounded again, as autocast runs it, a layer of its own. The
// statistics, γ, β, their gradients and the running statistics are float (mixed precision keeps
// them so).
#include "staticnet/kernels/activations.hpp"
#include "staticnet/kernels/host_device.hpp"
#include "staticnet/kernels/low_precision.hpp"

namespace staticnet::kernels {

// The layer's constants, as literals: ε and the running statistics' momentum m.
struct BatchNormGeometry {
  index_t batch = 0, channels = 0, positions = 1;
  float epsilon = 1e-5f, momentum = 0.1f;

  STATICNET_HOST_DEVICE constexpr index_t per_channel() const { return batch * positions; }
  STATICNET_HOST_DEVICE constexpr index_t elements() const { return batch * channels * positions; }
  STATICNET_HOST_DEVICE constexpr index_t channel_of(index_t i) const {
    return (i / positions) % channels;
  }
};

// Eight partial sums in double, added up in a fixed order.
struct LaneSums {
  static constexpr index_t lanes = 8;
  double lane[lanes] = {};

  // Adds the N values f(0), ..., f(N − 1), value k into lane k mod 8.
  template <index_t N, class F>
  STATICNET_HD void add_row(F&& f) {
    constexpr index_t whole = N / lanes * lanes;
    for (index_t k = 0; k < whole; k += lanes)
      for (index_t l = 0; l < lanes; ++l)
        lane[l] += f(k + l);
    for (index_t l = 0; l < N - whole; ++l)
      lane[l] += f(whole + l);
  }
  STATICNET_HD double total() const {
    double t = 0.0;
    for (index_t l = 0; l < lanes; ++l)
      t += lane[l];
    return t;
  }
};

// Channel c's batch mean and (biased) variance, once summed: mean and 1/√(var + ε) into stats[c]
// and stats[C + c], and the running statistics (running[c] mean, running[C + c] variance)
// updated. Shared by the CPU's sums below and the GPU's block sums (staticnet/cuda/
// channel_sums.hpp).
template <BatchNormGeometry G>
STATICNET_HD void batch_norm_store_statistics(index_t c, double mean, double variance, float* stats,
                                              float* running) {
  stats[c] = static_cast<float>(mean);
  stats[G.channels + c] =
      static_cast<float>(1.0 / std::sqrt(variance + static_cast<double>(G.epsilon)));
  // M = 1 has no unbiased variance (PyTorch refuses such a batch): the biased one (0) is used.
  constexpr double count = static_cast<double>(G.per_channel());
  constexpr double bessel = count > 1 ? count / (count - 1) : 1.0;
  const float m = G.momentum;
  running[c] = (1.0f - m) * running[c] + m * static_cast<float>(mean);
  running[G.channels + c] =
      (1.0f - m) * running[G.channels + c] + m * static_cast<float>(variance * bessel);
}

// Training forward, part 1, one channel: the batch mean and 1/√(var + ε) into stats[c] and
// stats[C + c], and the running statistics (running[c] mean, running[C + c] variance) updated.
template <BatchNormGeometry G, class X>
STATICNET_HD void batch_norm_statistics(index_t c, const X* x, float* stats, float* running) {
  LaneSums sum;
  for (index_t n = 0; n < G.batch; ++n) {
    const X* plane = x + (n * G.channels + c) * G.positions;
    sum.add_row<G.positions>([&](index_t p) { return static_cast<double>(load(plane, p)); });
  }
  constexpr double count = static_cast<double>(G.per_channel());
  const double mean = sum.total() / count;
  LaneSums squares;
  for (index_t n = 0; n < G.batch; ++n) {
    const X* plane = x + (n * G.channels + c) * G.positions;
    squares.add_row<G.positions>([&](index_t p) {
      const double d = static_cast<double>(load(plane, p)) - mean;
      return d * d;
    });
  }
  batch_norm_store_statistics<G>(c, mean, squares.total() / count, stats, running);
}

// Training forward, part 2, one element: y = act(γ·(x − mean)·inv + β). x and y may not alias
// (backward reads x).
template <BatchNormGeometry G, class Act, class X, class Y>
STATICNET_HD void batch_norm_forward(index_t i, const X* x, const float* stats, const float* gamma,
                                     const float* beta, Y* y) {
  const index_t c = G.channel_of(i);
  store(y, i,
        Act::forward(
            round_to<Y>(gamma[c] * ((load(x, i) - stats[c]) * stats[G.channels + c]) + beta[c])));
}

// Inference forward, one element, from the running statistics.
template <BatchNormGeometry G, class Act, class X, class Y>
STATICNET_HD void batch_norm_inference(index_t i, const X* x, const float* running,
                                       const float* gamma, const float* beta, Y* y) {
  const index_t c = G.channel_of(i);
  const float inv = 1.0f / sqrt_f(running[G.channels + c] + G.epsilon);
  store(y, i, Act::forward(round_to<Y>(gamma[c] * ((load(x, i) - running[c]) * inv) + beta[c])));
}

// Backward, part 1, one channel: d = act'(y)·dy written back over dy, then dβ[c] += Σd and
// dγ[c] += Σ d·x̂. With Act = Identity, y is not read (pass nullptr: Y is then std::nullptr_t).
// Under gradient accumulation (sn::Accumulate) dγ and dβ also hold the earlier micro-batches'
// sums, so this micro-batch's are kept apart for part 2 as well: Σd in sums[c], Σ d·x̂ in
// sums[C + c] (the plan's statistics buffer, after the mean and 1/std); null otherwise.
template <BatchNormGeometry G, class Act, class X, class Y, class DY>
STATICNET_HD void batch_norm_backward_sums(index_t c, const X* x, Y y, const float* stats, DY* dy,
                                           float* dgamma, float* dbeta, float* sums = nullptr) {
  const float mean = stats[c], inv = stats[G.channels + c];
  LaneSums sum, dot;
  for (index_t n = 0; n < G.batch; ++n) {
    const index_t first = (n * G.channels + c) * G.positions;
    if constexpr (Act::reads_output)
      for (index_t p = first; p < first + G.positions; ++p)
        store(dy, p, Act::backward(saved_output<Act>(y, p), load(dy, p)));
    sum.add_row<G.positions>([&](index_t p) { return static_cast<double>(load(dy, first + p)); });
    dot.add_row<G.positions>([&](index_t p) {
      return static_cast<double>(load(dy, first + p)) *
             static_cast<double>((load(x, first + p) - mean) * inv);
    });
  }
  dbeta[c] += static_cast<float>(sum.total());
  dgamma[c] += static_cast<float>(dot.total());
  if (sums != nullptr) {
    sums[c] = static_cast<float>(sum.total());
    sums[G.channels + c] = static_cast<float>(dot.total());
  }
}

// Backward, part 2, one element: dx = γ·inv·(d − dβ/M − x̂·dγ/M), with d in dy and the sums in
// dβ and dγ (part 1's; the gradient region is zeroed before each step, so they hold exactly
// this layer's sums; under gradient accumulation the caller passes part 1's `sums` and
// `sums + C` instead). Accumulate adds to dx (another reader of x wrote its part already).
template <BatchNormGeometry G, bool Accumulate, class X, class DY, class DX>
STATICNET_HD void batch_norm_backward_input(index_t i, const X* x, const float* stats,
                                            const float* gamma, const DY* dy, const float* dgamma,
                                            const float* dbeta, DX* dx) {
  const index_t c = G.channel_of(i);
  constexpr float inv_count = 1.0f / static_cast<float>(G.per_channel());
  const float inv = stats[G.channels + c];
  const float x_hat = (load(x, i) - stats[c]) * inv;
  write<Accumulate>(
      dx, i,
      gamma[c] * inv * (load(dy, i) - dbeta[c] * inv_count - x_hat * (dgamma[c] * inv_count)));
}

// ---- one (sample, channel) plane per call (the CPU's) -------------------------------------------

template <BatchNormGeometry G, class Act, class X, class Y>
STATICNET_HD void batch_norm_forward_plane(index_t plane, const X* x, const float* stats,
                                           const float* gamma, const float* beta, Y* y) {
  const index_t c = plane % G.channels, first = plane * G.positions;
  const float mean = stats[c], inv = stats[G.channels + c], g = gamma[c], b = beta[c];
  for (index_t p = first; p < first + G.positions; ++p)
    store(y, p, Act::forward(round_to<Y>(g * ((load(x, p) - mean) * inv) + b)));
}

template <BatchNormGeometry G, class Act, class X, class Y>
STATICNET_HD void batch_norm_inference_plane(index_t plane, const X* x, const float* running,
                                             const float* gamma, const float* beta, Y* y) {
  const index_t c = plane % G.channels, first = plane * G.positions;
  const float mean = running[c], inv = 1.0f / sqrt_f(running[G.channels + c] + G.epsilon);
  const float g = gamma[c], b = beta[c];
  for (index_t p = first; p < first + G.positions; ++p)
    store(y, p, Act::forward(round_to<Y>(g * ((load(x, p) - mean) * inv) + b)));
}

template <BatchNormGeometry G, bool Accumulate, class X, class DY, class DX>
STATICNET_HD void batch_norm_backward_input_plane(index_t plane, const X* x, const float* stats,
                                                  const float* gamma, const DY* dy,
                                                  const float* dgamma, const float* dbeta, DX* dx) {
  const index_t c = plane % G.channels, first = plane * G.positions;
  constexpr float inv_count = 1.0f / static_cast<float>(G.per_channel());
  const float mean = stats[c], inv = stats[G.channels + c];
  const float scale = gamma[c] * inv, shift = dbeta[c] * inv_count;
  const float slope = dgamma[c] * inv_count;
  for (index_t p = first; p < first + G.positions; ++p) {
    const float x_hat = (load(x, p) - mean) * inv;
    write<Accumulate>(dx, p, scale * (load(dy, p) - shift - x_hat * slope));
  }
}

// ---- BatchNorm1d: one sample row, or one block of channels, per call (the CPU's) -------------
// With one position per channel a plane is a single element, so the plane-wise passes above
// would make a call, a division and four loads of the channel's constants per element. A row
// (one sample's C channels) is contiguous, and its loop over channels vectorises; the sums run
// over a block of channels at once, one accumulator per channel, adding the batch in order, as
// the lane sums do for one position (all of it lands in lane 0): the same bits.

// The channels a block of `Width` covers: [first, end).
template <BatchNormGeometry G, index_t Width>
struct ChannelBlock {
  static_assert(G.positions == 1, "row- and block-wise passes are for BatchNorm1d");
  index_t first, end;
  STATICNET_HD explicit ChannelBlock(index_t block)
      : first(block * Width), end(first + Width < G.channels ? first + Width : G.channels) {}
};

template <BatchNormGeometry G, index_t Width, class X>
STATICNET_HD void batch_norm_statistics_block(index_t block, const X* x, float* stats,
                                              float* running) {
  const ChannelBlock<G, Width> b(block);
  double sum[extent<Width>] = {}, squares[extent<Width>] = {}, mean[extent<Width>] = {};
  for (index_t n = 0; n < G.batch; ++n)
    for (index_t c = b.first; c < b.end; ++c)
      sum[c - b.first] += static_cast<double>(load(x, n * G.channels + c));
  constexpr double count = static_cast<double>(G.per_channel());
  for (index_t c = b.first; c < b.end; ++c)
    mean[c - b.first] = sum[c - b.first] / count;
  for (index_t n = 0; n < G.batch; ++n)
    for (index_t c = b.first; c < b.end; ++c) {
      const double d = static_cast<double>(load(x, n * G.channels + c)) - mean[c - b.first];
      squares[c - b.first] += d * d;
    }
  for (index_t c = b.first; c < b.end; ++c)
    batch_norm_store_statistics<G>(c, mean[c - b.first], squares[c - b.first] / count, stats,
                                   running);
}

template <BatchNormGeometry G, class Act, class X, class Y>
STATICNET_HD void batch_norm_forward_row(index_t n, const X* x, const float* stats,
                                         const float* gamma, const float* beta, Y* y) {
  static_assert(G.positions == 1, "row-wise passes are for BatchNorm1d");
  const float* const mean = stats;
  const float* const inv = stats + G.channels;
  const index_t first = n * G.channels;
  for (index_t c = 0; c < G.channels; ++c)
    store(
        y, first + c,
        Act::forward(round_to<Y>(gamma[c] * ((load(x, first + c) - mean[c]) * inv[c]) + beta[c])));
}

template <BatchNormGeometry G, class Act, class X, class Y>
STATICNET_HD void batch_norm_inference_row(index_t n, const X* x, const float* running,
                                           const float* gamma, const float* beta, Y* y) {
  static_assert(G.positions == 1, "row-wise passes are for BatchNorm1d");
  const index_t first = n * G.channels;
  for (index_t c = 0; c < G.channels; ++c) {
    const float inv = 1.0f / sqrt_f(running[G.channels + c] + G.epsilon);
    store(
        y, first + c,
        Act::forward(round_to<Y>(gamma[c] * ((load(x, first + c) - running[c]) * inv) + beta[c])));
  }
}

template <BatchNormGeometry G, class Act, index_t Width, class X, class Y, class DY>
STATICNET_HD void batch_norm_backward_sums_block(index_t block, const X* x, Y y, const float* stats,
                                                 DY* dy, float* dgamma, float* dbeta,
                                                 float* sums = nullptr) {
  const ChannelBlock<G, Width> b(block);
  double sum[extent<Width>] = {}, dot[extent<Width>] = {};
  for (index_t n = 0; n < G.batch; ++n)
    for (index_t c = b.first; c < b.end; ++c) {
      const index_t i = n * G.channels + c;
      if constexpr (Act::reads_output)
        store(dy, i, Act::backward(saved_output<Act>(y, i), load(dy, i)));
      const float mean = stats[c], inv = stats[G.channels + c];
      sum[c - b.first] += static_cast<double>(load(dy, i));
      dot[c - b.first] +=
          static_cast<double>(load(dy, i)) * static_cast<double>((load(x, i) - mean) * inv);
    }
  for (index_t c = b.first; c < b.end; ++c) {
    dbeta[c] += static_cast<float>(sum[c - b.first]);
    dgamma[c] += static_cast<float>(dot[c - b.first]);
    if (sums != nullptr) {  // as batch_norm_backward_sums keeps them
      sums[c] = static_cast<float>(sum[c - b.first]);
      sums[G.channels + c] = static_cast<float>(dot[c - b.first]);
    }
  }
}

template <BatchNormGeometry G, bool Accumulate, class X, class DY, class DX>
STATICNET_HD void batch_norm_backward_input_row(index_t n, const X* x, const float* stats,
                                                const float* gamma, const DY* dy,
                                                const float* dgamma, const float* dbeta, DX* dx) {
  static_assert(G.positions == 1, "row-wise passes are for BatchNorm1d");
  constexpr float inv_count = 1.0f / static_cast<float>(G.per_channel());
  const index_t first = n * G.channels;
  for (index_t c = 0; c < G.channels; ++c) {
    const float inv = stats[G.channels + c];
    const float x_hat = (load(x, first + c) - stats[c]) * inv;
    write<Accumulate>(
        dx, first + c,
        gamma[c] * inv *
            (load(dy, first + c) - dbeta[c] * inv_count - x_hat * (dgamma[c] * inv_count)));
  }
}

// ---- folded into the layer before it (inference) ------------------------------------------
// Under sn::Inference the plan folds a BatchNorm whose input nothing else reads into the
// convolution or Linear that produced it (as TensorFlow Lite's converter and PyTorch's
// fuse_conv_bn_eval do). With s = γ/√(running_var + ε), that layer's output channel c becomes
//   W'[c, ...] = W[c, ...]·s        shift[c] = β[c] + (b[c] − running_mean[c])·s   (b = 0 without
//   bias)
// and its forward adds shift[c] where it added its bias: the BatchNorm costs no pass of its own.
// Run once, after the weights are loaded, one output channel per call: the weights are scaled in
// place and the shift is written over β (the layer's own bias is read, not written), so a second
// call would fold twice. `WeightsPerChannel` is one output channel's weights (contiguous).
template <BatchNormGeometry G, index_t WeightsPerChannel>
STATICNET_HD void fold_batch_norm(index_t c, float* weight, const float* bias, const float* gamma,
                                  float* beta, const float* running) {
  const float s = gamma[c] / sqrt_f(running[G.channels + c] + G.epsilon);
  for (index_t e = c * WeightsPerChannel; e < (c + 1) * WeightsPerChannel; ++e)
    weight[e] *= s;
  const float b = bias != nullptr ? bias[c] : 0.0f;
  beta[c] += (b - running[c]) * s;
}

}  // namespace staticnet::kernels

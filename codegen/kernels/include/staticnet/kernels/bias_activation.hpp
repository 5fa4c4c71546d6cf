#pragma once
// Bias + activation after a Linear or Conv2d, fused into one pass over the output, and its
// backward. The product (a GEMM) leaves z = x·Wᵀ (or the convolution) in the output buffer; this
// pass never materialises z + b separately.
//
// Indexing: a (row, position) pair. A row is one sample's channel (conv: row = n·C + c over the
// Ho·Wo positions) or one sample (Linear: row = n, the positions are the Out features), so the
// channel of an element is known per row, and the CPU's inner loop over positions vectorises.
#include "staticnet/kernels/activations.hpp"
#include "staticnet/kernels/host_device.hpp"
#include "staticnet/kernels/low_precision.hpp"

namespace staticnet::kernels {

// Where a row's bias lives: conv rows cycle through the channels, Linear rows hold all of them.
enum class BiasAlong { rows, positions };

// y = act(z + b); z and y may be the same buffer.
template <class Act, BiasAlong Along, index_t Channels, index_t Positions, bool HasBias>
STATICNET_HD void bias_activation_forward(index_t row, index_t position, const float* z,
                                          const float* bias, float* y) {
  const index_t i = row * Positions + position;
  float v = z[i];
  if constexpr (HasBias)
    v += bias[Along == BiasAlong::rows ? row % Channels : position];
  y[i] = Act::forward(v);
}

// Mixed precision's products keep their sums in float a block at a time (cpu/widening_gemm.hpp):
// y[i] = act(z + b[channel]), z that float sum. As autocast runs them, the product's output is
// rounded to Y (the bias added before, in float, as the libraries add it) and the activation,
// a layer of its own there, runs on that and rounds again (for ReLU the same as rounding once).
// B is a pointer to the bias's working copy, or std::nullptr_t without a bias.
template <class Act, bool HasBias, class B, class Y>
STATICNET_HD void bias_activation_store(index_t i, float z, B bias, index_t channel, Y* y) {
  if constexpr (HasBias)
    z += load(bias, channel);
  store(y, i, Act::forward(round_to<Y>(z)));
}

// dz = act'(y) · dy (the activation's backward); dy and dz may be the same buffer. The bias
// gradient is a reduction over the same dz, done by the launcher (bias_gradient_* below).
// y, dy and dz float, BF16 or F16 (y may be nullptr where Act's backward does not read it).
template <class Act, index_t Positions, class Y, class DY, class DZ>
STATICNET_HD void activation_backward_2d(index_t row, index_t position, Y y, const DY* dy, DZ* dz) {
  const index_t i = row * Positions + position;
  store(dz, i, Act::backward(saved_output<Act>(y, i), load(dy, i)));
}

// db[c] += Σ over samples and positions of dz, for one channel c of a (Batch, Channels,
// Positions) tensor. Accumulates in double: the sums run over up to batch × Ho·Wo terms. dz
// float, BF16 or F16; under mixed precision the sum is rounded to the bias's working type
// `Working` before it is added (autocast's gradient is the working copy's).
template <index_t Batch, index_t Channels, index_t Positions, class Working = float, class DZ>
STATICNET_HD void bias_gradient_channels(index_t c, const DZ* dz, float* db) {
  double sum = 0.0;
  for (index_t n = 0; n < Batch; ++n) {
    const DZ* row = dz + (n * Channels + c) * Positions;
    float partial = 0.0f;  // one sample's plane in single precision, as a GEMM would
    for (index_t p = 0; p < Positions; ++p)
      partial += load(row, p);
    sum += static_cast<double>(partial);
  }
  db[c] += round_to<Working>(static_cast<float>(sum));
}

// db[o] += Σ over samples of dz[n][o], for one output feature o of a (Batch, Features) tensor.
template <index_t Batch, index_t Features>
STATICNET_HD void bias_gradient_features(index_t o, const float* dz, float* db) {
  double sum = 0.0;
  for (index_t n = 0; n < Batch; ++n)
    sum += static_cast<double>(dz[n * Features + o]);
  db[o] += static_cast<float>(sum);
}

// The two sums above for a range of channels or features at once (the CPU's, one range per
// thread). Each channel's or feature's additions run in the order above, so the bits are the
// same; what changes is that several run side by side. One channel's sum is a chain of dependent
// additions, each waiting for the last; eight interleaved keep the adder busy. A feature's sum
// walks a column of dz; a block of features walks rows, contiguous, and vectorises.
template <index_t Batch, index_t Channels, index_t Positions, class Working = float, class DZ>
STATICNET_HD void bias_gradient_channel_range(index_t begin, index_t end, const DZ* dz, float* db) {
  constexpr index_t block = 8;
  index_t c = begin;
  for (; c + block <= end; c += block) {
    double sum[block] = {};
    for (index_t n = 0; n < Batch; ++n) {
      const DZ* rows = dz + (n * Channels + c) * Positions;
      float partial[block] = {};
      for (index_t p = 0; p < Positions; ++p)
        for (index_t b = 0; b < block; ++b)
          partial[b] += load(rows, b * Positions + p);
      for (index_t b = 0; b < block; ++b)
        sum[b] += static_cast<double>(partial[b]);
    }
    for (index_t b = 0; b < block; ++b)
      db[c + b] += round_to<Working>(static_cast<float>(sum[b]));
  }
  for (; c < end; ++c)
    bias_gradient_channels<Batch, Channels, Positions, Working>(c, dz, db);
}

// The channel sums of block b of Width channels (the last may be shorter): the range's sums as a
// pass over blocks, which a thread pool splits as it splits any index space.
template <index_t Batch, index_t Channels, index_t Positions, index_t Width, class Working = float,
          class DZ>
STATICNET_HD void bias_gradient_channel_block(index_t b, const DZ* dz, float* db) {
  const index_t begin = b * Width;
  const index_t end = begin + Width < Channels ? begin + Width : Channels;
  bias_gradient_channel_range<Batch, Channels, Positions, Working>(begin, end, dz, db);
}

template <index_t Batch, index_t Features>
STATICNET_HD void bias_gradient_feature_range(index_t begin, index_t end, const float* dz,
                                              float* db) {
  constexpr index_t block = 64;
  for (index_t first = begin; first < end; first += block) {
    const index_t width = end - first < block ? end - first : block;
    double sum[block] = {};
    for (index_t n = 0; n < Batch; ++n)
      for (index_t o = 0; o < width; ++o)
        sum[o] += static_cast<double>(dz[n * Features + first + o]);
    for (index_t o = 0; o < width; ++o)
      db[first + o] += static_cast<float>(sum[o]);
  }
}

}  // namespace staticnet::kernels

#pragma once
// Sums over a whole batch on the GPU, one block per result: BatchNorm's per-channel statistics
// and backward sums, and a direct (grouped or depthwise) convolution's weight and bias gradients.
//
// The shared bodies (staticnet/kernels/) add one channel's or one weight's terms per call, in
// order, which suits a CPU thread: one GPU thread per channel would leave a few dozen threads of a
// GPU's tens of thousands each adding Batch·H·W terms in a row, reading memory a sample apart.
// Here a block of channel_threads threads shares the terms instead: thread t adds terms t,
// t + channel_threads, ... (neighbouring threads read neighbouring elements) in double, and the
// block combines its partial sums by a fixed tree (warp shuffles, then the warps' totals in
// order). No atomics: the same inputs give the same bits on every run. The CPU's bodies add in
// another fixed order, so the two backends agree to rounding, not to the bit.
//
// Device code and its launcher, for the generated NAME_kernels.cu (nvcc) only.
#include <cuda_runtime.h>

#include "staticnet/cuda/check.hpp"
#include "staticnet/cuda/launch.hpp"
#include "staticnet/kernels/activations.hpp"
#include "staticnet/kernels/batch_norm.hpp"
#include "staticnet/kernels/geometry.hpp"
#include "staticnet/kernels/host_device.hpp"
#include "staticnet/kernels/low_precision.hpp"

namespace staticnet::cuda {

using kernels::index_t;

// Threads per block of every kernel here; launch them with exactly this many.
inline constexpr int channel_threads = 256;
static_assert(channel_threads % 32 == 0 && channel_threads <= 1024);

// The block's total of every thread's `value`, returned to every thread. Called by all threads of
// a block of channel_threads (it synchronises them). T is double here; reductions.cu's bias
// gradients add in float.
template <class T>
__device__ T block_total(T value) {
  for (int offset = 16; offset > 0; offset /= 2)
    value += __shfl_down_sync(0xffffffffu, value, offset);
  __shared__ T warp_totals[channel_threads / 32];
  __shared__ T total;
  if (threadIdx.x % 32 == 0)
    warp_totals[threadIdx.x / 32] = value;
  __syncthreads();
  if (threadIdx.x == 0) {
    T t = 0;
    for (int w = 0; w < channel_threads / 32; ++w)
      t += warp_totals[w];
    total = t;
  }
  __syncthreads();
  const T result = total;
  __syncthreads();  // every thread has read it before another call writes the slots again
  return result;
}

// Σ term(j) over j in [0, Count), split among the block's threads as above; every thread gets it.
template <index_t Count, class Term>
__device__ double block_sum(Term&& term) {
  double sum = 0.0;
  for (index_t j = threadIdx.x; j < Count; j += channel_threads)
    sum += term(j);
  return block_total(sum);
}

// Index j of channel c's Batch·Positions elements in a (Batch, Channels, Positions) tensor.
template <index_t Channels, index_t Positions>
__device__ index_t channel_element(index_t c, index_t j) {
  return (j / Positions * Channels + c) * Positions + j % Positions;
}

// The sums themselves, one result per block: the block's threads all call one with the index of the
// result, as the generated code does through for_each_block below:
// g::per_block::batch_norm_statistics<norm_1>(c, x, stats, running).
namespace per_block {

// BatchNorm, training forward, part 1, channel c: kernels::batch_norm_statistics' mean and
// 1/√(var + ε), and the running statistics' update, two-pass in double as there.
// x may be float, BF16 or F16 (as the shared bodies' tensors).
template <kernels::BatchNormGeometry G, class X>
__device__ void batch_norm_statistics(index_t c, const X* x, float* stats, float* running) {
  constexpr index_t count = G.per_channel();
  auto at = [c](index_t j) { return channel_element<G.channels, G.positions>(c, j); };
  const double mean =
      block_sum<count>([&](index_t j) { return static_cast<double>(kernels::load(x, at(j))); }) /
      count;
  const double squares = block_sum<count>([&](index_t j) {
    const double d = kernels::load(x, at(j)) - mean;
    return d * d;
  });
  if (threadIdx.x == 0)
    kernels::batch_norm_store_statistics<G>(c, mean, squares / count, stats, running);
}

// BatchNorm, backward, part 1, channel c: kernels::batch_norm_backward_sums' d = act'(y)·dy left
// in dy (each element by one thread), Σd into dβ and Σ d·x̂ into dγ, and where `sums` is given
// (gradient accumulation) this micro-batch's two sums into it too, as that function keeps them.
// y is a pointer, or nullptr (std::nullptr_t) where the activation's backward does not read it.
template <kernels::BatchNormGeometry G, class Act, class X, class Y, class DY>
__device__ void batch_norm_backward_sums(index_t c, const X* x, Y y, const float* stats, DY* dy,
                                         float* dgamma, float* dbeta, float* sums = nullptr) {
  const float mean = stats[c], inv = stats[G.channels + c];
  double sum = 0.0, dot = 0.0;
  for (index_t j = threadIdx.x; j < G.per_channel(); j += channel_threads) {
    const index_t i = channel_element<G.channels, G.positions>(c, j);
    if constexpr (Act::reads_output)
      kernels::store(dy, i, Act::backward(kernels::saved_output<Act>(y, i), kernels::load(dy, i)));
    const float d = kernels::load(dy, i);
    sum += static_cast<double>(d);
    dot += static_cast<double>(d) * ((kernels::load(x, i) - mean) * inv);
  }
  sum = block_total(sum);
  dot = block_total(dot);
  if (threadIdx.x == 0) {
    dbeta[c] += static_cast<float>(sum);
    dgamma[c] += static_cast<float>(dot);
    if (sums != nullptr) {
      sums[c] = static_cast<float>(sum);
      sums[G.channels + c] = static_cast<float>(dot);
    }
  }
}

// A direct convolution's weight gradient, weight element e of (Co, Ci/groups, KH, KW):
// kernels::grouped_conv_backward_weight's Σ over samples and output positions of dy · x.
template <kernels::Conv2dGeometry G>
__device__ void grouped_conv_backward_weight(index_t e, const float* x, const float* dy,
                                             float* dw) {
  const index_t kw = e % G.kernel_w, kh = (e / G.kernel_w) % G.kernel_h;
  const index_t ci = (e / (G.kernel_h * G.kernel_w)) % G.group_inputs();
  const index_t co = e / (G.group_inputs() * G.kernel_h * G.kernel_w);
  const index_t c = co / G.group_outputs() * G.group_inputs() + ci;
  const double sum = block_sum<G.batch * G.positions()>([&](index_t j) {
    const index_t n = j / G.positions(), oh = j % G.positions() / G.out_width, ow = j % G.out_width;
    const index_t ih = oh * G.stride_h - G.pad_h + kh, iw = ow * G.stride_w - G.pad_w + kw;
    if (ih < 0 || ih >= G.in_height || iw < 0 || iw >= G.in_width)
      return 0.0;
    return static_cast<double>(
        dy[n * G.output_sample() + co * G.positions() + j % G.positions()] *
        x[n * G.input_sample() + c * G.input_plane() + ih * G.in_width + iw]);
  });
  if (threadIdx.x == 0)
    dw[e] += static_cast<float>(sum);
}

// A bias gradient along channels, channel c of a (Batch, Channels, Positions) tensor:
// kernels::bias_gradient_channels' Σ over samples and positions of dz.
template <index_t Batch, index_t Channels, index_t Positions>
__device__ void bias_gradient_channels(index_t c, const float* dz, float* db) {
  const double sum = block_sum<Batch * Positions>([&](index_t j) {
    return static_cast<double>(dz[channel_element<Channels, Positions>(c, j)]);
  });
  if (threadIdx.x == 0)
    db[c] += static_cast<float>(sum);
}

}  // namespace per_block

namespace detail {

template <index_t Count, class Body, class... Tensors>
__global__ void __launch_bounds__(channel_threads)
    for_each_block_kernel(Body body, kernel_argument<Tensors>... tensors) {
  body(index_t{blockIdx.x}, pointer(tensors)...);
}

}  // namespace detail

// body(b, tensors...) for every b in [0, Count), each by a whole block of channel_threads threads
// (which all call it, as the per_block sums above require), on `stream`; the tensors as
// staticnet/cuda/launch.hpp's for_each passes them. `what` names the pass in a launch error.
template <index_t Count, class Body, class... Tensors>
void for_each_block(cudaStream_t stream, const char* what, Body body, Tensors... tensors) {
  static_assert(Count > 0, "an empty pass launches nothing; the generator emits none");
  detail::for_each_block_kernel<Count, Body, Tensors...>
      <<<Count, channel_threads, 0, stream>>>(body, tensors...);
  check_launch(what);
}

}  // namespace staticnet::cuda

#include "staticnet/cuda/reductions.hpp"

#include "staticnet/cuda/channel_sums.hpp"
#include "staticnet/cuda/check.hpp"

namespace staticnet::cuda {
namespace {

__global__ void __launch_bounds__(channel_threads)
    bias_gradient_channels_kernel(const float* __restrict__ dz, float* __restrict__ db,
                                  std::int64_t batch, std::int64_t channels,
                                  std::int64_t positions) {
  const std::int64_t c = blockIdx.x;
  float sum = 0.0f;
  for (std::int64_t n = 0; n < batch; ++n) {
    const float* plane = dz + (n * channels + c) * positions;
    for (std::int64_t p = threadIdx.x; p < positions; p += channel_threads)
      sum += plane[p];
  }
  // The block's partial sums, always in the same order.
  const float total = block_total(sum);
  if (threadIdx.x == 0)
    db[c] += total;
}

__global__ void bias_gradient_features_kernel(const float* __restrict__ dz, float* __restrict__ db,
                                              std::int64_t batch, std::int64_t features) {
  const std::int64_t o = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (o >= features)
    return;
  float sum = 0.0f;
  for (std::int64_t n = 0; n < batch; ++n)
    sum += dz[n * features + o];
  db[o] += sum;
}

}  // namespace

void bias_gradient_channels(const float* dz, float* db, std::int64_t batch, std::int64_t channels,
                            std::int64_t positions, cudaStream_t stream) {
  bias_gradient_channels_kernel<<<static_cast<unsigned>(channels), channel_threads, 0, stream>>>(
      dz, db, batch, channels, positions);
  check_launch("bias_gradient_channels");
}

void bias_gradient_features(const float* dz, float* db, std::int64_t batch, std::int64_t features,
                            cudaStream_t stream) {
  bias_gradient_features_kernel<<<blocks_for(features), block_threads, 0, stream>>>(dz, db, batch,
                                                                                    features);
  check_launch("bias_gradient_features");
}

}  // namespace staticnet::cuda

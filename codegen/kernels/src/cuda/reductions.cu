#include "staticnet/cuda/reductions.hpp"

#include "staticnet/cuda/check.hpp"

namespace staticnet::cuda {
namespace {

constexpr int reduce_threads = 256;

__global__ void bias_gradient_channels_kernel(const float* __restrict__ dz, float* __restrict__ db,
                                              std::int64_t batch, std::int64_t channels,
                                              std::int64_t positions) {
  const std::int64_t c = blockIdx.x;
  float sum = 0.0f;
  for (std::int64_t n = 0; n < batch; ++n) {
    const float* plane = dz + (n * channels + c) * positions;
    for (std::int64_t p = threadIdx.x; p < positions; p += reduce_threads)
      sum += plane[p];
  }
  // The block's 256 partial sums: within each warp by shuffles, then the 8 warps' in shared
  // memory, always in the same order.
  for (int offset = 16; offset > 0; offset /= 2)
    sum += __shfl_down_sync(0xffffffffu, sum, offset);
  __shared__ float warp_sums[reduce_threads / 32];
  if (threadIdx.x % 32 == 0)
    warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int w = 0; w < reduce_threads / 32; ++w)
      total += warp_sums[w];
    db[c] = total;
  }
}

__global__ void bias_gradient_features_kernel(const float* __restrict__ dz, float* __restrict__ db,
                                              std::int64_t batch, std::int64_t features) {
  const std::int64_t o = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (o >= features)
    return;
  float sum = 0.0f;
  for (std::int64_t n = 0; n < batch; ++n)
    sum += dz[n * features + o];
  db[o] = sum;
}

}  // namespace

void bias_gradient_channels(const float* dz, float* db, std::int64_t batch, std::int64_t channels,
                            std::int64_t positions, cudaStream_t stream) {
  bias_gradient_channels_kernel<<<static_cast<unsigned>(channels), reduce_threads, 0, stream>>>(
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

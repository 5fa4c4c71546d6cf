#pragma once
// The bias gradients as reductions on the GPU. The shared bodies (staticnet/kernels/
// bias_activation.hpp) sum one channel per call, which suits a CPU thread; on the GPU a channel's
// Batch × Ho·Wo terms are summed by a whole block instead. Each block adds in a fixed order, so
// the same inputs give the same bits (no atomics). Both add to db, as every gradient of a step
// does: the step zeroes the gradients first, and under gradient accumulation (sn::Accumulate)
// each micro-batch adds its part.
#include <cuda_runtime.h>

#include <cstdint>

namespace staticnet::cuda {

// db[c] += Σ over n and positions of dz[n][c][position], for a (batch, channels, positions)
// tensor: one block per channel.
void bias_gradient_channels(const float* dz, float* db, std::int64_t batch, std::int64_t channels,
                            std::int64_t positions, cudaStream_t stream);

// db[o] += Σ over n of dz[n][o], for a (batch, features) tensor: one thread per feature.
void bias_gradient_features(const float* dz, float* db, std::int64_t batch, std::int64_t features,
                            cudaStream_t stream);

}  // namespace staticnet::cuda

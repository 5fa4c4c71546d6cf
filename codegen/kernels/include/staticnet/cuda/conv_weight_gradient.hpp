#pragma once
// A convolution's weight and bias gradients in one pass over d(output), deterministic:
//
//   dW[k][c][r][s] = Σ over n, y, x of dz[n][k][y][x] · x[n][c][y·stride + r − pad][x·stride + s −
//   pad] db[k]          = Σ over n, y, x of dz[n][k][y][x]
//
// Why our own kernel: for the small convolutions of edge models (SimpleCNN's 3→16 3×3 has 432
// weights, each a sum of 131,072 products), the exact-FP32 deterministic cuDNN engines that fit
// the plan's workspace are slow, and the fast ones add their partial sums with atomics (measured
// on an H100 by bench/cuda_step/conv_engines.cpp; bench/RESULTS.md has the table). Here each
// block sums a tile of filters × weights over a fixed chunk of the batch's positions into the
// plan's workspace, and a second pass adds the chunks in order: the same inputs give the same
// bits on every run, as --resume needs.
//
// The workspace bounds the number of chunks; when that leaves long chunks (few blocks, each
// summing many positions), cuDNN's engines win. preferred() says which; Convolution asks it.
#include <cuda_runtime.h>

#include <cstdint>

#include "staticnet/kernels/geometry.hpp"

namespace staticnet::cuda {

class ConvWeightGradient {
 public:
  // Chooses how many chunks the positions are split into: as many as the workspace holds partial
  // sums for (up to what fills the GPU), or 1, when the sums go straight to dW and db.
  ConvWeightGradient(const kernels::Conv2dGeometry& geometry, std::int64_t workspace_bytes);

  // Whether this pass beats cuDNN's allowed engines here: no more than 4,096 positions per
  // chunk (measured: bench/RESULTS.md, "CUDA convolution weight gradients"), and tensors small
  // enough for its 32-bit indices (run() refuses larger ones).
  bool preferred() const;
  // Whether it can run here at all: every tensor under 2^31 elements.
  bool usable() const { return indices_fit_; }

  // Adds to dw (out_channels × in_channels × kernel_h × kernel_w) and, when db is not null, db
  // (out_channels), as every gradient of a step is added to (the step zeroes them first; under
  // sn::Accumulate each micro-batch adds its part). Each element has one writer: no atomics.
  void run(const float* x, const float* dz, float* dw, float* db, void* workspace,
           cudaStream_t stream) const;

  std::int64_t chunks() const { return chunks_; }

 private:
  kernels::Conv2dGeometry g_;
  std::int64_t chunks_ = 1;
  bool indices_fit_ = true;  // every tensor under 2^31 elements
};

}  // namespace staticnet::cuda

#pragma once
// The library handles a CUDA training step uses, bound to its stream: one cuBLASLt handle (the
// Linear products) and one cuDNN handle (the convolutions). Made once when the step is set up;
// creating them is where cuDNN and cuBLASLt load their kernels and take their own device memory,
// which the trainer reports beside the arena (MemoryReport::other).
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <cudnn.h>

namespace staticnet::cuda {

// Which backward passes a product (Convolution, LinearProduct) sets up with its forward: a
// trainer's first layer needs no input gradient, an inference program no backward at all (and
// has no gradient buffers to bind).
enum class Gradients { none, weights, weights_and_input };

class Libraries {
 public:
  explicit Libraries(cudaStream_t stream);
  ~Libraries();
  Libraries(const Libraries&) = delete;
  Libraries& operator=(const Libraries&) = delete;

  cudaStream_t stream() const { return stream_; }
  cublasLtHandle_t blas() const { return blas_; }
  cudnnHandle_t dnn() const { return dnn_; }

 private:
  void release() noexcept;

  cudaStream_t stream_;
  cublasLtHandle_t blas_ = nullptr;
  cudnnHandle_t dnn_ = nullptr;
};

}  // namespace staticnet::cuda

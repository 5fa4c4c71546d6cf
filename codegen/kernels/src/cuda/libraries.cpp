#include "staticnet/cuda/libraries.hpp"

#include "library_checks.hpp"

namespace staticnet::cuda {

Libraries::Libraries(cudaStream_t stream) : stream_(stream) {
  check(cublasLtCreate(&blas_), "cublasLtCreate");
  check(cudnnCreate(&dnn_), "cudnnCreate");
  check(cudnnSetStream(dnn_, stream_), "cudnnSetStream");
}

Libraries::~Libraries() {
  if (dnn_)
    cudnnDestroy(dnn_);
  if (blas_)
    cublasLtDestroy(blas_);
}

}  // namespace staticnet::cuda

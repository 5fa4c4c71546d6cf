#include "staticnet/cuda/libraries.hpp"

#include <utility>

#include "library_checks.hpp"

namespace staticnet::cuda {

Libraries::Libraries(cudaStream_t stream) : stream_(stream) {
  try {
    check(cublasLtCreate(&blas_), "cublasLtCreate");
    check(cudnnCreate(&dnn_), "cudnnCreate");
    check(cudnnSetStream(dnn_, stream_), "cudnnSetStream");
  } catch (...) {
    release();  // the destructor does not run for an object whose constructor threw
    throw;
  }
}

Libraries::~Libraries() {
  release();
}

void Libraries::release() noexcept {
  if (dnn_)
    cudnnDestroy(std::exchange(dnn_, nullptr));
  if (blas_)
    cublasLtDestroy(std::exchange(blas_, nullptr));
}

}  // namespace staticnet::cuda

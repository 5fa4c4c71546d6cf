#pragma once
// check() for cuBLASLt and cuDNN status codes (staticnet/cuda/check.hpp has the CUDA one).
#include <cublasLt.h>
#include <cudnn.h>

#include <string>

#include "staticnet/cuda/check.hpp"

namespace staticnet::cuda {

inline void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw Error(std::string(what) + ": " + cublasLtGetStatusName(status) + " (" +
                cublasLtGetStatusString(status) + ")");
}

inline void check(cudnnStatus_t status, const char* what) {
  if (status != CUDNN_STATUS_SUCCESS)
    throw Error(std::string(what) + ": " + cudnnGetErrorString(status));
}

}  // namespace staticnet::cuda

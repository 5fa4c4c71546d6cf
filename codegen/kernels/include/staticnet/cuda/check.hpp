#pragma once
// Every CUDA, cuBLASLt and cuDNN call of the CUDA backend goes through check(): a failure throws
// staticnet::cuda::Error naming the call and the library's own words, so a trainer stops with a
// message instead of computing on garbage. Kernel launches are followed by check_launch(), which
// reads cudaGetLastError (a bad launch configuration is reported there, not by the launch).
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace staticnet::cuda {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw Error(std::string(what) + ": " + cudaGetErrorName(status) + " (" +
                cudaGetErrorString(status) + ")");
}

inline void check_launch(const char* kernel) {
  check(cudaGetLastError(), kernel);
}

// Why no CUDA device can be used here, in CUDA's words ("cudaErrorNoDevice: no CUDA-capable
// device is detected"; a driver missing or older than the runtime has its own), or "" where one
// can. The GPU tests report themselves skipped with it, and the programs stop with it, so that a
// GPU machine whose driver does not fit says so rather than look like a machine without a GPU.
inline std::string device_unavailable_reason() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();  // not left behind for the next check_launch() to report
    return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
  }
  return count > 0 ? "" : "the driver lists no devices";
}

// Bytes in use on the current device (cudaMemGetInfo's total − free): read before and after a
// stage, the difference is what that stage took.
inline long long device_memory_in_use() {
  std::size_t free = 0, total = 0;
  check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
  return static_cast<long long>(total - free);
}

// Threads per block of the elementwise kernels, and the blocks that cover `count` indices.
inline constexpr int block_threads = 256;
constexpr unsigned blocks_for(long long count) {
  return static_cast<unsigned>((count + block_threads - 1) / block_threads);
}

}  // namespace staticnet::cuda

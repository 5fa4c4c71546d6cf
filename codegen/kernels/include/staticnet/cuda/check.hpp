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

// True for the errors of a kernel that failed while it ran (a bad address, a trap, a timeout).
// CUDA reports them at whatever call comes next, and from then on at every call: the context is
// lost, so the call that reports one is seldom the one that caused it.
constexpr bool failed_while_running(cudaError_t status) {
  switch (status) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorECCUncorrectable:
      return true;
    default:
      return false;
  }
}

// "<what>: <CUDA's name> (<CUDA's words>)", and for a kernel that failed while it ran, how to find
// that kernel.
inline std::string describe(cudaError_t status, const char* what) {
  std::string message =
      std::string(what) + ": " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")";
  if (failed_while_running(status))
    message +=
        ". A kernel failed while it ran, and CUDA reported it here, not necessarily where it "
        "happened. To name the kernel, run again with STATICNET_CUDA_GRAPHS=0 "
        "CUDA_LAUNCH_BLOCKING=1 in the environment, or under compute-sanitizer";
  return message;
}

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw Error(describe(status, what));
}

// After a launch: a bad configuration is this kernel's; an earlier kernel's failure, reported
// here, says so (describe()).
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

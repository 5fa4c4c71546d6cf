// staticnet::cuda::check's messages, which need no device: CUDA names its errors without one.
// A kernel that fails while it runs is reported at some later call, so its message must say
// how to find the kernel; a launch's own error must not send the user looking elsewhere.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <string>

#include <staticnet/cuda/check.hpp>

namespace cuda = staticnet::cuda;

namespace {

std::string thrown_by(cudaError_t status, const char* what) {
  try {
    cuda::check(status, what);
  } catch (const cuda::Error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("check: success throws nothing") {
  CHECK_NOTHROW(cuda::check(cudaSuccess, "cudaMalloc"));
}

TEST_CASE("check: a launch's own error names the call and CUDA's words, and nothing more") {
  const std::string message = thrown_by(cudaErrorInvalidConfiguration, "forward_0_kernel");
  CHECK(message ==
        "forward_0_kernel: cudaErrorInvalidConfiguration (invalid configuration "
        "argument)");
}

TEST_CASE("check: a kernel that failed while it ran says how to find it") {
  for (const cudaError_t status :
       {cudaErrorIllegalAddress, cudaErrorMisalignedAddress, cudaErrorLaunchFailure,
        cudaErrorAssert, cudaErrorLaunchTimeout}) {
    const std::string message = thrown_by(status, "running the step");
    CAPTURE(message);
    CHECK(message.starts_with(std::string("running the step: ") + cudaGetErrorName(status)));
    CHECK(contains(message, "not necessarily where it happened"));
    CHECK(contains(message, "STATICNET_CUDA_GRAPHS=0 CUDA_LAUNCH_BLOCKING=1"));
    CHECK(contains(message, "compute-sanitizer"));
  }
}

TEST_CASE("check: errors of setup and memory are not blamed on a kernel") {
  for (const cudaError_t status :
       {cudaErrorMemoryAllocation, cudaErrorInvalidValue, cudaErrorNoDevice,
        cudaErrorInsufficientDriver, cudaErrorNoKernelImageForDevice}) {
    CAPTURE(cudaGetErrorName(status));
    CHECK_FALSE(cuda::failed_while_running(status));
    CHECK_FALSE(contains(thrown_by(status, "cudaMalloc"), "CUDA_LAUNCH_BLOCKING"));
  }
}

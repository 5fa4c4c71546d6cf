#pragma once
// The arithmetic both backends run. Every function marked STATICNET_HD is written once and
//   * on the CPU, called by a loop over an index range (staticnet/cpu/launch.hpp);
//   * on the GPU, called by one CUDA thread per index (the CUDA backend's kernels).
// So the CPU tests (finite differences, PyTorch fixtures) check the arithmetic the GPU runs, and a
// CPU-against-GPU comparison checks only launch and indexing.
//
// Rules for such a function: pure arithmetic over an index and raw pointers; sizes are template
// arguments (literals at every call the generator emits); no allocation, no exceptions, and only
// the math functions below, which exist on both sides.
#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define STATICNET_HD __host__ __device__ __forceinline__
#else
#define STATICNET_HD inline
#endif

namespace staticnet::kernels {

using index_t = std::int64_t;

// Single-precision math that is the same function on host and device: std:: on the host,
// the CUDA math library's single-precision entry points on the device.
STATICNET_HD float exp_f(float x) {
#if defined(__CUDA_ARCH__)
  return ::expf(x);
#else
  return std::exp(x);
#endif
}
STATICNET_HD float log_f(float x) {
#if defined(__CUDA_ARCH__)
  return ::logf(x);
#else
  return std::log(x);
#endif
}
STATICNET_HD float tanh_f(float x) {
#if defined(__CUDA_ARCH__)
  return ::tanhf(x);
#else
  return std::tanh(x);
#endif
}
STATICNET_HD float sqrt_f(float x) {
#if defined(__CUDA_ARCH__)
  return ::sqrtf(x);
#else
  return std::sqrt(x);
#endif
}

}  // namespace staticnet::kernels

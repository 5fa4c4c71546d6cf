// The kernels behind low_precision_launch.hpp: one thread per value, ours and CUDA's conversion
// side by side.
#include "low_precision_launch.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstring>

#include <staticnet/cuda/check.hpp>
#include <staticnet/kernels/low_precision.hpp>

namespace low_precision_test {
namespace {

namespace g = staticnet::cuda;
namespace k = staticnet::kernels;

// A device array of n values of T, copied back into a vector on request.
template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(std::size_t n) : n_(n) {
    g::check(cudaMalloc(reinterpret_cast<void**>(&data_), n * sizeof(T)), "cudaMalloc");
  }
  ~DeviceArray() { cudaFree(data_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* get() const { return data_; }
  std::vector<T> copy_back() const {
    std::vector<T> host(n_);
    g::check(cudaDeviceSynchronize(), "running the kernel");
    g::check(cudaMemcpy(host.data(), data_, n_ * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return host;
  }

 private:
  std::size_t n_;
  T* data_ = nullptr;
};

__global__ void round_kernel(const float* x, std::size_t n, std::uint16_t* bf16, std::uint16_t* f16,
                             std::uint16_t* cuda_bf16, std::uint16_t* cuda_f16) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i >= n)
    return;
  bf16[i] = k::bf16_bits(x[i]);
  f16[i] = k::f16_bits(x[i]);
  cuda_bf16[i] = __bfloat16_as_ushort(__float2bfloat16_rn(x[i]));
  cuda_f16[i] = __half_as_ushort(__float2half_rn(x[i]));
}

__global__ void widen_kernel(float* bf16, float* f16, float* cuda_bf16, float* cuda_f16) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0xffffu)
    return;
  const auto bits = static_cast<std::uint16_t>(i);
  bf16[i] = k::bf16_value(bits);
  f16[i] = k::f16_value(bits);
  cuda_bf16[i] = __bfloat162float(__ushort_as_bfloat16(bits));
  cuda_f16[i] = __half2float(__ushort_as_half(bits));
}

}  // namespace

Rounded round_on_device(const std::vector<float>& x) {
  DeviceArray<float> input(x.size());
  g::check(cudaMemcpy(input.get(), x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice),
           "cudaMemcpy");
  DeviceArray<std::uint16_t> bf16(x.size()), f16(x.size()), cuda_bf16(x.size()), cuda_f16(x.size());
  const auto blocks = static_cast<unsigned>((x.size() + 255) / 256);
  round_kernel<<<blocks, 256>>>(input.get(), x.size(), bf16.get(), f16.get(), cuda_bf16.get(),
                                cuda_f16.get());
  g::check_launch("round_kernel");
  return {bf16.copy_back(), f16.copy_back(), cuda_bf16.copy_back(), cuda_f16.copy_back()};
}

Widened widen_on_device() {
  DeviceArray<float> bf16(65536), f16(65536), cuda_bf16(65536), cuda_f16(65536);
  widen_kernel<<<256, 256>>>(bf16.get(), f16.get(), cuda_bf16.get(), cuda_f16.get());
  g::check_launch("widen_kernel");
  return {bf16.copy_back(), f16.copy_back(), cuda_bf16.copy_back(), cuda_f16.copy_back()};
}

}  // namespace low_precision_test

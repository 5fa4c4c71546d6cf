#pragma once
// staticnet/kernels/low_precision.hpp's conversions run on the GPU beside CUDA's own
// (__float2bfloat16_rn, __float2half_rn, __bfloat162float, __half2float), for
// test_low_precision_cuda.cpp (the kernels are low_precision_launch.cu).
#include <cstdint>
#include <vector>

namespace low_precision_test {

// Each float to bf16 and f16, by staticnet's functions and by CUDA's.
struct Rounded {
  std::vector<std::uint16_t> bf16, f16, cuda_bf16, cuda_f16;
};
Rounded round_on_device(const std::vector<float>& x);

// Each of the 65,536 bit patterns as a bf16 and as an f16, to float, by staticnet's functions and
// by CUDA's.
struct Widened {
  std::vector<float> bf16, f16, cuda_bf16, cuda_f16;
};
Widened widen_on_device();

}  // namespace low_precision_test

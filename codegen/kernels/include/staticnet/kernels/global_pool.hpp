#pragma once
// Global average pooling, (N, C, H, W) → (N, C): each plane's mean, and backward its gradient
// spread evenly over the plane. Forward sums one plane per call in double; backward writes each
// input element once (a gather), so no zeroing and no atomics.
#include "staticnet/kernels/host_device.hpp"

namespace staticnet::kernels {

// y[plane] = Σ x[plane][·] / Positions, plane = n·C + c.
template <index_t Positions>
STATICNET_HD void global_avg_pool_forward(index_t plane, const float* x, float* y) {
  const float* in = x + plane * Positions;
  double sum = 0.0;
  for (index_t p = 0; p < Positions; ++p)
    sum += static_cast<double>(in[p]);
  y[plane] = static_cast<float>(sum / static_cast<double>(Positions));
}

// dx[j] = dy[plane of j] / Positions; Accumulate adds to dx.
template <index_t Positions, bool Accumulate>
STATICNET_HD void global_avg_pool_backward(index_t j, const float* dy, float* dx) {
  const float v = dy[j / Positions] / static_cast<float>(Positions);
  if constexpr (Accumulate)
    dx[j] += v;
  else
    dx[j] = v;
}

}  // namespace staticnet::kernels

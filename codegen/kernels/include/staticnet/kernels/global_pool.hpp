#pragma once
// Global average pooling, (N, C, H, W) → (N, C): each plane's mean, and backward its gradient
// spread evenly over the plane. Forward sums one plane per call in double; backward writes each
// input element once (a gather), so no zeroing and no atomics.
#include "staticnet/kernels/host_device.hpp"
#include "staticnet/kernels/low_precision.hpp"

namespace staticnet::kernels {

// y[plane] = Σ x[plane][·] / Positions, plane = n·C + c.
// x and y float, BF16 or F16.
template <index_t Positions, class X, class Y>
STATICNET_HD void global_avg_pool_forward(index_t plane, const X* x, Y* y) {
  const X* in = x + plane * Positions;
  double sum = 0.0;
  for (index_t p = 0; p < Positions; ++p)
    sum += static_cast<double>(load(in, p));
  store(y, plane, static_cast<float>(sum / static_cast<double>(Positions)));
}

// dx[j] = dy[plane of j] / Positions; Accumulate adds to dx.
template <index_t Positions, bool Accumulate, class DY, class DX>
STATICNET_HD void global_avg_pool_backward(index_t j, const DY* dy, DX* dx) {
  write<Accumulate>(dx, j, load(dy, j / Positions) / static_cast<float>(Positions));
}

}  // namespace staticnet::kernels

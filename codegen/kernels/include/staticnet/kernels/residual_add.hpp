#pragma once
// The sum that closes a residual block, y = act(a + b), with the activation that follows it
// fused in (the ReLU after every ResNet block), and its backward. y may be a's or b's buffer
// (the plan runs the sum in place when nothing reads that input later).
//
// Backward: d = act'(y)·dy is written back over dy; then each input's gradient is d itself (the
// plan passes the buffer through: nothing to do), a copy of d, or d added to what another reader
// of that input wrote first.
#include "staticnet/kernels/activations.hpp"
#include "staticnet/kernels/host_device.hpp"

namespace staticnet::kernels {

template <class Act>
STATICNET_HD void residual_add_forward(index_t i, const float* a, const float* b, float* y) {
  y[i] = Act::forward(a[i] + b[i]);
}

// How an input's gradient is written from d.
enum class GradientWrite { same_buffer, copy, accumulate };

template <GradientWrite W>
STATICNET_HD void write_gradient(index_t i, const float* d, float* dx) {
  if constexpr (W == GradientWrite::copy)
    dx[i] = d[i];
  else if constexpr (W == GradientWrite::accumulate)
    dx[i] += d[i];
}

template <class Act, GradientWrite First, GradientWrite Second>
STATICNET_HD void residual_add_backward(index_t i, const float* y, float* dy, float* da,
                                        float* db) {
  if constexpr (Act::reads_output)
    dy[i] = Act::backward(y[i], dy[i]);
  write_gradient<First>(i, dy, da);
  write_gradient<Second>(i, dy, db);
}

}  // namespace staticnet::kernels

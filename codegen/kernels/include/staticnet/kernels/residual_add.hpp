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
#include "staticnet/kernels/low_precision.hpp"

namespace staticnet::kernels {

// a, b and y each float, BF16 or F16: a bf16 and an f32 input sum to f32 (the plan's typing).
// The sum is rounded to y's type before the fused activation and again after, as autocast runs
// the activation, a layer of its own.
template <class Act, class A, class B, class Y>
STATICNET_HD void residual_add_forward(index_t i, const A* a, const B* b, Y* y) {
  store(y, i, Act::forward(round_to<Y>(load(a, i) + load(b, i))));
}

// How an input's gradient is written from d.
enum class GradientWrite { same_buffer, copy, accumulate };

// A copy converts where dx's type is narrower than d's (the gradient of an Add's bf16 input).
// DX is a pointer to float, BF16 or F16, or std::nullptr_t where W writes nothing (same_buffer).
template <GradientWrite W, class D, class DX>
STATICNET_HD void write_gradient(index_t i, const D* d, DX dx) {
  if constexpr (W == GradientWrite::copy)
    store(dx, i, load(d, i));
  else if constexpr (W == GradientWrite::accumulate)
    write<true>(dx, i, load(d, i));
}

// Y, DA and DB are pointers, or std::nullptr_t for what the pass does not touch (y where the
// activation's backward does not read it, da and db where they are dy's buffer).
template <class Act, GradientWrite First, GradientWrite Second, class Y, class DY, class DA,
          class DB>
STATICNET_HD void residual_add_backward(index_t i, Y y, DY* dy, DA da, DB db) {
  if constexpr (Act::reads_output)
    store(dy, i, Act::backward(load(y, i), load(dy, i)));
  write_gradient<First>(i, dy, da);
  write_gradient<Second>(i, dy, db);
}

}  // namespace staticnet::kernels

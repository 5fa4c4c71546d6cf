#pragma once
// The elementwise activations, forward and backward. Backward is written in terms of the
// activation's output y (what every activation saves, see include/staticnet/layers.hpp), so a
// fused pass needs neither the pre-activation nor a second buffer:
//   ReLU       y = max(x, 0)             dx = dy · [y > 0]
//   LeakyReLU  y = x or 0.01·x           dx = dy · (y > 0 ? 1 : 0.01)   (0.01 > 0 keeps the sign)
//   Sigmoid    y = 1 / (1 + e^-x)        dx = dy · y · (1 − y)
//   Tanh       y = tanh x                dx = dy · (1 − y²)
//   Identity   y = x                     dx = dy   (a Linear or Conv2d with no activation after it)
// At x = 0 exactly, ReLU's gradient is 0 and LeakyReLU's 0.01, as in PyTorch.
// `reads_output` says whether backward needs y at all: a Linear or Conv2d with no activation has
// none saved, and the bodies below must not read it then.
#include "staticnet/kernels/host_device.hpp"
#include "staticnet/kernels/low_precision.hpp"

namespace staticnet::kernels {

struct Identity {
  static constexpr bool reads_output = false;
  STATICNET_HD static float forward(float x) { return x; }
  STATICNET_HD static float backward(float /*y*/, float dy) { return dy; }
};

struct ReLU {
  static constexpr bool reads_output = true;
  STATICNET_HD static float forward(float x) { return x > 0.0f ? x : 0.0f; }
  STATICNET_HD static float backward(float y, float dy) { return y > 0.0f ? dy : 0.0f; }
};

struct LeakyReLU {
  static constexpr bool reads_output = true;
  static constexpr float negative_slope = 0.01f;  // PyTorch's default
  STATICNET_HD static float forward(float x) { return x > 0.0f ? x : x * negative_slope; }
  STATICNET_HD static float backward(float y, float dy) {
    return y > 0.0f ? dy : dy * negative_slope;
  }
};

struct Sigmoid {
  static constexpr bool reads_output = true;
  STATICNET_HD static float forward(float x) { return 1.0f / (1.0f + exp_f(-x)); }
  STATICNET_HD static float backward(float y, float dy) { return dy * y * (1.0f - y); }
};

struct Tanh {
  static constexpr bool reads_output = true;
  STATICNET_HD static float forward(float x) { return tanh_f(x); }
  STATICNET_HD static float backward(float y, float dy) { return dy * (1.0f - y * y); }
};

// ---- standalone elementwise layers (not fused after a Linear or Conv2d) -----------------------
// Each tensor is float, BF16 or F16 (low_precision.hpp: computed in float, stored rounded).

// y[i] = f(x[i]); x and y may be the same buffer (the layer runs in place).
template <class Act, class X, class Y>
STATICNET_HD void activation_forward(index_t i, const X* x, Y* y) {
  store(y, i, Act::forward(load(x, i)));
}

// dx[i] = f'(y[i]) · dy[i]; dy and dx may be the same buffer (backward in place). Accumulate
// adds to dx (another reader of the input wrote its part already).
template <class Act, bool Accumulate = false, class Y, class DY, class DX>
STATICNET_HD void activation_backward(index_t i, const Y* y, const DY* dy, DX* dx) {
  write<Accumulate>(dx, i, Act::backward(load(y, i), load(dy, i)));
}

// y[i] when the activation's backward reads it, else nothing is read (and y may be nullptr: Y is
// a pointer, or std::nullptr_t).
template <class Act, class Y>
STATICNET_HD float saved_output(Y y, index_t i) {
  if constexpr (Act::reads_output)
    return load(y, i);
  else
    return 0.0f;
}

}  // namespace staticnet::kernels

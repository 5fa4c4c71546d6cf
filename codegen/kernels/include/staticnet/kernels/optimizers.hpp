#pragma once
// The optimizer updates, one element of the contiguous parameter region at a time. Parameters,
// gradients and moments share element offsets (include/staticnet/plan.hpp), so one loop (or one
// CUDA kernel) updates the whole model.
//
// The formulas and their operation order are PyTorch's single-tensor implementations
// (torch/optim/sgd.py and adam.py, the default on the CPU), so three steps agree with PyTorch
// within a few ulps:
//   SGD          g = grad + wd·p;  p = p + (−lr)·g
//   SGDMomentum  g = grad + wd·p;  buf = momentum·buf + g (the first step's buf = g, as 0·m + g);
//                p = p + (−lr)·buf
//   Adam         g = grad + wd·p;  m = m + (1−β1)·(g − m)  (lerp);  v = β2·v + ((1−β2)·g)·g;
//                p = p + ((−lr / (1−β1^t))·m) / (√v / √(1−β2^t) + ε)
//   AdamW        p = p · (1 − lr·wd), then Adam's update with wd = 0 in g.
// The scalars that depend on the step number t are computed once per step on the host
// (optimizer_constants), in double as Python does, then rounded to float as PyTorch's tensor ops
// do.
#include <cmath>
#include <cstdint>

#include "staticnet/kernels/host_device.hpp"

namespace staticnet::kernels {

enum class Optimizer : std::uint8_t { sgd, sgd_momentum, adam, adamw };

// What the user sets (PyTorch's defaults where it has them).
struct OptimizerSettings {
  double learning_rate = 0.01;
  double momentum = 0.9;                              // SGDMomentum
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;  // Adam, AdamW
  double weight_decay = 0.0;  // L2 for SGD/Adam; decoupled for AdamW (PyTorch: 0.01)
};

// The per-step constants the update kernels read, all rounded to float.
struct OptimizerConstants {
  float neg_learning_rate = 0;  // −lr
  float momentum = 0;
  float weight_decay = 0;  // added to the gradient (SGD, SGDMomentum, Adam)
  float decay_factor = 1;  // 1 − lr·wd (AdamW)
  float one_minus_beta1 = 0, beta2 = 0, one_minus_beta2 = 0, epsilon = 0;
  float neg_step_size = 0;          // −lr / (1 − β1^t)
  float bias_correction2_sqrt = 1;  // √(1 − β2^t)
  // Not the optimizer's, but per step too: what Dropout's masks are drawn from (dropout.hpp).
  // `step` is t; `seed` is the run's (--seed), set by the caller.
  std::int64_t step = 0;
  std::uint64_t seed = 0;
};

// t counts optimizer steps from 1 (Adam's bias correction).
inline OptimizerConstants optimizer_constants(Optimizer kind, const OptimizerSettings& s,
                                              std::int64_t t) {
  OptimizerConstants c;
  c.neg_learning_rate = static_cast<float>(-s.learning_rate);
  c.momentum = static_cast<float>(s.momentum);
  c.weight_decay = kind == Optimizer::adamw ? 0.0f : static_cast<float>(s.weight_decay);
  c.decay_factor = static_cast<float>(1.0 - s.learning_rate * s.weight_decay);
  c.one_minus_beta1 = static_cast<float>(1.0 - s.beta1);
  c.beta2 = static_cast<float>(s.beta2);
  c.one_minus_beta2 = static_cast<float>(1.0 - s.beta2);
  c.epsilon = static_cast<float>(s.epsilon);
  const double step = static_cast<double>(t);
  c.neg_step_size = static_cast<float>(-(s.learning_rate / (1.0 - std::pow(s.beta1, step))));
  c.bias_correction2_sqrt = static_cast<float>(std::sqrt(1.0 - std::pow(s.beta2, step)));
  c.step = t;
  return c;
}

STATICNET_HD float decayed_gradient(float grad, float param, const OptimizerConstants& c) {
  return c.weight_decay != 0.0f ? grad + param * c.weight_decay : grad;
}

STATICNET_HD void sgd_update(index_t i, float* params, const float* grads,
                             const OptimizerConstants& c) {
  params[i] = params[i] + c.neg_learning_rate * decayed_gradient(grads[i], params[i], c);
}

STATICNET_HD void sgd_momentum_update(index_t i, float* params, const float* grads, float* velocity,
                                      const OptimizerConstants& c) {
  const float g = decayed_gradient(grads[i], params[i], c);
  const float buf = velocity[i] * c.momentum + g;
  velocity[i] = buf;
  params[i] = params[i] + c.neg_learning_rate * buf;
}

template <bool Decoupled>
STATICNET_HD void adam_update(index_t i, float* params, const float* grads, float* m, float* v,
                              const OptimizerConstants& c) {
  float p = params[i];
  if constexpr (Decoupled)
    p = p * c.decay_factor;
  const float g = decayed_gradient(grads[i], p, c);
  const float m1 = m[i] + c.one_minus_beta1 * (g - m[i]);
  const float v1 = v[i] * c.beta2 + c.one_minus_beta2 * g * g;
  m[i] = m1;
  v[i] = v1;
  const float denom = sqrt_f(v1) / c.bias_correction2_sqrt + c.epsilon;
  params[i] = p + c.neg_step_size * m1 / denom;
}

}  // namespace staticnet::kernels

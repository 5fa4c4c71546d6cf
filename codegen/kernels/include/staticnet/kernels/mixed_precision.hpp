#pragma once
// The two steps mixed precision adds to a training step, as torch.autocast and
// torch.amp.GradScaler take them:
//
//   the working copy  before forward, each parameter rounded from its float master into the
//                     plan's parameter_copy (bf16 or f16), which the products read: autocast's cast
//                     cache, made once per step.
//   loss scaling      (f16 only) the loss's gradient is multiplied by the scale, so that small
//                     gradients survive f16's narrow range; before the update each gradient is
//                     multiplied by 1/scale, and a step whose gradients hold an Inf or a NaN is
//                     skipped and the scale lowered; after enough steps without one it is raised.
//                     GradScaler's semantics and defaults: initial scale 2^16, growth ×2 every
//                     2000 steps without an Inf or a NaN, backoff ×0.5 on one.
//
// The scaler's state lives in the arena (the plan's loss_scale buffer, loss_scale_bytes), so the
// decision is made where the step runs, with no copy to the host per step (a GPU decides it inside
// its captured graph), and a checkpoint keeps it.
#include <cstdint>

#include "staticnet/kernels/host_device.hpp"
#include "staticnet/kernels/low_precision.hpp"

namespace staticnet::kernels {

// Parameter i of the working copy, rounded from the master (T is BF16 or F16).
template <class T>
STATICNET_HD void round_parameter(index_t i, const float* master, T* copy) {
  store(copy, i, master[i]);
}

// The scaler's state, as the plan's loss_scale buffer holds it (12 bytes; GradScaler keeps the
// same three on the device: _scale, _growth_tracker and the step's found_inf).
struct LossScaleState {
  float scale;
  std::int32_t growth_tracker;  // steps in a row without an Inf or a NaN
  float found_inf;              // 1 when this step's gradients held one (it was skipped), else 0
};
static_assert(sizeof(LossScaleState) == 12);

// GradScaler's constructor arguments, with its defaults.
struct LossScaleSettings {
  float initial_scale = 65536.0f;
  float growth_factor = 2.0f;
  float backoff_factor = 0.5f;
  std::int32_t growth_interval = 2000;
};

STATICNET_HD LossScaleState initial_loss_scale(const LossScaleSettings& s) {
  return {s.initial_scale, 0, 0.0f};
}

// 1/scale as GradScaler computes it: the reciprocal in double, rounded to float.
STATICNET_HD float inverse_scale(const LossScaleState& s) {
  return static_cast<float>(1.0 / static_cast<double>(s.scale));
}

// Gradient i unscaled in place: g · (1/scale) (g itself where 1/scale is 1), as
// torch._amp_foreach_non_finite_check_and_unscale_. Returns whether g, as it was scaled, is an
// Inf or a NaN; the backend combines the answers into the state's found_inf.
STATICNET_HD bool unscale_gradient(index_t i, float* gradients, float inverse) {
  const float g = gradients[i];
  const bool non_finite = !(g - g == 0.0f);  // Inf − Inf and NaN − NaN are NaN; finite − itself, 0
  gradients[i] = inverse == 1.0f ? g : g * inverse;
  return non_finite;
}

// After the step, as torch._amp_update_scale_: back off and restart the count on an Inf or a NaN;
// otherwise count the step and, at the interval, grow the scale (where the grown scale is finite)
// and restart the count. found_inf stays this step's answer, for the host to count skipped steps
// by; the next step's unscale sets it anew.
STATICNET_HD void update_loss_scale(LossScaleState& s, const LossScaleSettings& settings) {
  if (s.found_inf != 0.0f) {
    s.scale = s.scale * settings.backoff_factor;
    s.growth_tracker = 0;
  } else if (s.growth_tracker + 1 == settings.growth_interval) {
    const float grown = s.scale * settings.growth_factor;
    if (grown - grown == 0.0f)
      s.scale = grown;
    s.growth_tracker = 0;
  } else {
    s.growth_tracker = s.growth_tracker + 1;
  }
}

}  // namespace staticnet::kernels

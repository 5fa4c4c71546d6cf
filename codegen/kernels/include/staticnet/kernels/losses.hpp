#pragma once
// The losses, forward and backward in one pass per sample. The batch's loss is the mean of the
// per-sample values, which the host sums (in double) after the step; the gradient written here is
// already that mean's: d(mean loss)/d(output).
//
//   CrossEntropy  logits z (Batch, Classes), int32 label y per sample:
//                 loss_n = log Σ_c e^(z_c − m) − (z_y − m), m = max_c z_c (so e^ never overflows)
//                 dz_c   = (e^(z_c − m) / Σ − [c = y]) / Batch
//                 predicted_n = argmax_c z_c (the first on ties), for the accuracy the host counts.
//                 Softmax and log-softmax are never stored: the exponentials go straight into dz.
//   MSE           output y and target t (Batch, Elements), PyTorch's mean over all elements:
//                 loss_n = Σ_e (y_e − t_e)² / Elements      (mean over n = PyTorch's MSELoss)
//                 dy_e   = 2 / (Batch · Elements) · (y_e − t_e)
// Labels are checked against Classes when the data set opens (runtime/validation.hpp), so the
// kernel indexes with them directly. The output and its gradient may be float, BF16 or F16 (the
// logits' dtype); the loss runs in float, as autocast runs cross_entropy and mse_loss. Under loss
// scaling (Mixed<f16>) the gradient is that of the scaled loss, gradient_scale · mean loss, as
// GradScaler's scaler.scale(loss).backward() computes it: in float, then rounded to its dtype (the
// scale is a power of two, so scaling rounds nothing of its own).
#include <cstdint>
#include <type_traits>

#include "staticnet/kernels/host_device.hpp"
#include "staticnet/kernels/low_precision.hpp"

namespace staticnet::kernels {

template <index_t Batch, index_t Classes, class Z, class DZ>
STATICNET_HD void softmax_cross_entropy(index_t n, const Z* logits, const std::int32_t* labels,
                                        float* loss, std::int32_t* predicted, DZ* dlogits,
                                        float gradient_scale = 1.0f) {
  const Z* z = logits + n * Classes;
  DZ* dz = dlogits + n * Classes;
  float top = load(z, 0);
  index_t top_at = 0;
  for (index_t c = 1; c < Classes; ++c) {
    if (load(z, c) > top) {
      top = load(z, c);
      top_at = c;
    }
  }
  // A float dz holds each exponential until the sum is known; a narrower one would round it, so
  // then the exponentials are computed again (the same values).
  constexpr bool holds_exponentials = std::is_same_v<DZ, float>;
  float sum = 0.0f;
  for (index_t c = 0; c < Classes; ++c) {
    const float e = exp_f(load(z, c) - top);
    if constexpr (holds_exponentials)
      dz[c] = e;
    sum += e;
  }
  const index_t label = labels[n];
  loss[n] = log_f(sum) - (load(z, label) - top);
  predicted[n] = static_cast<std::int32_t>(top_at);
  const float inverse_batch = 1.0f / static_cast<float>(Batch) * gradient_scale;
  for (index_t c = 0; c < Classes; ++c) {
    const float e = holds_exponentials ? load(dz, c) : exp_f(load(z, c) - top);
    store(dz, c, (e / sum - (c == label ? 1.0f : 0.0f)) * inverse_batch);
  }
}

template <index_t Batch, index_t Elements, class Y, class DY>
STATICNET_HD void mean_squared_error(index_t n, const Y* output, const float* target, float* loss,
                                     DY* doutput, float gradient_scale = 1.0f) {
  const float norm = 2.0f / static_cast<float>(Batch * Elements) * gradient_scale;
  float sum = 0.0f;
  for (index_t e = 0; e < Elements; ++e) {
    const index_t i = n * Elements + e;
    const float d = load(output, i) - target[i];
    sum += d * d;
    store(doutput, i, norm * d);
  }
  loss[n] = sum / static_cast<float>(Elements);
}

}  // namespace staticnet::kernels

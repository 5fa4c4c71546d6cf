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
// kernel indexes with them directly.
#include <cstdint>

#include "staticnet/kernels/host_device.hpp"

namespace staticnet::kernels {

template <index_t Batch, index_t Classes>
STATICNET_HD void softmax_cross_entropy(index_t n, const float* logits, const std::int32_t* labels,
                                        float* loss, std::int32_t* predicted, float* dlogits) {
  const float* z = logits + n * Classes;
  float* dz = dlogits + n * Classes;
  float top = z[0];
  index_t top_at = 0;
  for (index_t c = 1; c < Classes; ++c) {
    if (z[c] > top) {
      top = z[c];
      top_at = c;
    }
  }
  float sum = 0.0f;
  for (index_t c = 0; c < Classes; ++c) {
    const float e = exp_f(z[c] - top);
    dz[c] = e;
    sum += e;
  }
  const index_t label = labels[n];
  loss[n] = log_f(sum) - (z[label] - top);
  predicted[n] = static_cast<std::int32_t>(top_at);
  const float inverse_batch = 1.0f / static_cast<float>(Batch);
  for (index_t c = 0; c < Classes; ++c)
    dz[c] = (dz[c] / sum - (c == label ? 1.0f : 0.0f)) * inverse_batch;
}

template <index_t Batch, index_t Elements>
STATICNET_HD void mean_squared_error(index_t n, const float* output, const float* target,
                                     float* loss, float* doutput) {
  const float norm = 2.0f / static_cast<float>(Batch * Elements);
  float sum = 0.0f;
  for (index_t e = 0; e < Elements; ++e) {
    const index_t i = n * Elements + e;
    const float d = output[i] - target[i];
    sum += d * d;
    doutput[i] = norm * d;
  }
  loss[n] = sum / static_cast<float>(Elements);
}

}  // namespace staticnet::kernels
